/* The native collectives once their arguments are known to be good (see comm_internal.h):
 * enter the team's context and launch. Nothing here checks a datatype, an op or a root. */
#include <string.h>
#include "checks.h"
#include "comm_internal.h"
#include "direct.h"

static mcoll_access access_of(const mcoll_comm *comm)
{
    /* Multicast mappings, or the tests' emulation of them (team.h). */
    return comm->team->dev.mc_data ? MCOLL_ACCESS_MULTIMEM : MCOLL_ACCESS_UNICAST;
}

/* Kernels launch into the current context. A team created on a thread without one runs in
 * the primary context it made current; calls from threads without it get it too. Otherwise the
 * caller's current context is the team's device's, and is left alone. */
mcoll_result mcoll_comm_current(mcoll_comm *comm)
{
    CUcontext current = NULL;
    if (comm->team->made_current &&
        (mcoll_cu.cuCtxGetCurrent(&current) != CUDA_SUCCESS || current != comm->team->context))
        CU_RETURN(cuCtxSetCurrent(comm->team->context));
    return MCOLL_SUCCESS;
}

mcoll_result mcoll_comm_enter_context(mcoll_comm *comm)
{
    mcoll_async_wait_earlier();
    if (mcoll_watch_aborted(&comm->team->watch)) return MCOLL_ERR_ABORTED;
    return mcoll_comm_current(comm);
}

CUcontext mcoll_comm_context(mcoll_comm *comm)
{
    CUcontext current = NULL;
    if (comm->team->made_current || mcoll_cu.cuCtxGetCurrent(&current) != CUDA_SUCCESS || !current)
        return comm->team->context;
    return current;
}

mcoll_result mcoll_comm_enter(mcoll_comm *comm)
{
    MC_RETURN(mcoll_comm_enter_context(comm));
    return mcoll_resident_drain(comm);
}

mcoll_result mcoll_comm_enter_on(mcoll_comm *comm, struct CUstream_st *stream)
{
    MC_RETURN(mcoll_comm_enter_context(comm));
    MC_RETURN(mcoll_resident_fence(comm, stream));
    MC_RETURN(mcoll_comm_order(comm, stream));
    mcoll_word_arm(&comm->word, comm->team, (CUstream)stream);
    return MCOLL_SUCCESS;
}

const mcoll_dev_team *mcoll_comm_dev(const mcoll_comm *comm) { return mcoll_word_dev(&comm->word, comm->team); }

int mcoll_comm_ll_form(const mcoll_comm *comm, mcoll_ll_kind kind, const void *sendbuf, void *recvbuf, size_t count,
                       mcoll_dtype dtype, mcoll_op op, int root, mcoll_ll_call *out)
{
    const int rank = comm->team->rank;
    memset(out, 0, sizeof *out);
    out->kind = kind;
    out->dtype = dtype;
    out->op = op;
    out->root = root;
    out->recv = recvbuf;
    out->send = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    switch (kind) {
    case MCOLL_LL_ALLREDUCE: case MCOLL_LL_REDUCE:
        out->bytes = mcoll_dtype_span(dtype, count);
        break;
    case MCOLL_LL_REDUCE_SCATTER:
        /* Blocks follow each other at the payload's length: no padding after an element. */
        if (mcoll_dtype_span(dtype, count) != count * mcoll_dtype_size(dtype)) return 0;
        out->bytes = count * mcoll_dtype_size(dtype);
        break;
    case MCOLL_LL_ALLGATHER:
        out->bytes = count;
        if (sendbuf == MPI_IN_PLACE) out->send = (const char *)recvbuf + (size_t)rank * count;
        break;
    case MCOLL_LL_BCAST:
        out->bytes = count;
        out->send = recvbuf;
        break;
    default:
        break;
    }
    return mcoll_ll_supported(mcoll_comm_dev(comm), out);
}


static mcoll_result launched(int status, const char *what)
{
    if (status == MCOLL_LAUNCH_OK) return MCOLL_SUCCESS;
    if (status == MCOLL_LAUNCH_UNSUPPORTED) return MCOLL_ERR_UNSUPPORTED;
    MCOLL_WARN("%s kernel launch failed: %s", what, mcoll_launch_error());
    return MCOLL_ERR_CUDA;
}

mcoll_result mcoll_comm_launched(int status, const char *what) { return launched(status, what); }

/* Small calls take the LL protocol (one block, no barrier): 1 when this one did, *rc its result. */
static int ll_taken(mcoll_comm *comm, mcoll_ll_kind kind, const void *sendbuf, void *recvbuf, size_t count,
                    mcoll_dtype dtype, mcoll_op op, int root, struct CUstream_st *stream, mcoll_result *rc)
{
    mcoll_ll_call call;
    if (!mcoll_comm_ll_form(comm, kind, sendbuf, recvbuf, count, dtype, op, root, &call)) return 0;
    *rc = launched(mcoll_launch_ll(mcoll_comm_dev(comm), &call, stream), "LL");
    return 1;
}

mcoll_result mcoll_comm_run_allreduce(mcoll_comm *comm, const void *sendbuf, void *recvbuf, size_t count,
                                      mcoll_dtype dtype, mcoll_op op, struct CUstream_st *stream)
{
    mcoll_result rc;
    if (!count) return MCOLL_SUCCESS;
    if (sendbuf == MPI_IN_PLACE) sendbuf = recvbuf;
    MC_RETURN(mcoll_comm_enter_on(comm, stream));
    if (ll_taken(comm, MCOLL_LL_ALLREDUCE, sendbuf, recvbuf, count, dtype, op, 0, stream, &rc)) return rc;
    if (mcoll_direct_allreduce(comm, sendbuf, recvbuf, count, dtype, op, stream, &rc)) return rc;
    return launched(mcoll_launch_allreduce(mcoll_comm_dev(comm), access_of(comm), sendbuf, recvbuf, count, dtype, op, stream),
                    "allreduce");
}

mcoll_result mcoll_comm_run_reduce(mcoll_comm *comm, const void *sendbuf, void *recvbuf, size_t count,
                                   mcoll_dtype dtype, mcoll_op op, int root, struct CUstream_st *stream)
{
    mcoll_result rc;
    if (!count) return MCOLL_SUCCESS;
    if (sendbuf == MPI_IN_PLACE) sendbuf = recvbuf;
    MC_RETURN(mcoll_comm_enter_on(comm, stream));
    if (ll_taken(comm, MCOLL_LL_REDUCE, sendbuf, recvbuf, count, dtype, op, root, stream, &rc)) return rc;
    if (mcoll_direct_reduce(comm, sendbuf, recvbuf, count, dtype, op, root, stream, &rc)) return rc;
    return launched(mcoll_launch_reduce(mcoll_comm_dev(comm), access_of(comm), sendbuf, recvbuf, count, dtype, op, root,
                                        stream),
                    "reduce");
}

mcoll_result mcoll_comm_run_bcast(mcoll_comm *comm, void *buf, size_t bytes, int root, struct CUstream_st *stream)
{
    mcoll_result rc;
    if (!bytes) return MCOLL_SUCCESS;
    MC_RETURN(mcoll_comm_enter_on(comm, stream));
    if (ll_taken(comm, MCOLL_LL_BCAST, buf, buf, bytes, MCOLL_BYTE, MCOLL_SUM, root, stream, &rc)) return rc;
    if (mcoll_direct_bcast(comm, buf, bytes, root, stream, &rc)) return rc;
    return launched(mcoll_launch_bcast(mcoll_comm_dev(comm), access_of(comm), buf, bytes, root, stream), "bcast");
}

mcoll_result mcoll_comm_run_reduce_scatter(mcoll_comm *comm, const void *sendbuf, void *recvbuf, size_t recvcount,
                                           mcoll_dtype dtype, mcoll_op op, struct CUstream_st *stream)
{
    mcoll_result rc;
    if (!recvcount) return MCOLL_SUCCESS;
    /* In place: the input is the whole of recvbuf; this rank's block is written at its start,
     * each element after the kernel has copied in the inputs it overwrites. */
    if (sendbuf == MPI_IN_PLACE) sendbuf = recvbuf;
    MC_RETURN(mcoll_comm_enter_on(comm, stream));
    if (ll_taken(comm, MCOLL_LL_REDUCE_SCATTER, sendbuf, recvbuf, recvcount, dtype, op, 0, stream, &rc)) return rc;
    if (mcoll_direct_reduce_scatter(comm, sendbuf, recvbuf, recvcount, dtype, op, stream, &rc)) return rc;
    return launched(mcoll_launch_reduce_scatter(mcoll_comm_dev(comm), access_of(comm), sendbuf, recvbuf, recvcount, dtype,
                                                op, stream),
                    "reduce_scatter");
}

mcoll_result mcoll_comm_run_allgather(mcoll_comm *comm, const void *sendbuf, void *recvbuf, size_t sendbytes,
                                      struct CUstream_st *stream)
{
    mcoll_result rc;
    if (!sendbytes) return MCOLL_SUCCESS;
    if (sendbuf == MPI_IN_PLACE) sendbuf = (const char *)recvbuf + (size_t)comm->team->rank * sendbytes;
    MC_RETURN(mcoll_comm_enter_on(comm, stream));
    if (ll_taken(comm, MCOLL_LL_ALLGATHER, sendbuf, recvbuf, sendbytes, MCOLL_BYTE, MCOLL_SUM, 0, stream, &rc)) return rc;
    if (mcoll_direct_allgather(comm, sendbuf, recvbuf, sendbytes, stream, &rc)) return rc;
    return launched(mcoll_launch_allgather(mcoll_comm_dev(comm), access_of(comm), sendbuf, recvbuf, sendbytes, stream),
                    "allgather");
}

/* Element counts or displacements of every rank of the team as bytes; NULL stays NULL. */
static const size_t *as_bytes(const mcoll_comm *comm, const size_t *elems, size_t size, size_t *bytes)
{
    int q;
    if (!elems) return NULL;
    for (q = 0; q < comm->team->size; q++) bytes[q] = elems[q] * size;
    return bytes;
}

mcoll_result mcoll_comm_run_allgatherv(mcoll_comm *comm, const void *sendbuf, size_t sendcount, void *recvbuf,
                                       const size_t recvcounts[], const size_t displs[], size_t size,
                                       struct CUstream_st *stream)
{
    size_t lens[MCOLL_MAX_RANKS], offs[MCOLL_MAX_RANKS];
    const int rank = comm->team->rank;
    if (sendbuf == MPI_IN_PLACE) {
        sendbuf = (const char *)recvbuf + displs[rank] * size;
        sendcount = recvcounts[rank];
    }
    MC_RETURN(mcoll_comm_enter_on(comm, stream));
    return launched(mcoll_launch_allgatherv(mcoll_comm_dev(comm), access_of(comm), sendbuf, sendcount * size, recvbuf,
                                            as_bytes(comm, recvcounts, size, lens), as_bytes(comm, displs, size, offs),
                                            stream),
                    "allgatherv");
}

mcoll_result mcoll_comm_run_alltoall(mcoll_comm *comm, const void *sendbuf, void *recvbuf, size_t count, size_t size,
                                     struct CUstream_st *stream)
{
    if (!count) return MCOLL_SUCCESS;
    if (sendbuf == MPI_IN_PLACE) sendbuf = recvbuf;
    MC_RETURN(mcoll_comm_enter_on(comm, stream));
    return launched(mcoll_launch_alltoall(mcoll_comm_dev(comm), access_of(comm), sendbuf, recvbuf, count * size, stream),
                    "alltoall");
}

mcoll_result mcoll_comm_run_alltoallv(mcoll_comm *comm, const void *sendbuf, const size_t sendcounts[],
                                      const size_t sdispls[], void *recvbuf, const size_t recvcounts[],
                                      const size_t rdispls[], size_t size, struct CUstream_st *stream)
{
    size_t slens[MCOLL_MAX_RANKS], soffs[MCOLL_MAX_RANKS], rlens[MCOLL_MAX_RANKS], roffs[MCOLL_MAX_RANKS];
    if (sendbuf == MPI_IN_PLACE) {
        sendbuf = recvbuf;
        sendcounts = recvcounts;
        sdispls = rdispls;
    }
    MC_RETURN(mcoll_comm_enter_on(comm, stream));
    return launched(mcoll_launch_alltoallv(mcoll_comm_dev(comm), access_of(comm), sendbuf,
                                           as_bytes(comm, sendcounts, size, slens), as_bytes(comm, sdispls, size, soffs),
                                           recvbuf, as_bytes(comm, recvcounts, size, rlens),
                                           as_bytes(comm, rdispls, size, roffs), stream),
                    "alltoallv");
}

mcoll_result mcoll_comm_run_gather(mcoll_comm *comm, const void *sendbuf, void *recvbuf, size_t count, size_t size,
                                   int root, struct CUstream_st *stream)
{
    if (!count) return MCOLL_SUCCESS;
    if (sendbuf == MPI_IN_PLACE) sendbuf = (const char *)recvbuf + (size_t)root * count * size;
    MC_RETURN(mcoll_comm_enter_on(comm, stream));
    return launched(mcoll_launch_gather(mcoll_comm_dev(comm), access_of(comm), sendbuf, recvbuf, count * size, root, stream),
                    "gather");
}

mcoll_result mcoll_comm_run_gatherv(mcoll_comm *comm, const void *sendbuf, size_t sendcount, void *recvbuf,
                                    const size_t recvcounts[], const size_t displs[], size_t size, int root,
                                    struct CUstream_st *stream)
{
    size_t lens[MCOLL_MAX_RANKS], offs[MCOLL_MAX_RANKS];
    if (sendbuf == MPI_IN_PLACE) {
        sendbuf = (const char *)recvbuf + displs[root] * size;
        sendcount = recvcounts[root];
    }
    MC_RETURN(mcoll_comm_enter_on(comm, stream));
    return launched(mcoll_launch_gatherv(mcoll_comm_dev(comm), access_of(comm), sendbuf, sendcount * size, recvbuf,
                                         as_bytes(comm, recvcounts, size, lens), as_bytes(comm, displs, size, offs),
                                         root, stream),
                    "gatherv");
}

mcoll_result mcoll_comm_run_scatter(mcoll_comm *comm, const void *sendbuf, void *recvbuf, size_t count, size_t size,
                                    int root, struct CUstream_st *stream)
{
    if (!count) return MCOLL_SUCCESS;
    if (recvbuf == MPI_IN_PLACE) recvbuf = (char *)sendbuf + (size_t)root * count * size;
    MC_RETURN(mcoll_comm_enter_on(comm, stream));
    return launched(mcoll_launch_scatter(mcoll_comm_dev(comm), access_of(comm), sendbuf, recvbuf, count * size, root, stream),
                    "scatter");
}

mcoll_result mcoll_comm_run_scatterv(mcoll_comm *comm, const void *sendbuf, const size_t sendcounts[],
                                     const size_t displs[], void *recvbuf, size_t recvcount, size_t size, int root,
                                     struct CUstream_st *stream)
{
    size_t lens[MCOLL_MAX_RANKS], offs[MCOLL_MAX_RANKS];
    if (recvbuf == MPI_IN_PLACE) {
        recvbuf = (char *)sendbuf + displs[root] * size;
        recvcount = sendcounts[root];
    }
    MC_RETURN(mcoll_comm_enter_on(comm, stream));
    return launched(mcoll_launch_scatterv(mcoll_comm_dev(comm), access_of(comm), sendbuf,
                                          as_bytes(comm, sendcounts, size, lens), as_bytes(comm, displs, size, offs),
                                          recvbuf, recvcount * size, root, stream),
                    "scatterv");
}

static mcoll_result run_scan(mcoll_comm *comm, const void *sendbuf, void *recvbuf, size_t count, mcoll_dtype dtype,
                             mcoll_op op, int exclusive, struct CUstream_st *stream)
{
    if (!count) return MCOLL_SUCCESS;
    if (sendbuf == MPI_IN_PLACE) sendbuf = recvbuf;
    MC_RETURN(mcoll_comm_enter_on(comm, stream));
    return launched(mcoll_launch_scan(mcoll_comm_dev(comm), access_of(comm), sendbuf, recvbuf, count, dtype, op, exclusive,
                                      stream),
                    exclusive ? "exscan" : "scan");
}

mcoll_result mcoll_comm_run_scan(mcoll_comm *comm, const void *sendbuf, void *recvbuf, size_t count, mcoll_dtype dtype,
                                 mcoll_op op, struct CUstream_st *stream)
{
    return run_scan(comm, sendbuf, recvbuf, count, dtype, op, 0, stream);
}

mcoll_result mcoll_comm_run_exscan(mcoll_comm *comm, const void *sendbuf, void *recvbuf, size_t count,
                                   mcoll_dtype dtype, mcoll_op op, struct CUstream_st *stream)
{
    return run_scan(comm, sendbuf, recvbuf, count, dtype, op, 1, stream);
}

mcoll_result mcoll_comm_run_barrier(mcoll_comm *comm, struct CUstream_st *stream)
{
    mcoll_result rc;
    MC_RETURN(mcoll_comm_enter_on(comm, stream));
    if (ll_taken(comm, MCOLL_LL_BARRIER, NULL, NULL, 0, MCOLL_BYTE, MCOLL_SUM, 0, stream, &rc)) return rc;
    return launched(mcoll_launch_barrier(mcoll_comm_dev(comm), access_of(comm), stream), "barrier");
}

mcoll_result mcoll_comm_wait(mcoll_comm *comm)
{
    const uint64_t value = mcoll_launch_word_taken();
    if (!value) return mcoll_comm_sync(comm);
    return mcoll_word_wait(&comm->word, comm->team, value);
}
