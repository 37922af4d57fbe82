/* A host model of the unicast reduction (tests/unit/pack_reduce.cu). */
#ifndef MCOLL_TEST_PACK_REDUCE_H
#define MCOLL_TEST_PACK_REDUCE_H

#include <stddef.h>
#include "launch.h"

#ifdef __cplusplus
extern "C" {
#endif

/* out = the reduction of `count` elements of in[0..nranks) as the unicast kernels compute it,
 * order-free ops starting at peer `first`. Writes the datatype's span only. 0, or -1 when the
 * kernels do not reduce `dtype` with `op`. */
int pack_reduce(mcoll_dtype dtype, mcoll_op op, int nranks, int first, const void *const *in, void *out, size_t count);

#ifdef __cplusplus
}
#endif
#endif /* MCOLL_TEST_PACK_REDUCE_H */
