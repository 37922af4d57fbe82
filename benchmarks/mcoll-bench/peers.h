/* The implementations mcoll-bench compares. Every peer runs the same collective on the same
 * device buffers; they differ in how a call is issued and timed:
 *   STREAM    enqueued on one CUDA stream back to back, timed with cudaEvents;
 *   GRAPH     the same calls captured once in a CUDA graph of N calls, the graph replayed;
 *   BLOCKING  MPI calls that return with the result in place (a persistent request started
 *             and waited for counts as one), timed with MPI_Wtime. */
#ifndef MB_PEERS_H
#define MB_PEERS_H

#include <stddef.h>
#include "bench_coll.h"
#include "hbm.h"

typedef enum {
    MB_MCOLL,        /* mcoll native API (mcoll_allreduce, ...) */
    MB_MCOLL_WINDOW, /* the same on buffers in an mcoll_mem_alloc window: zero-copy */
    MB_MCOLL_GRAPH,  /* the same, captured in a CUDA graph */
    MB_MCOLL_MPI,    /* MPI_Allreduce, ... on device buffers: mcoll's PMPI plug-in */
    MB_MCOLL_PERSISTENT, /* the same as persistent requests (MPI_Allreduce_init once, then
                            MPI_Start + MPI_Wait per call) */
    MB_NCCL,         /* NCCL, loaded with dlopen */
    MB_NCCL_GRAPH,   /* NCCL captured in a CUDA graph */
    MB_STAGED,       /* cudaMemcpy to pinned host, PMPI_* (mcoll bypassed), copy back */
    MB_NPEERS
} mb_peer_id;

typedef enum { MB_STREAM, MB_GRAPH, MB_BLOCKING } mb_kind;

struct mb_ctx;

/* One collective at one size, out of place or in place; the buffers are the context's. In
 * place follows MPI's layouts (MPI_IN_PLACE): the input in the receive buffer (all of it for
 * reduce_scatter, this rank's block for allgather, the root's for reduce; bcast has one buffer
 * either way). NCCL's in-place reduce_scatter leaves the result at this rank's block of that
 * buffer (rs_in_place_at_block). */
typedef struct {
    bench_coll coll;
    bench_shape shape;  /* with the root and op of the run */
    int in_place;
} mb_op;

/* Issue one call. Returns 0, or -1 with the reason in err. */
typedef int (*mb_launch_fn)(struct mb_ctx *ctx, const mb_op *op, char *err, size_t len);

typedef struct {
    const char *name;
    mb_kind kind;
    mb_launch_fn launch;
    int enabled;       /* chosen on the command line */
    int ready;         /* set up on every rank */
    char why[256];     /* why not ready */
    int nccl_ref;      /* the NCCL peer this one's "vs NCCL" column divides by, or -1 */
    int rs_in_place_at_block; /* in-place reduce_scatter result at this rank's block, not at 0 */
    void *d_send, *d_recv; /* the device buffers its calls use: the context's, or its own */
    mb_path path;      /* how its calls move data (MB_PATH_UNKNOWN: no HBM count) */
    int probe_zero_copy; /* path read from mcoll_comm_info around each point's first call */
} mb_peer;

const char *mb_peer_name(int id);
int mb_peer_find(const char *name); /* -1 when unknown */

/* Setup and teardown per family; collective over the context's communicator. Setup fills
 * launch, ready and why of its peers; a peer that cannot run says why and the rest go on. */
void mb_mcoll_setup(struct mb_ctx *ctx);
void mb_mcoll_teardown(struct mb_ctx *ctx);
void mb_window_setup(struct mb_ctx *ctx);    /* after mb_mcoll_setup: it uses the communicator */
void mb_window_teardown(struct mb_ctx *ctx); /* before mb_mcoll_teardown */

/* The native call of `op` on the given device buffers (the mcoll peers' launch). */
int mb_mcoll_call(struct mb_ctx *ctx, const mb_op *op, void *d_send, void *d_recv, char *err, size_t len);
/* Calls of the native communicator that ran zero-copy so far (mcoll_comm_info). */
unsigned long long mb_mcoll_zero_copy_calls(struct mb_ctx *ctx);
void mb_nccl_setup(struct mb_ctx *ctx);
void mb_nccl_teardown(struct mb_ctx *ctx);
void mb_mpi_setup(struct mb_ctx *ctx);
void mb_mpi_teardown(struct mb_ctx *ctx);
void mb_persistent_setup(struct mb_ctx *ctx); /* after mb_mpi_setup: it uses mpi_comm */
void mb_persistent_teardown(struct mb_ctx *ctx);

/* "2.27.3 (libnccl.so.2)" or the reason NCCL is not in use. */
const char *mb_nccl_describe(const struct mb_ctx *ctx);

#endif /* MB_PEERS_H */
