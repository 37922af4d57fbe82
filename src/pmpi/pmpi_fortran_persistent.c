/* Fortran entry points (mpif.h, `use mpi` and `use mpi_f08`; see fortran.h) of the persistent
 * collectives, under the names the MPI declares (MPI_ALLREDUCE_INIT ... in MPI 4,
 * MPIX_ALLREDUCE_INIT ... in Open MPI 4's extension; none without either), and of MPI_START,
 * MPI_STARTALL and MPI_REQUEST_FREE, whose Open MPI bindings call PMPI_* and would start or free
 * the stand-in request of an mcoll persistent operation instead of the operation. Counts and
 * displacements are read at every start, so they are passed as they are
 * (mcoll_fortran_ints_kept). MPIX_ALLTOALLW_INIT is not intercepted: its datatype handles would
 * have to be converted into arrays that live as long as the request. */
#include <stdlib.h>
#include "request.h"
#include "plugin.h"
#include "fortran.h"
#include "persistent_names.h"

#define F_COMM(c) PMPI_Comm_f2c(*(c))
#define F_INFO(i) PMPI_Info_f2c(*(i))
#define F_OP(o) PMPI_Op_f2c(*(o))
/* The request of a C call made with a local request r. */
#define GIVE(call) mcoll_fortran_give_request((call), &r, request, ierr)

static void f_mpi_start(MPI_Fint *request, MPI_Fint *ierr)
{
    MPI_Request r = PMPI_Request_f2c(*request);
    *ierr = (MPI_Fint)MPI_Start(&r);
    *request = PMPI_Request_c2f(r);
}

static void f_mpi_startall(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *ierr)
{
    MPI_Request local[16], *r;
    int i, n = *count > 0 ? (int)*count : 0;
    r = n <= 16 ? local : (MPI_Request *)malloc((size_t)n * sizeof *r);
    if (!r) {
        *ierr = MPI_ERR_NO_MEM;
        return;
    }
    for (i = 0; i < n; i++) r[i] = PMPI_Request_f2c(requests[i]);
    *ierr = (MPI_Fint)MPI_Startall(n, r);
    for (i = 0; i < n; i++) requests[i] = PMPI_Request_c2f(r[i]);
    if (r != local) free(r);
}

static void f_mpi_request_free(MPI_Fint *request, MPI_Fint *ierr)
{
    MPI_Request r = PMPI_Request_f2c(*request);
    *ierr = (MPI_Fint)MPI_Request_free(&r);
    *request = PMPI_Request_c2f(r);
}

FORTRAN_ENTRY(mpi_start, MPI_START, (MPI_Fint *request, MPI_Fint *ierr), (request, ierr))
FORTRAN_ENTRY(mpi_startall, MPI_STARTALL, (MPI_Fint *count, MPI_Fint *requests, MPI_Fint *ierr),
              (count, requests, ierr))
FORTRAN_ENTRY(mpi_request_free, MPI_REQUEST_FREE, (MPI_Fint *request, MPI_Fint *ierr), (request, ierr))

#ifdef USER_INIT
#if MCOLL_PCOLL == 1
#define INIT_CALLS(lower, upper, params, call) FORTRAN_CALLS(mpi_##lower##_init, MPI_##upper##_INIT, params, call)
#else
#define INIT_CALLS(lower, upper, params, call) FORTRAN_CALLS(mpix_##lower##_init, MPIX_##upper##_INIT, params, call)
#endif

/* allreduce, reduce_scatter_block, scan, exscan. */
typedef int (*reduction_init_fn)(const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm, MPI_Info, MPI_Request *);
static void f_reduction(reduction_init_fn fn, void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *type,
                        MPI_Fint *op, MPI_Fint *comm, MPI_Fint *info, MPI_Fint *request, MPI_Fint *ierr)
{
    MPI_Request r = MPI_REQUEST_NULL;
    mcoll_fortran_init();
    GIVE(fn(F_BUF(sendbuf), F_BUF(recvbuf), (int)*count, F_TYPE(type), F_OP(op), F_COMM(comm), F_INFO(info), &r));
}

static void f_reduce(void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *op, MPI_Fint *root,
                     MPI_Fint *comm, MPI_Fint *info, MPI_Fint *request, MPI_Fint *ierr)
{
    MPI_Request r = MPI_REQUEST_NULL;
    mcoll_fortran_init();
    GIVE(USER_INIT(Reduce)(F_BUF(sendbuf), F_BUF(recvbuf), (int)*count, F_TYPE(type), F_OP(op), (int)*root,
                           F_COMM(comm), F_INFO(info), &r));
}

static void f_reduce_scatter(void *sendbuf, void *recvbuf, MPI_Fint *recvcounts, MPI_Fint *type, MPI_Fint *op,
                             MPI_Fint *comm, MPI_Fint *info, MPI_Fint *request, MPI_Fint *ierr)
{
    MPI_Request r = MPI_REQUEST_NULL;
    mcoll_fortran_init();
    if (!mcoll_fortran_ints_kept(comm, ierr)) return;
    GIVE(USER_INIT(Reduce_scatter)(F_BUF(sendbuf), F_BUF(recvbuf), (const int *)recvcounts, F_TYPE(type), F_OP(op),
                                   F_COMM(comm), F_INFO(info), &r));
}

static void f_bcast(void *buf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *info,
                    MPI_Fint *request, MPI_Fint *ierr)
{
    MPI_Request r = MPI_REQUEST_NULL;
    mcoll_fortran_init();
    GIVE(USER_INIT(Bcast)(F_BUF(buf), (int)*count, F_TYPE(type), (int)*root, F_COMM(comm), F_INFO(info), &r));
}

static void f_barrier(MPI_Fint *comm, MPI_Fint *info, MPI_Fint *request, MPI_Fint *ierr)
{
    MPI_Request r = MPI_REQUEST_NULL;
    GIVE(USER_INIT(Barrier)(F_COMM(comm), F_INFO(info), &r));
}

/* allgather, alltoall. */
typedef int (*fixed_init_fn)(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, MPI_Comm, MPI_Info,
                             MPI_Request *);
static void f_fixed(fixed_init_fn fn, void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,
                    MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *info, MPI_Fint *request,
                    MPI_Fint *ierr)
{
    MPI_Request r = MPI_REQUEST_NULL;
    mcoll_fortran_init();
    GIVE(fn(F_BUF(sendbuf), (int)*sendcount, F_TYPE(sendtype), F_BUF(recvbuf), (int)*recvcount, F_TYPE(recvtype),
            F_COMM(comm), F_INFO(info), &r));
}

/* gather, scatter. */
typedef int (*rooted_init_fn)(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, int, MPI_Comm, MPI_Info,
                              MPI_Request *);
static void f_rooted(rooted_init_fn fn, void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,
                     MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *info,
                     MPI_Fint *request, MPI_Fint *ierr)
{
    MPI_Request r = MPI_REQUEST_NULL;
    mcoll_fortran_init();
    GIVE(fn(F_BUF(sendbuf), (int)*sendcount, F_TYPE(sendtype), F_BUF(recvbuf), (int)*recvcount, F_TYPE(recvtype),
            (int)*root, F_COMM(comm), F_INFO(info), &r));
}

static void f_allgatherv(void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcounts,
                         MPI_Fint *displs, MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *info, MPI_Fint *request,
                         MPI_Fint *ierr)
{
    MPI_Request r = MPI_REQUEST_NULL;
    mcoll_fortran_init();
    if (!mcoll_fortran_ints_kept(comm, ierr)) return;
    GIVE(USER_INIT(Allgatherv)(F_BUF(sendbuf), (int)*sendcount, F_TYPE(sendtype), F_BUF(recvbuf),
                               (const int *)recvcounts, (const int *)displs, F_TYPE(recvtype), F_COMM(comm),
                               F_INFO(info), &r));
}

static void f_alltoallv(void *sendbuf, MPI_Fint *sendcounts, MPI_Fint *sdispls, MPI_Fint *sendtype, void *recvbuf,
                        MPI_Fint *recvcounts, MPI_Fint *rdispls, MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *info,
                        MPI_Fint *request, MPI_Fint *ierr)
{
    MPI_Request r = MPI_REQUEST_NULL;
    mcoll_fortran_init();
    if (!mcoll_fortran_ints_kept(comm, ierr)) return;
    GIVE(USER_INIT(Alltoallv)(F_BUF(sendbuf), (const int *)sendcounts, (const int *)sdispls, F_TYPE(sendtype),
                              F_BUF(recvbuf), (const int *)recvcounts, (const int *)rdispls, F_TYPE(recvtype),
                              F_COMM(comm), F_INFO(info), &r));
}

static void f_gatherv(void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcounts,
                      MPI_Fint *displs, MPI_Fint *recvtype, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *info,
                      MPI_Fint *request, MPI_Fint *ierr)
{
    MPI_Request r = MPI_REQUEST_NULL;
    mcoll_fortran_init();
    if (!mcoll_fortran_ints_kept(comm, ierr)) return;
    GIVE(USER_INIT(Gatherv)(F_BUF(sendbuf), (int)*sendcount, F_TYPE(sendtype), F_BUF(recvbuf), (const int *)recvcounts,
                            (const int *)displs, F_TYPE(recvtype), (int)*root, F_COMM(comm), F_INFO(info), &r));
}

static void f_scatterv(void *sendbuf, MPI_Fint *sendcounts, MPI_Fint *displs, MPI_Fint *sendtype, void *recvbuf,
                       MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *info,
                       MPI_Fint *request, MPI_Fint *ierr)
{
    MPI_Request r = MPI_REQUEST_NULL;
    mcoll_fortran_init();
    if (!mcoll_fortran_ints_kept(comm, ierr)) return;
    GIVE(USER_INIT(Scatterv)(F_BUF(sendbuf), (const int *)sendcounts, (const int *)displs, F_TYPE(sendtype),
                             F_BUF(recvbuf), (int)*recvcount, F_TYPE(recvtype), (int)*root, F_COMM(comm),
                             F_INFO(info), &r));
}

#define REDUCTION_PARAMS                                                                                   \
    (void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *op, MPI_Fint *comm, MPI_Fint *info, \
     MPI_Fint *request, MPI_Fint *ierr)
#define REDUCTION_ARGS sendbuf, recvbuf, count, type, op, comm, info, request, ierr
#define FIXED_PARAMS                                                                                       \
    (void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcount, MPI_Fint *recvtype, \
     MPI_Fint *comm, MPI_Fint *info, MPI_Fint *request, MPI_Fint *ierr)
#define FIXED_ARGS sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, info, request, ierr
#define ROOTED_PARAMS                                                                                      \
    (void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcount, MPI_Fint *recvtype, \
     MPI_Fint *root, MPI_Fint *comm, MPI_Fint *info, MPI_Fint *request, MPI_Fint *ierr)
#define ROOTED_ARGS sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, info, request, ierr

INIT_CALLS(allreduce, ALLREDUCE, REDUCTION_PARAMS, f_reduction(USER_INIT(Allreduce), REDUCTION_ARGS))
INIT_CALLS(reduce_scatter_block, REDUCE_SCATTER_BLOCK, REDUCTION_PARAMS,
           f_reduction(USER_INIT(Reduce_scatter_block), REDUCTION_ARGS))
INIT_CALLS(scan, SCAN, REDUCTION_PARAMS, f_reduction(USER_INIT(Scan), REDUCTION_ARGS))
INIT_CALLS(exscan, EXSCAN, REDUCTION_PARAMS, f_reduction(USER_INIT(Exscan), REDUCTION_ARGS))
INIT_CALLS(reduce, REDUCE,
           (void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *op, MPI_Fint *root, MPI_Fint *comm,
            MPI_Fint *info, MPI_Fint *request, MPI_Fint *ierr),
           f_reduce(sendbuf, recvbuf, count, type, op, root, comm, info, request, ierr))
INIT_CALLS(reduce_scatter, REDUCE_SCATTER,
           (void *sendbuf, void *recvbuf, MPI_Fint *recvcounts, MPI_Fint *type, MPI_Fint *op, MPI_Fint *comm,
            MPI_Fint *info, MPI_Fint *request, MPI_Fint *ierr),
           f_reduce_scatter(sendbuf, recvbuf, recvcounts, type, op, comm, info, request, ierr))
INIT_CALLS(bcast, BCAST,
           (void *buf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *info,
            MPI_Fint *request, MPI_Fint *ierr),
           f_bcast(buf, count, type, root, comm, info, request, ierr))
INIT_CALLS(barrier, BARRIER, (MPI_Fint *comm, MPI_Fint *info, MPI_Fint *request, MPI_Fint *ierr),
           f_barrier(comm, info, request, ierr))
INIT_CALLS(allgather, ALLGATHER, FIXED_PARAMS, f_fixed(USER_INIT(Allgather), FIXED_ARGS))
INIT_CALLS(alltoall, ALLTOALL, FIXED_PARAMS, f_fixed(USER_INIT(Alltoall), FIXED_ARGS))
INIT_CALLS(gather, GATHER, ROOTED_PARAMS, f_rooted(USER_INIT(Gather), ROOTED_ARGS))
INIT_CALLS(scatter, SCATTER, ROOTED_PARAMS, f_rooted(USER_INIT(Scatter), ROOTED_ARGS))
INIT_CALLS(allgatherv, ALLGATHERV,
           (void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcounts,
            MPI_Fint *displs, MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *info, MPI_Fint *request, MPI_Fint *ierr),
           f_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, info, request, ierr))
INIT_CALLS(alltoallv, ALLTOALLV,
           (void *sendbuf, MPI_Fint *sendcounts, MPI_Fint *sdispls, MPI_Fint *sendtype, void *recvbuf,
            MPI_Fint *recvcounts, MPI_Fint *rdispls, MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *info,
            MPI_Fint *request, MPI_Fint *ierr),
           f_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, info,
                       request, ierr))
INIT_CALLS(gatherv, GATHERV,
           (void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcounts,
            MPI_Fint *displs, MPI_Fint *recvtype, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *info, MPI_Fint *request,
            MPI_Fint *ierr),
           f_gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm, info, request,
                     ierr))
INIT_CALLS(scatterv, SCATTERV,
           (void *sendbuf, MPI_Fint *sendcounts, MPI_Fint *displs, MPI_Fint *sendtype, void *recvbuf,
            MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *info, MPI_Fint *request,
            MPI_Fint *ierr),
           f_scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm, info, request,
                      ierr))
#endif
