/* Fortran entry points (mpif.h, `use mpi` and `use mpi_f08`; see fortran.h) of the collectives
 * with blocks per peer: allgather, allgatherv, alltoall, alltoallv, alltoallw, gather, gatherv,
 * scatter, scatterv and the neighbourhood collectives. C entry points of one shape share one
 * adapter. INTEGER arrays are converted only where INTEGER is not int; the w variants' arrays
 * of datatype handles always are. */
#include "pmpi.h"
#include "plugin.h"
#include "fortran.h"

/* What one call converts: its communicator, the blocks on each side where arrays need them,
 * and the arrays made. */
typedef struct {
    MPI_Comm comm;
    int nsend, nrecv;
    mcoll_fortran_temps t;
} call;

/* `handles`: the call has arrays of datatype handles, converted whatever INTEGER is. */
static void begin(call *f, const MPI_Fint *comm, int neighbor, int handles)
{
    mcoll_fortran_init();
    f->comm = PMPI_Comm_f2c(*comm);
    f->nsend = f->nrecv = 0;
    f->t.n = f->t.failed = 0;
    if (handles || sizeof(MPI_Fint) != sizeof(int)) mcoll_fortran_blocks(f->comm, neighbor, &f->nsend, &f->nrecv);
}

static void end(call *f, MPI_Fint *ierr, int rc)
{
    *ierr = (MPI_Fint)rc;
    mcoll_fortran_free(&f->t);
}

static const int *sends(call *f, const MPI_Fint *a) { return mcoll_fortran_ints(&f->t, a, f->nsend); }
static const int *recvs(call *f, const MPI_Fint *a) { return mcoll_fortran_ints(&f->t, a, f->nrecv); }

/* allgather, alltoall, neighbor_allgather, neighbor_alltoall. */
typedef int (*fixed_fn)(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, MPI_Comm);
static void f_fixed(fixed_fn fn, void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,
                    MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *ierr)
{
    mcoll_fortran_init();
    *ierr = (MPI_Fint)fn(F_BUF(sendbuf), (int)*sendcount, F_TYPE(sendtype), F_BUF(recvbuf), (int)*recvcount,
                         F_TYPE(recvtype), PMPI_Comm_f2c(*comm));
}

/* gather, scatter. */
typedef int (*rooted_fn)(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, int, MPI_Comm);
static void f_rooted(rooted_fn fn, void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,
                     MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr)
{
    mcoll_fortran_init();
    *ierr = (MPI_Fint)fn(F_BUF(sendbuf), (int)*sendcount, F_TYPE(sendtype), F_BUF(recvbuf), (int)*recvcount,
                         F_TYPE(recvtype), (int)*root, PMPI_Comm_f2c(*comm));
}

/* allgatherv, neighbor_allgatherv. */
typedef int (*gatherv_fn)(const void *, int, MPI_Datatype, void *, const int *, const int *, MPI_Datatype, MPI_Comm);
static void f_allgatherv(gatherv_fn fn, int neighbor, void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype,
                         void *recvbuf, MPI_Fint *recvcounts, MPI_Fint *displs, MPI_Fint *recvtype, MPI_Fint *comm,
                         MPI_Fint *ierr)
{
    call f;
    const int *rc, *rd;
    begin(&f, comm, neighbor, 0);
    rc = recvs(&f, recvcounts);
    rd = recvs(&f, displs);
    end(&f, ierr, f.t.failed ? MPI_ERR_NO_MEM
                             : fn(F_BUF(sendbuf), (int)*sendcount, F_TYPE(sendtype), F_BUF(recvbuf), rc, rd,
                                  F_TYPE(recvtype), f.comm));
}

/* alltoallv, neighbor_alltoallv. */
typedef int (*alltoallv_fn)(const void *, const int *, const int *, MPI_Datatype, void *, const int *, const int *,
                            MPI_Datatype, MPI_Comm);
static void f_alltoallv(alltoallv_fn fn, int neighbor, void *sendbuf, MPI_Fint *sendcounts, MPI_Fint *sdispls,
                        MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcounts, MPI_Fint *rdispls, MPI_Fint *recvtype,
                        MPI_Fint *comm, MPI_Fint *ierr)
{
    call f;
    const int *sc, *sd, *rc, *rd;
    begin(&f, comm, neighbor, 0);
    sc = sends(&f, sendcounts);
    sd = sends(&f, sdispls);
    rc = recvs(&f, recvcounts);
    rd = recvs(&f, rdispls);
    end(&f, ierr, f.t.failed ? MPI_ERR_NO_MEM
                             : fn(F_BUF(sendbuf), sc, sd, F_TYPE(sendtype), F_BUF(recvbuf), rc, rd, F_TYPE(recvtype),
                                  f.comm));
}

static void f_mpi_alltoallw(void *sendbuf, MPI_Fint *sendcounts, MPI_Fint *sdispls, MPI_Fint *sendtypes, void *recvbuf,
                            MPI_Fint *recvcounts, MPI_Fint *rdispls, MPI_Fint *recvtypes, MPI_Fint *comm,
                            MPI_Fint *ierr)
{
    call f;
    const int *sc, *sd, *rc, *rd;
    const MPI_Datatype *st, *rt;
    void *s = F_BUF(sendbuf);
    begin(&f, comm, 0, 1);
    sc = sends(&f, sendcounts);
    sd = sends(&f, sdispls);
    st = s == MPI_IN_PLACE ? NULL : mcoll_fortran_types(&f.t, sendtypes, f.nsend); /* ignored in place */
    rc = recvs(&f, recvcounts);
    rd = recvs(&f, rdispls);
    rt = mcoll_fortran_types(&f.t, recvtypes, f.nrecv);
    end(&f, ierr, f.t.failed ? MPI_ERR_NO_MEM : mcoll_mpi_alltoallw(s, sc, sd, st, F_BUF(recvbuf), rc, rd, rt, f.comm));
}

/* The displacements are INTEGER(KIND=MPI_ADDRESS_KIND): MPI_Aint, passed as they are. */
static void f_mpi_neighbor_alltoallw(void *sendbuf, MPI_Fint *sendcounts, MPI_Aint *sdispls, MPI_Fint *sendtypes,
                                     void *recvbuf, MPI_Fint *recvcounts, MPI_Aint *rdispls, MPI_Fint *recvtypes,
                                     MPI_Fint *comm, MPI_Fint *ierr)
{
    call f;
    const int *sc, *rc;
    const MPI_Datatype *st, *rt;
    begin(&f, comm, 1, 1);
    sc = sends(&f, sendcounts);
    st = mcoll_fortran_types(&f.t, sendtypes, f.nsend);
    rc = recvs(&f, recvcounts);
    rt = mcoll_fortran_types(&f.t, recvtypes, f.nrecv);
    end(&f, ierr, f.t.failed ? MPI_ERR_NO_MEM
                             : mcoll_mpi_neighbor_alltoallw(F_BUF(sendbuf), sc, sdispls, st, F_BUF(recvbuf), rc,
                                                            rdispls, rt, f.comm));
}

static void f_mpi_gatherv(void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcounts,
                          MPI_Fint *displs, MPI_Fint *recvtype, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr)
{
    call f;
    const int *rc, *rd;
    begin(&f, comm, 0, 0);
    rc = recvs(&f, recvcounts);
    rd = recvs(&f, displs);
    end(&f, ierr, f.t.failed ? MPI_ERR_NO_MEM
                             : mcoll_mpi_gatherv(F_BUF(sendbuf), (int)*sendcount, F_TYPE(sendtype), F_BUF(recvbuf), rc,
                                                 rd, F_TYPE(recvtype), (int)*root, f.comm));
}

static void f_mpi_scatterv(void *sendbuf, MPI_Fint *sendcounts, MPI_Fint *displs, MPI_Fint *sendtype, void *recvbuf,
                           MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr)
{
    call f;
    const int *sc, *sd;
    begin(&f, comm, 0, 0);
    sc = sends(&f, sendcounts);
    sd = sends(&f, displs);
    end(&f, ierr, f.t.failed ? MPI_ERR_NO_MEM
                             : mcoll_mpi_scatterv(F_BUF(sendbuf), sc, sd, F_TYPE(sendtype), F_BUF(recvbuf),
                                                  (int)*recvcount, F_TYPE(recvtype), (int)*root, f.comm));
}

#define FIXED_PARAMS                                                                                      \
    (void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcount, MPI_Fint *recvtype, \
     MPI_Fint *comm, MPI_Fint *ierr)
#define FIXED_ARGS sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, ierr
#define ROOTED_PARAMS                                                                                     \
    (void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcount, MPI_Fint *recvtype, \
     MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr)
#define ROOTED_ARGS sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, ierr
#define ALLGATHERV_PARAMS                                                                                 \
    (void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcounts, MPI_Fint *displs, \
     MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *ierr)
#define ALLGATHERV_ARGS sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, ierr
#define ALLTOALLV_PARAMS                                                                                  \
    (void *sendbuf, MPI_Fint *sendcounts, MPI_Fint *sdispls, MPI_Fint *sendtype, void *recvbuf,               \
     MPI_Fint *recvcounts, MPI_Fint *rdispls, MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *ierr)
#define ALLTOALLV_ARGS sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, ierr

FORTRAN_CALLS(mpi_allgather, MPI_ALLGATHER, FIXED_PARAMS, f_fixed(mcoll_mpi_allgather, FIXED_ARGS))
FORTRAN_CALLS(mpi_alltoall, MPI_ALLTOALL, FIXED_PARAMS, f_fixed(mcoll_mpi_alltoall, FIXED_ARGS))
FORTRAN_CALLS(mpi_neighbor_allgather, MPI_NEIGHBOR_ALLGATHER, FIXED_PARAMS,
              f_fixed(mcoll_mpi_neighbor_allgather, FIXED_ARGS))
FORTRAN_CALLS(mpi_neighbor_alltoall, MPI_NEIGHBOR_ALLTOALL, FIXED_PARAMS,
              f_fixed(mcoll_mpi_neighbor_alltoall, FIXED_ARGS))
FORTRAN_CALLS(mpi_gather, MPI_GATHER, ROOTED_PARAMS, f_rooted(mcoll_mpi_gather, ROOTED_ARGS))
FORTRAN_CALLS(mpi_scatter, MPI_SCATTER, ROOTED_PARAMS, f_rooted(mcoll_mpi_scatter, ROOTED_ARGS))
FORTRAN_CALLS(mpi_allgatherv, MPI_ALLGATHERV, ALLGATHERV_PARAMS,
              f_allgatherv(mcoll_mpi_allgatherv, 0, ALLGATHERV_ARGS))
FORTRAN_CALLS(mpi_neighbor_allgatherv, MPI_NEIGHBOR_ALLGATHERV, ALLGATHERV_PARAMS,
              f_allgatherv(mcoll_mpi_neighbor_allgatherv, 1, ALLGATHERV_ARGS))
FORTRAN_CALLS(mpi_alltoallv, MPI_ALLTOALLV, ALLTOALLV_PARAMS, f_alltoallv(mcoll_mpi_alltoallv, 0, ALLTOALLV_ARGS))
FORTRAN_CALLS(mpi_neighbor_alltoallv, MPI_NEIGHBOR_ALLTOALLV, ALLTOALLV_PARAMS,
              f_alltoallv(mcoll_mpi_neighbor_alltoallv, 1, ALLTOALLV_ARGS))
FORTRAN_ENTRY(mpi_alltoallw, MPI_ALLTOALLW,
              (void *sendbuf, MPI_Fint *sendcounts, MPI_Fint *sdispls, MPI_Fint *sendtypes, void *recvbuf,
               MPI_Fint *recvcounts, MPI_Fint *rdispls, MPI_Fint *recvtypes, MPI_Fint *comm, MPI_Fint *ierr),
              (sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm, ierr))
FORTRAN_ENTRY(mpi_neighbor_alltoallw, MPI_NEIGHBOR_ALLTOALLW,
              (void *sendbuf, MPI_Fint *sendcounts, MPI_Aint *sdispls, MPI_Fint *sendtypes, void *recvbuf,
               MPI_Fint *recvcounts, MPI_Aint *rdispls, MPI_Fint *recvtypes, MPI_Fint *comm, MPI_Fint *ierr),
              (sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm, ierr))
FORTRAN_ENTRY(mpi_gatherv, MPI_GATHERV,
              (void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcounts,
               MPI_Fint *displs, MPI_Fint *recvtype, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr),
              (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm, ierr))
FORTRAN_ENTRY(mpi_scatterv, MPI_SCATTERV,
              (void *sendbuf, MPI_Fint *sendcounts, MPI_Fint *displs, MPI_Fint *sendtype, void *recvbuf,
               MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr),
              (sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm, ierr))
