/* The native collectives once their arguments are known to be good (see comm_internal.h):
 * enter the team's context and launch. Nothing here checks a datatype, an op or a root. */
#include "checks.h"
#include "comm_internal.h"

static mcoll_access access_of(const mcoll_comm *comm)
{
    return comm->team->engine == MCOLL_ENGINE_NVLS ? MCOLL_ACCESS_MULTIMEM : MCOLL_ACCESS_UNICAST;
}

/* Kernels launch into the current context. A team created on a thread without one runs in
 * the primary context it made current; calls from threads without it get it too. Otherwise the
 * caller's current context is the team's device's, and is left alone. */
static mcoll_result enter(mcoll_comm *comm)
{
    CUcontext current = NULL;
    if (mcoll_watch_aborted(&comm->team->watch)) return MCOLL_ERR_ABORTED;
    if (comm->team->made_current &&
        (mcoll_cu.cuCtxGetCurrent(&current) != CUDA_SUCCESS || current != comm->team->context))
        CU_RETURN(cuCtxSetCurrent(comm->team->context));
    return MCOLL_SUCCESS;
}

static mcoll_result launched(int status, const char *what)
{
    if (status == MCOLL_LAUNCH_OK) return MCOLL_SUCCESS;
    if (status == MCOLL_LAUNCH_UNSUPPORTED) return MCOLL_ERR_UNSUPPORTED;
    MCOLL_WARN("%s kernel launch failed: %s", what, mcoll_launch_error());
    return MCOLL_ERR_CUDA;
}

mcoll_result mcoll_comm_run_allreduce(mcoll_comm *comm, const void *sendbuf, void *recvbuf, size_t count,
                                      mcoll_dtype dtype, mcoll_op op, struct CUstream_st *stream)
{
    if (!count) return MCOLL_SUCCESS;
    if (sendbuf == MPI_IN_PLACE) sendbuf = recvbuf;
    MC_RETURN(enter(comm));
    return launched(mcoll_launch_allreduce(&comm->team->dev, access_of(comm), sendbuf, recvbuf, count, dtype, op, stream),
                    "allreduce");
}

mcoll_result mcoll_comm_run_reduce(mcoll_comm *comm, const void *sendbuf, void *recvbuf, size_t count,
                                   mcoll_dtype dtype, mcoll_op op, int root, struct CUstream_st *stream)
{
    if (!count) return MCOLL_SUCCESS;
    if (sendbuf == MPI_IN_PLACE) sendbuf = recvbuf;
    MC_RETURN(enter(comm));
    return launched(mcoll_launch_reduce(&comm->team->dev, access_of(comm), sendbuf, recvbuf, count, dtype, op, root,
                                        stream),
                    "reduce");
}

mcoll_result mcoll_comm_run_bcast(mcoll_comm *comm, void *buf, size_t bytes, int root, struct CUstream_st *stream)
{
    if (!bytes) return MCOLL_SUCCESS;
    MC_RETURN(enter(comm));
    return launched(mcoll_launch_bcast(&comm->team->dev, access_of(comm), buf, bytes, root, stream), "bcast");
}

mcoll_result mcoll_comm_run_reduce_scatter(mcoll_comm *comm, const void *sendbuf, void *recvbuf, size_t recvcount,
                                           mcoll_dtype dtype, mcoll_op op, struct CUstream_st *stream)
{
    if (!recvcount) return MCOLL_SUCCESS;
    /* In place: the input is the whole of recvbuf; this rank's block is written at its start,
     * each element after the kernel has copied in the inputs it overwrites. */
    if (sendbuf == MPI_IN_PLACE) sendbuf = recvbuf;
    MC_RETURN(enter(comm));
    return launched(mcoll_launch_reduce_scatter(&comm->team->dev, access_of(comm), sendbuf, recvbuf, recvcount, dtype,
                                                op, stream),
                    "reduce_scatter");
}

mcoll_result mcoll_comm_run_allgather(mcoll_comm *comm, const void *sendbuf, void *recvbuf, size_t sendbytes,
                                      struct CUstream_st *stream)
{
    if (!sendbytes) return MCOLL_SUCCESS;
    if (sendbuf == MPI_IN_PLACE) sendbuf = (const char *)recvbuf + (size_t)comm->team->rank * sendbytes;
    MC_RETURN(enter(comm));
    return launched(mcoll_launch_allgather(&comm->team->dev, access_of(comm), sendbuf, recvbuf, sendbytes, stream),
                    "allgather");
}

mcoll_result mcoll_comm_run_barrier(mcoll_comm *comm, struct CUstream_st *stream)
{
    MC_RETURN(enter(comm));
    return launched(mcoll_launch_barrier(&comm->team->dev, access_of(comm), stream), "barrier");
}

/* For the MPI layer: the team's own stream and its synchronisation. */
struct CUstream_st *mcoll_comm_stream(mcoll_comm *comm) { return (struct CUstream_st *)comm->team->stream; }

mcoll_result mcoll_comm_sync(mcoll_comm *comm)
{
    CUresult rc;
    mcoll_watch_call_begin(&comm->team->watch);
    rc = mcoll_cu.cuStreamSynchronize(comm->team->stream);
    mcoll_watch_call_end(&comm->team->watch);
    if (mcoll_watch_aborted(&comm->team->watch)) return MCOLL_ERR_ABORTED;
    if (rc != CUDA_SUCCESS) {
        MCOLL_WARN("cuStreamSynchronize failed: %s", mcoll_cu_errname(rc));
        return MCOLL_ERR_CUDA;
    }
    return MCOLL_SUCCESS;
}
