/* Memory and copy streams for operations in flight (request.h), which outlive the call that
 * started them and so cannot use the per-thread staging buffer of stage.h.
 *
 * Blocks are pinned host memory (portable, on the NUMA node nearest the current context's GPU;
 * plain malloc if pinning fails) or device memory of the current context. Sizes are rounded up
 * to a power of two (at least 64 KiB) and returned blocks are kept for reuse, up to 256 MiB of
 * each kind; everything is freed at MPI_Finalize. Each context has one copy stream, created
 * with default flags so that its copies wait for work the user queued on the legacy default
 * stream, as the blocking staged path's do. All functions are thread-safe. */
#ifndef MCOLL_POOL_H
#define MCOLL_POOL_H

#include <stddef.h>
#include <cuda.h>

typedef struct mcoll_block {
    char *ptr;
    size_t bytes;
    int on_device;
    CUcontext ctx;           /* current when it was allocated */
    int pinned, registered;  /* host blocks: how they were allocated */
    struct mcoll_block *next;
} mcoll_block;

/* A block of at least `bytes` (a context must be current); NULL on failure (logged). */
mcoll_block *mcoll_pool_get(int on_device, size_t bytes);
/* Back to the pool (NULL is fine). */
void mcoll_pool_put(mcoll_block *b);
/* The copy stream of the current context; NULL on failure (logged). */
CUstream mcoll_pool_stream(void);
/* Make `ctx` current in this thread (NULL: leave the thread as it is) and return what was
 * current; mcoll_ctx_leave puts that back. Operations are advanced from whichever thread calls
 * MPI, so their driver calls go through these. */
CUcontext mcoll_ctx_enter(CUcontext ctx);
void mcoll_ctx_leave(CUcontext ctx, CUcontext before);

/* A timing-free event of the current context, reused from earlier operations where one is
 * kept (creating and destroying one per call would cost about as much as the launch); NULL on
 * failure (logged). mcoll_pool_event_put keeps it for the next operation of `ctx`. */
CUevent mcoll_pool_event(void);
void mcoll_pool_event_put(CUcontext ctx, CUevent event);

/* Free every block, event and stream (inside MPI_Finalize, once no operation is in flight). */
void mcoll_pool_finalize(void);

#endif /* MCOLL_POOL_H */
