/* Staging device buffers through pinned host memory for an MPI that is not CUDA-aware.
 *
 * Resources are per thread (so MPI_THREAD_MULTIPLE callers never share a buffer) and live until
 * MPI_Finalize: a pinned host buffer that grows to the largest call seen (cuMemHostAlloc,
 * PORTABLE; plain malloc if pinning fails), one copy stream created with default flags, so it
 * waits for work already queued on the legacy default stream, and two events, one per
 * pipeline slot. Every staged call ends with the stream synchronized. */
#ifndef MCOLL_STAGE_H
#define MCOLL_STAGE_H

#include <stddef.h>
#include "mcoll.h"
#include "pmpi.h"

typedef struct mcoll_stage mcoll_stage;

/* This thread's resources, bound to the current CUDA context (the primary context of `device`
 * when the thread has none: it is made current for the call and retained until MPI_Finalize).
 * NULL on failure (logged). Pair with mcoll_stage_end. */
mcoll_stage *mcoll_stage_begin(int device);
void mcoll_stage_end(mcoll_stage *stage);

/* At least `bytes` of host memory; valid until the next call on this thread. NULL on failure. */
char *mcoll_stage_host(mcoll_stage *stage, size_t bytes);
/* At least `bytes` of device memory in the stage's context, likewise. */
void *mcoll_stage_device(mcoll_stage *stage, size_t bytes);

/* Copies queued on the stream; marks and waits on the event of pipeline slot `slot` (0 or 1). */
mcoll_result mcoll_stage_to_host(mcoll_stage *stage, void *dst, const void *src, size_t bytes);
mcoll_result mcoll_stage_to_device(mcoll_stage *stage, void *dst, const void *src, size_t bytes);
mcoll_result mcoll_stage_mark(mcoll_stage *stage, int slot);
mcoll_result mcoll_stage_wait(mcoll_stage *stage, int slot);
mcoll_result mcoll_stage_sync(mcoll_stage *stage);

/* Free every thread's resources and the retained contexts (inside MPI_Finalize). */
void mcoll_stage_finalize(void);

/* Run the call's PMPI operation over its buffers: c->send and c->recv marked `staged` go through
 * host memory, the others are passed as they are. chunk > 0 (elementwise collectives only) cuts
 * the call into PMPI calls of `chunk` elements, pipelined over two slots so that the copies of
 * one chunk overlap the MPI call of the next. Returns the PMPI result (its error handler has
 * already run) and sets *cuda_failed when a copy failed; the MPI calls are made regardless, so
 * the other ranks are not left waiting. */
int mcoll_stage_run(mcoll_call *c, int chunk, int *cuda_failed);

/* First byte (from b->user) and length of elements [first, first + n) of a described buffer:
 * [true_lb, true_lb + (n - 1) * extent + true_extent) from element `first`. */
void mcoll_buf_span(const mcoll_buf *b, MPI_Aint first, MPI_Aint n, MPI_Aint *lo, size_t *bytes);

#endif /* MCOLL_STAGE_H */
