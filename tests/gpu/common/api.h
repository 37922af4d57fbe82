/* One collective call, and the two ways of making it: the native stream-ordered API and MPI_*
 * on device buffers through the plug-in. The case machinery works with either. */
#ifndef GPU_API_H
#define GPU_API_H

#include <stddef.h>
#include <cuda_runtime_api.h>
#include <mpi.h>
#include "mcoll.h"
#include "types.h"

typedef enum {
    COLL_ALLREDUCE, COLL_REDUCE, COLL_BCAST, COLL_REDUCE_SCATTER, COLL_ALLGATHER,
    /* API 0.3 of the native API; through MPI_* too (common/mpi_calls.h; gpu_soak) */
    COLL_ALLGATHERV, COLL_ALLTOALL, COLL_ALLTOALLV, COLL_GATHER, COLL_GATHERV, COLL_SCATTER, COLL_SCATTERV,
    COLL_SCAN, COLL_EXSCAN
} coll_kind;

const char *coll_name(coll_kind kind);

typedef struct {
    coll_kind kind;
    const test_type *type;
    const test_op *op;     /* reductions only */
    size_t count;          /* allreduce, reduce, bcast, scan, exscan: elements; reduce_scatter:
                              elements per rank received; allgather, gather, scatter, alltoall:
                              elements per block; allgatherv, gatherv: elements sent; scatterv:
                              elements received */
    int root;              /* reduce, bcast, gather(v), scatter(v) */
    const void *sendbuf;   /* MPI_IN_PLACE for in place; unused by bcast */
    void *recvbuf;         /* bcast: the buffer; scatter(v) root in place: MPI_IN_PLACE */
    /* Per-rank elements and displacements (NULL where the call does not read them): the send
     * side of scatterv and alltoallv, the receive side of allgatherv, gatherv and alltoallv. */
    const size_t *sendcounts, *sdispls, *recvcounts, *rdispls;
} coll_call;

typedef struct coll_api coll_api;
struct coll_api {
    const char *name;        /* first part of case names */
    MPI_Comm comm;
    int rank, size;          /* in comm */
    mcoll_comm *mc;          /* native only */
    cudaStream_t stream;     /* native only */
    /* Start the call (native: enqueue; MPI: the whole call). 0, or -1 with the failure recorded. */
    int (*issue)(coll_api *api, const coll_call *call);
    /* Wait for everything issued (native: stream synchronize; MPI: nothing). */
    int (*wait)(coll_api *api);
};

/* Native API over an mcoll communicator of `comm` on `stream`. */
void api_native(coll_api *api, const char *name, MPI_Comm comm, mcoll_comm *mc, cudaStream_t stream);
/* The native call captured into a CUDA graph of its own, launched once and waited for; the
 * graph is freed before issue returns. */
void api_graph(coll_api *api, const char *name, MPI_Comm comm, mcoll_comm *mc, cudaStream_t stream);
/* MPI_* calls over `comm` (its error handler becomes MPI_ERRORS_RETURN). */
void api_mpi(coll_api *api, const char *name, MPI_Comm comm);
/* The same through the nonblocking forms (MPI_I*; reduce_scatter as MPI_Ireduce_scatter with
 * equal counts), each completed by MPI_Wait before issue returns. */
void api_mpi_nonblocking(coll_api *api, const char *name, MPI_Comm comm);

/* issue then wait. */
int api_run(coll_api *api, const coll_call *call);

/* The native call itself, for graph capture and bursts: enqueues and returns mcoll's result. */
mcoll_result native_enqueue(mcoll_comm *mc, cudaStream_t stream, const coll_call *call);
/* Text for an mcoll result with the last warning, for failure details. */
void native_describe(mcoll_result rc, char *buf, size_t len);

#endif /* GPU_API_H */
