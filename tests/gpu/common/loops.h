/* Back-to-back calls: many collectives issued without the host waiting in between (native:
 * enqueued on one stream; MPI: consecutive calls), each with data no other call has, so a
 * stale or misplaced result shows. Inputs are small integers (exact in float too): iteration k
 * gives every element its rank's base value + k, so result k must be sum(base) + nranks * k. */
#ifndef GPU_LOOPS_H
#define GPU_LOOPS_H

#include <stddef.h>
#include "api.h"

/* `iters` allreduce sums, each from its own input row to its own output row. */
void loop_distinct(coll_api *api, const test_type *type, size_t count, int iters);
/* `iters` allreduce sums through the same send and receive buffers: before each call the input
 * row is copied into sendbuf, after it recvbuf is copied to a history row (stream-ordered
 * copies for the native API). */
void loop_reused(coll_api *api, const test_type *type, size_t count, int iters);
/* `iters` broadcasts, the root moving on every call, each into its own row. */
void loop_bcast(coll_api *api, size_t count, int iters);

#endif /* GPU_LOOPS_H */
