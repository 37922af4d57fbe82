/* The native API: communicators and stream-ordered collectives. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "checks.h"
#include "config.h"
#include "dtype.h"
#include "team.h"
#include "comm_internal.h"

struct mcoll_comm {
    mcoll_team *team;
    mcoll_config config;
};

mcoll_result mcoll_comm_create(MPI_Comm comm, const mcoll_config *config, mcoll_comm **out)
{
    mcoll_comm *c;
    mcoll_result rc;
    int flag = 0;

    if (!out || comm == MPI_COMM_NULL) return MCOLL_ERR_INVALID_ARG;
    *out = NULL;
    if (PMPI_Initialized(&flag) != MPI_SUCCESS || !flag) return MCOLL_ERR_MPI;
    mcoll_driver_load();
    c = calloc(1, sizeof *c);
    if (!c) return MCOLL_ERR_NO_MEMORY;
    if (config) c->config = *config;
    else mcoll_config_init(&c->config);
    if (c->config.buffer_size < (1u << 20)) c->config.buffer_size = 1u << 20;
    if (c->config.engine == MCOLL_ENGINE_STAGED) {
        free(c);
        return MCOLL_ERR_UNSUPPORTED;
    }
    rc = mcoll_team_create(comm, &c->config, &c->team);
    if (rc != MCOLL_SUCCESS) {
        free(c);
        return rc;
    }
    *out = c;
    return MCOLL_SUCCESS;
}

mcoll_result mcoll_comm_destroy(mcoll_comm *comm)
{
    if (!comm) return MCOLL_ERR_INVALID_ARG;
    /* Nobody may still read this rank's memory when it is unmapped. A team whose peer is gone
     * skips the barrier, which would never complete. */
    if (comm->team->symm.size) CU_WARN(cuCtxSynchronize());
    if (!mcoll_watch_aborted(&comm->team->watch)) PMPI_Barrier(comm->team->comm);
    mcoll_team_destroy(comm->team);
    free(comm);
    return MCOLL_SUCCESS;
}

mcoll_result mcoll_comm_info(const mcoll_comm *comm, mcoll_comm_info_t *info)
{
    const mcoll_team *t;
    if (!comm || !info) return MCOLL_ERR_INVALID_ARG;
    t = comm->team;
    memset(info, 0, sizeof *info);
    info->engine = t->engine;
    info->team_size = t->size;
    info->rank = t->rank;
    info->device = t->device;
    info->symmetric_bytes = t->symm.size;
    info->peer_mapped_bytes = t->symm.size * (size_t)(t->size - 1);
    snprintf(info->handle_type, sizeof info->handle_type, "%s", t->handle_kind == MCOLL_HANDLE_FABRIC ? "fabric" : "posix-fd");
    snprintf(info->nvls_reason, sizeof info->nvls_reason, "%s", t->nvls_reason);
    info->gpus = t->sharing.gpus;
    info->ranks_per_gpu = t->sharing.ranks_per_gpu;
    info->gpu_sharers = t->sharing.sharers;
    info->mps = t->sharing.mps;
    return MCOLL_SUCCESS;
}

mcoll_result mcoll_comm_describe(const mcoll_comm *comm, char *buf, size_t len)
{
    mcoll_comm_info_t info;
    mcoll_result rc = mcoll_comm_info(comm, &info);
    if (rc != MCOLL_SUCCESS || !buf) return rc ? rc : MCOLL_ERR_INVALID_ARG;
    snprintf(buf, len, "engine=%s ranks=%d gpus=%d ranks/gpu=%d mps=%s device=%d symmetric=%zu MiB handles=%s multicast=%s",
             info.engine == MCOLL_ENGINE_NVLS ? "nvls" : "unicast", info.team_size, info.gpus, info.ranks_per_gpu,
             info.mps ? "on" : "off", info.device, info.symmetric_bytes >> 20, info.handle_type, info.nvls_reason);
    return MCOLL_SUCCESS;
}

/* ---- collectives ---------------------------------------------------------------------- */

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

static mcoll_result reduction_types(MPI_Datatype datatype, MPI_Op op, mcoll_dtype *dt, mcoll_op *mop)
{
    if (datatype == MPI_DATATYPE_NULL || op == MPI_OP_NULL) return MCOLL_ERR_INVALID_ARG;
    if (mcoll_dtype_from_mpi(datatype, dt) || mcoll_op_from_mpi(op, *dt, mop)) return MCOLL_ERR_UNSUPPORTED;
    return MCOLL_SUCCESS;
}

/* Bytes of `count` elements of a contiguous datatype; 0 with an error otherwise. */
static mcoll_result contiguous_bytes(MPI_Datatype datatype, size_t count, size_t *bytes)
{
    MPI_Aint lb, extent, true_lb, true_extent;
    int size;
    if (datatype == MPI_DATATYPE_NULL) return MCOLL_ERR_INVALID_ARG;
    if (PMPI_Type_size(datatype, &size) != MPI_SUCCESS || PMPI_Type_get_extent(datatype, &lb, &extent) != MPI_SUCCESS ||
        PMPI_Type_get_true_extent(datatype, &true_lb, &true_extent) != MPI_SUCCESS)
        return MCOLL_ERR_INVALID_ARG;
    if (extent != size || true_extent != size || true_lb != 0) return MCOLL_ERR_UNSUPPORTED;
    *bytes = count * (size_t)size;
    return MCOLL_SUCCESS;
}

mcoll_result mcoll_allreduce(const void *sendbuf, void *recvbuf, size_t count, MPI_Datatype datatype, MPI_Op op,
                             mcoll_comm *comm, struct CUstream_st *stream)
{
    mcoll_dtype dt;
    mcoll_op mop;
    if (!comm || (count && (!recvbuf || !sendbuf))) return MCOLL_ERR_INVALID_ARG;
    MC_RETURN(reduction_types(datatype, op, &dt, &mop));
    if (!count) return MCOLL_SUCCESS;
    if (sendbuf == MPI_IN_PLACE) sendbuf = recvbuf;
    MC_RETURN(enter(comm));
    return launched(mcoll_launch_allreduce(&comm->team->dev, access_of(comm), sendbuf, recvbuf, count, dt, mop, stream),
                    "allreduce");
}

mcoll_result mcoll_reduce(const void *sendbuf, void *recvbuf, size_t count, MPI_Datatype datatype, MPI_Op op, int root,
                          mcoll_comm *comm, struct CUstream_st *stream)
{
    mcoll_dtype dt;
    mcoll_op mop;
    if (!comm || root < 0 || root >= comm->team->size) return MCOLL_ERR_INVALID_ARG;
    if (count && (!sendbuf || (comm->team->rank == root && !recvbuf))) return MCOLL_ERR_INVALID_ARG;
    MC_RETURN(reduction_types(datatype, op, &dt, &mop));
    if (!count) return MCOLL_SUCCESS;
    if (sendbuf == MPI_IN_PLACE) sendbuf = recvbuf;
    MC_RETURN(enter(comm));
    return launched(mcoll_launch_reduce(&comm->team->dev, access_of(comm), sendbuf, recvbuf, count, dt, mop, root, stream),
                    "reduce");
}

mcoll_result mcoll_bcast(void *buf, size_t count, MPI_Datatype datatype, int root, mcoll_comm *comm,
                         struct CUstream_st *stream)
{
    size_t bytes;
    if (!comm || root < 0 || root >= comm->team->size || (count && !buf)) return MCOLL_ERR_INVALID_ARG;
    MC_RETURN(contiguous_bytes(datatype, count, &bytes));
    if (!bytes) return MCOLL_SUCCESS;
    MC_RETURN(enter(comm));
    return launched(mcoll_launch_bcast(&comm->team->dev, access_of(comm), buf, bytes, root, stream), "bcast");
}

mcoll_result mcoll_reduce_scatter(const void *sendbuf, void *recvbuf, size_t recvcount, MPI_Datatype datatype,
                                  MPI_Op op, mcoll_comm *comm, struct CUstream_st *stream)
{
    mcoll_dtype dt;
    mcoll_op mop;
    if (!comm || (recvcount && (!sendbuf || !recvbuf))) return MCOLL_ERR_INVALID_ARG;
    MC_RETURN(reduction_types(datatype, op, &dt, &mop));
    if (!recvcount) return MCOLL_SUCCESS;
    /* In place: the input is the whole of recvbuf; this rank's block is written at its start,
     * each element after the kernel has copied in the inputs it overwrites. */
    if (sendbuf == MPI_IN_PLACE) sendbuf = recvbuf;
    MC_RETURN(enter(comm));
    return launched(mcoll_launch_reduce_scatter(&comm->team->dev, access_of(comm), sendbuf, recvbuf, recvcount, dt, mop,
                                                stream),
                    "reduce_scatter");
}

mcoll_result mcoll_allgather(const void *sendbuf, void *recvbuf, size_t sendcount, MPI_Datatype datatype,
                             mcoll_comm *comm, struct CUstream_st *stream)
{
    size_t bytes;
    if (!comm || (sendcount && (!sendbuf || !recvbuf))) return MCOLL_ERR_INVALID_ARG;
    MC_RETURN(contiguous_bytes(datatype, sendcount, &bytes));
    if (!bytes) return MCOLL_SUCCESS;
    if (sendbuf == MPI_IN_PLACE) sendbuf = (const char *)recvbuf + (size_t)comm->team->rank * bytes;
    MC_RETURN(enter(comm));
    return launched(mcoll_launch_allgather(&comm->team->dev, access_of(comm), sendbuf, recvbuf, bytes, stream),
                    "allgather");
}

mcoll_result mcoll_barrier(mcoll_comm *comm, struct CUstream_st *stream)
{
    if (!comm) return MCOLL_ERR_INVALID_ARG;
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
