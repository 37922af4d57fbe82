/* The native collectives of include/mcoll.h: check the user's arguments, decode the MPI
 * datatype and op to the kernels' types (src/core/dtype.h), then run (run.c). The PMPI
 * plug-in does not come through here: it has decided its calls already. */
#include <stdint.h>
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

/* ---- variable counts, gathers, scatters, all-to-all ------------------------------------ */

/* Bytes of one element of a contiguous datatype. */
static mcoll_result element_size(MPI_Datatype datatype, size_t *size)
{
    return contiguous_bytes(datatype, 1, size);
}

/* count elements of `size` bytes from element `displ` on fit in memory. */
static int fits(size_t count, size_t displ, size_t size)
{
    if (!size) return 1; /* a datatype of no bytes moves nothing */
    return count <= SIZE_MAX / size && displ <= SIZE_MAX / size && count * size <= SIZE_MAX - displ * size;
}

/* `blocks` blocks of count elements of `size` bytes do not fit in memory. */
static int too_many(size_t count, size_t size, int blocks)
{
    return size && count > SIZE_MAX / size / (size_t)blocks;
}

/* Counts (and displacements, when not NULL) of every rank fit; *any: some count is nonzero. */
static mcoll_result check_blocks(const mcoll_comm *comm, const size_t *counts, const size_t *displs, size_t size,
                                 int *any)
{
    int q;
    *any = 0;
    if (!counts || !displs) return MCOLL_ERR_INVALID_ARG;
    for (q = 0; q < comm->team->size; q++) {
        if (!fits(counts[q], displs[q], size)) return MCOLL_ERR_INVALID_ARG;
        if (counts[q]) *any = 1;
    }
    return MCOLL_SUCCESS;
}

static int valid_root(const mcoll_comm *comm, int root) { return root >= 0 && root < comm->team->size; }

/* A side with a block per rank (the receive side of allgatherv, gatherv and alltoallv, the send
 * side of scatterv and alltoallv): counts and displacements that fit, a buffer when some count
 * is not 0, and with check_own this rank's own block of `own` elements, the count on the other
 * side of the call. */
static mcoll_result block_side(const mcoll_comm *comm, const size_t *counts, const size_t *displs, size_t size,
                               const void *buf, int check_own, size_t own)
{
    int any;
    MC_RETURN(check_blocks(comm, counts, displs, size, &any));
    if ((any && !buf) || (check_own && own != counts[comm->team->rank])) return MCOLL_ERR_INVALID_ARG;
    return MCOLL_SUCCESS;
}

/* A single block of `count` elements in `buf`, or MPI_IN_PLACE where the call allows it. */
static mcoll_result one_block(const void *buf, size_t count, size_t size, int in_place_ok)
{
    if (buf == MPI_IN_PLACE) return in_place_ok ? MCOLL_SUCCESS : MCOLL_ERR_INVALID_ARG;
    return too_many(count, size, 1) || (count && !buf) ? MCOLL_ERR_INVALID_ARG : MCOLL_SUCCESS;
}

mcoll_result mcoll_allgatherv(const void *sendbuf, size_t sendcount, void *recvbuf, const size_t recvcounts[],
                              const size_t displs[], MPI_Datatype datatype, mcoll_comm *comm,
                              struct CUstream_st *stream)
{
    size_t size;
    if (!comm) return MCOLL_ERR_INVALID_ARG;
    MC_RETURN(element_size(datatype, &size));
    MC_RETURN(one_block(sendbuf, sendcount, size, 1));
    MC_RETURN(block_side(comm, recvcounts, displs, size, recvbuf, sendbuf != MPI_IN_PLACE, sendcount));
    return mcoll_comm_run_allgatherv(comm, sendbuf, sendcount, recvbuf, recvcounts, displs, size, stream);
}

mcoll_result mcoll_alltoall(const void *sendbuf, void *recvbuf, size_t count, MPI_Datatype datatype,
                            mcoll_comm *comm, struct CUstream_st *stream)
{
    size_t size;
    if (!comm) return MCOLL_ERR_INVALID_ARG;
    MC_RETURN(element_size(datatype, &size));
    if (too_many(count, size, comm->team->size)) return MCOLL_ERR_INVALID_ARG;
    if (count && (!sendbuf || !recvbuf)) return MCOLL_ERR_INVALID_ARG;
    return mcoll_comm_run_alltoall(comm, sendbuf, recvbuf, count, size, stream);
}

mcoll_result mcoll_alltoallv(const void *sendbuf, const size_t sendcounts[], const size_t sdispls[], void *recvbuf,
                             const size_t recvcounts[], const size_t rdispls[], MPI_Datatype datatype,
                             mcoll_comm *comm, struct CUstream_st *stream)
{
    size_t size;
    int in_place = sendbuf == MPI_IN_PLACE;
    if (!comm) return MCOLL_ERR_INVALID_ARG;
    MC_RETURN(element_size(datatype, &size));
    if (!in_place) MC_RETURN(block_side(comm, sendcounts, sdispls, size, sendbuf, 0, 0));
    MC_RETURN(block_side(comm, recvcounts, rdispls, size, recvbuf, !in_place,
                         in_place ? 0 : sendcounts[comm->team->rank]));
    return mcoll_comm_run_alltoallv(comm, sendbuf, sendcounts, sdispls, recvbuf, recvcounts, rdispls, size, stream);
}

mcoll_result mcoll_gather(const void *sendbuf, void *recvbuf, size_t count, MPI_Datatype datatype, int root,
                          mcoll_comm *comm, struct CUstream_st *stream)
{
    size_t size;
    int is_root;
    if (!comm || !valid_root(comm, root)) return MCOLL_ERR_INVALID_ARG;
    is_root = comm->team->rank == root;
    MC_RETURN(element_size(datatype, &size));
    if (too_many(count, size, comm->team->size)) return MCOLL_ERR_INVALID_ARG;
    if (count && (!sendbuf || (is_root && !recvbuf))) return MCOLL_ERR_INVALID_ARG;
    if (sendbuf == MPI_IN_PLACE && !is_root) return MCOLL_ERR_INVALID_ARG;
    return mcoll_comm_run_gather(comm, sendbuf, recvbuf, count, size, root, stream);
}

mcoll_result mcoll_gatherv(const void *sendbuf, size_t sendcount, void *recvbuf, const size_t recvcounts[],
                           const size_t displs[], MPI_Datatype datatype, int root, mcoll_comm *comm,
                           struct CUstream_st *stream)
{
    size_t size;
    int is_root;
    if (!comm || !valid_root(comm, root)) return MCOLL_ERR_INVALID_ARG;
    is_root = comm->team->rank == root;
    MC_RETURN(element_size(datatype, &size));
    MC_RETURN(one_block(sendbuf, sendcount, size, is_root));
    if (is_root) MC_RETURN(block_side(comm, recvcounts, displs, size, recvbuf, sendbuf != MPI_IN_PLACE, sendcount));
    return mcoll_comm_run_gatherv(comm, sendbuf, sendcount, recvbuf, recvcounts, displs, size, root, stream);
}

mcoll_result mcoll_scatter(const void *sendbuf, void *recvbuf, size_t count, MPI_Datatype datatype, int root,
                           mcoll_comm *comm, struct CUstream_st *stream)
{
    size_t size;
    int is_root;
    if (!comm || !valid_root(comm, root)) return MCOLL_ERR_INVALID_ARG;
    is_root = comm->team->rank == root;
    MC_RETURN(element_size(datatype, &size));
    if (too_many(count, size, comm->team->size)) return MCOLL_ERR_INVALID_ARG;
    if (count && (!recvbuf || (is_root && !sendbuf))) return MCOLL_ERR_INVALID_ARG;
    if (recvbuf == MPI_IN_PLACE && !is_root) return MCOLL_ERR_INVALID_ARG;
    return mcoll_comm_run_scatter(comm, sendbuf, recvbuf, count, size, root, stream);
}

mcoll_result mcoll_scatterv(const void *sendbuf, const size_t sendcounts[], const size_t displs[], void *recvbuf,
                            size_t recvcount, MPI_Datatype datatype, int root, mcoll_comm *comm,
                            struct CUstream_st *stream)
{
    size_t size;
    int is_root;
    if (!comm || !valid_root(comm, root)) return MCOLL_ERR_INVALID_ARG;
    is_root = comm->team->rank == root;
    MC_RETURN(element_size(datatype, &size));
    MC_RETURN(one_block(recvbuf, recvcount, size, is_root));
    if (is_root) MC_RETURN(block_side(comm, sendcounts, displs, size, sendbuf, recvbuf != MPI_IN_PLACE, recvcount));
    return mcoll_comm_run_scatterv(comm, sendbuf, sendcounts, displs, recvbuf, recvcount, size, root, stream);
}

/* ---- prefix reductions ------------------------------------------------------------------ */

mcoll_result mcoll_scan(const void *sendbuf, void *recvbuf, size_t count, MPI_Datatype datatype, MPI_Op op,
                        mcoll_comm *comm, struct CUstream_st *stream)
{
    mcoll_dtype dt;
    mcoll_op mop;
    if (!comm || (count && (!recvbuf || !sendbuf))) return MCOLL_ERR_INVALID_ARG;
    MC_RETURN(reduction_types(datatype, op, &dt, &mop));
    return mcoll_comm_run_scan(comm, sendbuf, recvbuf, count, dt, mop, stream);
}

mcoll_result mcoll_exscan(const void *sendbuf, void *recvbuf, size_t count, MPI_Datatype datatype, MPI_Op op,
                          mcoll_comm *comm, struct CUstream_st *stream)
{
    mcoll_dtype dt;
    mcoll_op mop;
    if (!comm || (count && (!recvbuf || !sendbuf))) return MCOLL_ERR_INVALID_ARG;
    MC_RETURN(reduction_types(datatype, op, &dt, &mop));
    return mcoll_comm_run_exscan(comm, sendbuf, recvbuf, count, dt, mop, stream);
}

mcoll_result mcoll_barrier(mcoll_comm *comm, struct CUstream_st *stream)
{
    if (!comm) return MCOLL_ERR_INVALID_ARG;
    return mcoll_comm_run_barrier(comm, stream);
}
