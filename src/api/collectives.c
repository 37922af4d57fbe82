/* The native collectives of include/mcoll.h: check the user's arguments, decode the MPI
 * datatype and op to the kernels' types (src/core/dtype.h), then run (run.c). The PMPI
 * plug-in does not come through here: it has decided its calls already. */
#include "checks.h"
#include "dtype.h"
#include "comm_internal.h"

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
    return mcoll_comm_run_allreduce(comm, sendbuf, recvbuf, count, dt, mop, stream);
}

mcoll_result mcoll_reduce(const void *sendbuf, void *recvbuf, size_t count, MPI_Datatype datatype, MPI_Op op, int root,
                          mcoll_comm *comm, struct CUstream_st *stream)
{
    mcoll_dtype dt;
    mcoll_op mop;
    if (!comm || root < 0 || root >= comm->team->size) return MCOLL_ERR_INVALID_ARG;
    if (count && (!sendbuf || (comm->team->rank == root && !recvbuf))) return MCOLL_ERR_INVALID_ARG;
    MC_RETURN(reduction_types(datatype, op, &dt, &mop));
    return mcoll_comm_run_reduce(comm, sendbuf, recvbuf, count, dt, mop, root, stream);
}

mcoll_result mcoll_bcast(void *buf, size_t count, MPI_Datatype datatype, int root, mcoll_comm *comm,
                         struct CUstream_st *stream)
{
    size_t bytes;
    if (!comm || root < 0 || root >= comm->team->size || (count && !buf)) return MCOLL_ERR_INVALID_ARG;
    MC_RETURN(contiguous_bytes(datatype, count, &bytes));
    return mcoll_comm_run_bcast(comm, buf, bytes, root, stream);
}

mcoll_result mcoll_reduce_scatter(const void *sendbuf, void *recvbuf, size_t recvcount, MPI_Datatype datatype,
                                  MPI_Op op, mcoll_comm *comm, struct CUstream_st *stream)
{
    mcoll_dtype dt;
    mcoll_op mop;
    if (!comm || (recvcount && (!sendbuf || !recvbuf))) return MCOLL_ERR_INVALID_ARG;
    MC_RETURN(reduction_types(datatype, op, &dt, &mop));
    return mcoll_comm_run_reduce_scatter(comm, sendbuf, recvbuf, recvcount, dt, mop, stream);
}

mcoll_result mcoll_allgather(const void *sendbuf, void *recvbuf, size_t sendcount, MPI_Datatype datatype,
                             mcoll_comm *comm, struct CUstream_st *stream)
{
    size_t bytes;
    if (!comm || (sendcount && (!sendbuf || !recvbuf))) return MCOLL_ERR_INVALID_ARG;
    MC_RETURN(contiguous_bytes(datatype, sendcount, &bytes));
    return mcoll_comm_run_allgather(comm, sendbuf, recvbuf, bytes, stream);
}

mcoll_result mcoll_barrier(mcoll_comm *comm, struct CUstream_st *stream)
{
    if (!comm) return MCOLL_ERR_INVALID_ARG;
    return mcoll_comm_run_barrier(comm, stream);
}
