/* Fortran entry points (mpif.h, `use mpi` and `use mpi_f08`; see fortran.h) of the nonblocking
 * collectives with a block per peer and of the nonblocking scans: MPI_IALLGATHERV,
 * MPI_IALLTOALL, MPI_IALLTOALLV, MPI_IALLTOALLW, MPI_IGATHER, MPI_IGATHERV, MPI_ISCATTER,
 * MPI_ISCATTERV, MPI_ISCAN, MPI_IEXSCAN. Counts and displacements are read until the call
 * completes, so they are passed as they are (mcoll_fortran_ints_kept). Alltoallw's datatype
 * handles are converted into arrays freed when the call returns, as Open MPI's own binding
 * does: mcoll makes the MPI's call on them before returning (alltoallw never goes to the
 * engines). */
#include "request.h"
#include "plugin.h"
#include "fortran.h"

#define F_COMM(c) PMPI_Comm_f2c(*(c))

/* The request of a C call made with a local request r. */
#define GIVE(call) mcoll_fortran_give_request((call), &r, request, ierr)

static void f_mpi_iallgatherv(void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,
                              MPI_Fint *recvcounts, MPI_Fint *displs, MPI_Fint *recvtype, MPI_Fint *comm,
                              MPI_Fint *request, MPI_Fint *ierr)
{
    MPI_Request r = MPI_REQUEST_NULL;
    mcoll_fortran_init();
    if (!mcoll_fortran_ints_kept(comm, ierr)) return;
    GIVE(mcoll_mpi_iallgatherv(F_BUF(sendbuf), (int)*sendcount, F_TYPE(sendtype), F_BUF(recvbuf),
                               (const int *)recvcounts, (const int *)displs, F_TYPE(recvtype), F_COMM(comm), &r));
}

static void f_mpi_ialltoall(void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,
                            MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr)
{
    MPI_Request r = MPI_REQUEST_NULL;
    mcoll_fortran_init();
    GIVE(mcoll_mpi_ialltoall(F_BUF(sendbuf), (int)*sendcount, F_TYPE(sendtype), F_BUF(recvbuf), (int)*recvcount,
                             F_TYPE(recvtype), F_COMM(comm), &r));
}

static void f_mpi_ialltoallv(void *sendbuf, MPI_Fint *sendcounts, MPI_Fint *sdispls, MPI_Fint *sendtype,
                             void *recvbuf, MPI_Fint *recvcounts, MPI_Fint *rdispls, MPI_Fint *recvtype,
                             MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr)
{
    MPI_Request r = MPI_REQUEST_NULL;
    mcoll_fortran_init();
    if (!mcoll_fortran_ints_kept(comm, ierr)) return;
    GIVE(mcoll_mpi_ialltoallv(F_BUF(sendbuf), (const int *)sendcounts, (const int *)sdispls, F_TYPE(sendtype),
                              F_BUF(recvbuf), (const int *)recvcounts, (const int *)rdispls, F_TYPE(recvtype),
                              F_COMM(comm), &r));
}

static void f_mpi_ialltoallw(void *sendbuf, MPI_Fint *sendcounts, MPI_Fint *sdispls, MPI_Fint *sendtypes,
                             void *recvbuf, MPI_Fint *recvcounts, MPI_Fint *rdispls, MPI_Fint *recvtypes,
                             MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr)
{
    MPI_Request r = MPI_REQUEST_NULL;
    mcoll_fortran_temps t = {{NULL}, 0, 0};
    const MPI_Datatype *st, *rt;
    void *s = F_BUF(sendbuf);
    int n, unused;
    mcoll_fortran_init();
    if (!mcoll_fortran_ints_kept(comm, ierr)) return;
    mcoll_fortran_blocks(F_COMM(comm), 0, &n, &unused);
    st = s == MPI_IN_PLACE ? NULL : mcoll_fortran_types(&t, sendtypes, n); /* ignored in place */
    rt = mcoll_fortran_types(&t, recvtypes, n);
    if (t.failed) *ierr = MPI_ERR_NO_MEM;
    else
        GIVE(mcoll_mpi_ialltoallw(s, (const int *)sendcounts, (const int *)sdispls, st, F_BUF(recvbuf),
                                  (const int *)recvcounts, (const int *)rdispls, rt, F_COMM(comm), &r));
    mcoll_fortran_free(&t);
}

/* igather, iscatter. */
typedef int (*rooted_fn)(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, int, MPI_Comm, MPI_Request *);
static void f_rooted(rooted_fn fn, void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,
                     MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *request,
                     MPI_Fint *ierr)
{
    MPI_Request r = MPI_REQUEST_NULL;
    mcoll_fortran_init();
    GIVE(fn(F_BUF(sendbuf), (int)*sendcount, F_TYPE(sendtype), F_BUF(recvbuf), (int)*recvcount, F_TYPE(recvtype),
            (int)*root, F_COMM(comm), &r));
}

static void f_mpi_igatherv(void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,
                           MPI_Fint *recvcounts, MPI_Fint *displs, MPI_Fint *recvtype, MPI_Fint *root, MPI_Fint *comm,
                           MPI_Fint *request, MPI_Fint *ierr)
{
    MPI_Request r = MPI_REQUEST_NULL;
    mcoll_fortran_init();
    if (!mcoll_fortran_ints_kept(comm, ierr)) return;
    GIVE(mcoll_mpi_igatherv(F_BUF(sendbuf), (int)*sendcount, F_TYPE(sendtype), F_BUF(recvbuf),
                            (const int *)recvcounts, (const int *)displs, F_TYPE(recvtype), (int)*root, F_COMM(comm),
                            &r));
}

static void f_mpi_iscatterv(void *sendbuf, MPI_Fint *sendcounts, MPI_Fint *displs, MPI_Fint *sendtype, void *recvbuf,
                            MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *root, MPI_Fint *comm,
                            MPI_Fint *request, MPI_Fint *ierr)
{
    MPI_Request r = MPI_REQUEST_NULL;
    mcoll_fortran_init();
    if (!mcoll_fortran_ints_kept(comm, ierr)) return;
    GIVE(mcoll_mpi_iscatterv(F_BUF(sendbuf), (const int *)sendcounts, (const int *)displs, F_TYPE(sendtype),
                             F_BUF(recvbuf), (int)*recvcount, F_TYPE(recvtype), (int)*root, F_COMM(comm), &r));
}

/* iscan, iexscan. */
typedef int (*prefix_fn)(const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm, MPI_Request *);
static void f_prefix(prefix_fn fn, void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *op,
                     MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr)
{
    MPI_Request r = MPI_REQUEST_NULL;
    mcoll_fortran_init();
    GIVE(fn(F_BUF(sendbuf), F_BUF(recvbuf), (int)*count, F_TYPE(type), PMPI_Op_f2c(*op), F_COMM(comm), &r));
}

#define ROOTED_PARAMS                                                                                      \
    (void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcount, MPI_Fint *recvtype, \
     MPI_Fint *root, MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr)
#define ROOTED_ARGS sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request, ierr
#define PREFIX_PARAMS                                                                                      \
    (void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *op, MPI_Fint *comm, MPI_Fint *request, \
     MPI_Fint *ierr)
#define PREFIX_ARGS sendbuf, recvbuf, count, type, op, comm, request, ierr

FORTRAN_ENTRY(mpi_iallgatherv, MPI_IALLGATHERV,
              (void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcounts,
               MPI_Fint *displs, MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr),
              (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, request, ierr))
FORTRAN_ENTRY(mpi_ialltoall, MPI_IALLTOALL,
              (void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcount,
               MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr),
              (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request, ierr))
FORTRAN_ENTRY(mpi_ialltoallv, MPI_IALLTOALLV,
              (void *sendbuf, MPI_Fint *sendcounts, MPI_Fint *sdispls, MPI_Fint *sendtype, void *recvbuf,
               MPI_Fint *recvcounts, MPI_Fint *rdispls, MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *request,
               MPI_Fint *ierr),
              (sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, request, ierr))
FORTRAN_ENTRY(mpi_ialltoallw, MPI_IALLTOALLW,
              (void *sendbuf, MPI_Fint *sendcounts, MPI_Fint *sdispls, MPI_Fint *sendtypes, void *recvbuf,
               MPI_Fint *recvcounts, MPI_Fint *rdispls, MPI_Fint *recvtypes, MPI_Fint *comm, MPI_Fint *request,
               MPI_Fint *ierr),
              (sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm, request, ierr))
FORTRAN_CALLS(mpi_igather, MPI_IGATHER, ROOTED_PARAMS, f_rooted(mcoll_mpi_igather, ROOTED_ARGS))
FORTRAN_CALLS(mpi_iscatter, MPI_ISCATTER, ROOTED_PARAMS, f_rooted(mcoll_mpi_iscatter, ROOTED_ARGS))
FORTRAN_ENTRY(mpi_igatherv, MPI_IGATHERV,
              (void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcounts,
               MPI_Fint *displs, MPI_Fint *recvtype, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *request,
               MPI_Fint *ierr),
              (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm, request, ierr))
FORTRAN_ENTRY(mpi_iscatterv, MPI_ISCATTERV,
              (void *sendbuf, MPI_Fint *sendcounts, MPI_Fint *displs, MPI_Fint *sendtype, void *recvbuf,
               MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *request,
               MPI_Fint *ierr),
              (sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm, request, ierr))
FORTRAN_CALLS(mpi_iscan, MPI_ISCAN, PREFIX_PARAMS, f_prefix(mcoll_mpi_iscan, PREFIX_ARGS))
FORTRAN_CALLS(mpi_iexscan, MPI_IEXSCAN, PREFIX_PARAMS, f_prefix(mcoll_mpi_iexscan, PREFIX_ARGS))
