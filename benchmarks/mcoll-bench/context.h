/* Everything one mcoll-bench process holds for the run: its rank and GPU, the stream and
 * events, the buffers every peer shares, and the peers' state. */
#ifndef MB_CONTEXT_H
#define MB_CONTEXT_H

#include <stddef.h>
#include <mpi.h>
#include <cuda_runtime_api.h>

#include "bench_dtype.h"
#include "options.h"
#include "peers.h"

struct mcoll_comm;
struct mb_nccl;

typedef struct mb_ctx {
    const mb_options *opt;
    int rank, nranks, device;
    int ngpus;                 /* distinct GPUs (host, PCI bus id) the ranks run on */
    char shared_gpu[192];      /* "ranks 0,1 share GPU 0000:19:00.0", or empty: a GPU per rank */
    MPI_Comm comm;             /* for the benchmark's own barriers and reductions */
    const bench_dtype *dtype;
    MPI_Datatype mpi_dtype;

    cudaStream_t stream;       /* every stream-ordered call, and the graphs */
    cudaEvent_t start, stop;

    /* Allocated once for the largest size and shared by every peer. */
    size_t buf_bytes;
    void *d_send, *d_recv;     /* device */
    void *h_send, *h_recv;     /* pinned host: the staged peer's copies, and the checks */
    int seed;                  /* input of the last check */

    mb_peer peer[MB_NPEERS];

    MPI_Comm mpi_comm;         /* MPI peers: a duplicate that returns errors instead of aborting */
    MPI_Request persistent;    /* mcoll-persistent: the request of persistent_op, or
                                  MPI_REQUEST_NULL */
    mb_op persistent_op;
    MPI_Comm mcoll_mpi_comm;   /* the communicator the native mcoll communicator was made from */
    struct mcoll_comm *mcoll;
    char mcoll_desc[512];      /* mcoll_comm_describe, or why there is none */
    void *window;              /* mcoll-window: its mcoll_mem_alloc memory, or NULL */
    struct mb_nccl *nccl;
} mb_ctx;

/* Stream, events and buffers for sizes up to opt->max_bytes; inputs set to valid numbers.
 * Collective: the ranks also learn which of them share a GPU (ngpus, shared_gpu). */
void mb_ctx_init(mb_ctx *ctx, const mb_options *opt);
void mb_ctx_fini(mb_ctx *ctx);

/* All ranks learn whether every rank succeeded. When one failed, every rank gets the failing
 * lowest rank's reason in `why` (len bytes), so rank 0 can print it. Returns 1 when all succeeded. */
int mb_agree(mb_ctx *ctx, int ok, char *why, size_t len);

#endif /* MB_CONTEXT_H */
