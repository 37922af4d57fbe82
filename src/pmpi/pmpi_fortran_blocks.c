/* Fortran entry points (mpif.h, `use mpi` and `use mpi_f08`; see fortran.h) of the collectives
 * with blocks per peer: allgatherv, alltoall, alltoallv, alltoallw, gather, gatherv, scatter,
 * scatterv and the neighbourhood collectives. Their INTEGER arrays are converted only where
 * INTEGER is not int; alltoallw's arrays of datatype handles always are. */
#include "pmpi.h"
#include "plugin.h"
#include "fortran.h"

#define BUF(b) mcoll_fortran_buffer(b)
#define TYPE(t) PMPI_Type_f2c(*(t))

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

static void f_mpi_allgatherv(void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,
                             MPI_Fint *recvcounts, MPI_Fint *displs, MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *ierr)
{
    call f;
    const int *rc, *rd;
    begin(&f, comm, 0, 0);
    rc = recvs(&f, recvcounts);
    rd = recvs(&f, displs);
    end(&f, ierr, f.t.failed ? MPI_ERR_NO_MEM
                             : mcoll_mpi_allgatherv(BUF(sendbuf), (int)*sendcount, TYPE(sendtype), BUF(recvbuf), rc, rd,
                                                    TYPE(recvtype), f.comm));
}

static void f_mpi_alltoall(void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcount,
                           MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *ierr)
{
    mcoll_fortran_init();
    *ierr = (MPI_Fint)mcoll_mpi_alltoall(BUF(sendbuf), (int)*sendcount, TYPE(sendtype), BUF(recvbuf), (int)*recvcount,
                                         TYPE(recvtype), PMPI_Comm_f2c(*comm));
}

static void f_mpi_alltoallv(void *sendbuf, MPI_Fint *sendcounts, MPI_Fint *sdispls, MPI_Fint *sendtype, void *recvbuf,
                            MPI_Fint *recvcounts, MPI_Fint *rdispls, MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *ierr)
{
    call f;
    const int *sc, *sd, *rc, *rd;
    begin(&f, comm, 0, 0);
    sc = sends(&f, sendcounts);
    sd = sends(&f, sdispls);
    rc = recvs(&f, recvcounts);
    rd = recvs(&f, rdispls);
    end(&f, ierr, f.t.failed ? MPI_ERR_NO_MEM
                             : mcoll_mpi_alltoallv(BUF(sendbuf), sc, sd, TYPE(sendtype), BUF(recvbuf), rc, rd,
                                                   TYPE(recvtype), f.comm));
}

static void f_mpi_alltoallw(void *sendbuf, MPI_Fint *sendcounts, MPI_Fint *sdispls, MPI_Fint *sendtypes, void *recvbuf,
                            MPI_Fint *recvcounts, MPI_Fint *rdispls, MPI_Fint *recvtypes, MPI_Fint *comm,
                            MPI_Fint *ierr)
{
    call f;
    const int *sc, *sd, *rc, *rd;
    const MPI_Datatype *st, *rt;
    void *s = BUF(sendbuf);
    begin(&f, comm, 0, 1);
    sc = sends(&f, sendcounts);
    sd = sends(&f, sdispls);
    st = s == MPI_IN_PLACE ? NULL : mcoll_fortran_types(&f.t, sendtypes, f.nsend); /* ignored in place */
    rc = recvs(&f, recvcounts);
    rd = recvs(&f, rdispls);
    rt = mcoll_fortran_types(&f.t, recvtypes, f.nrecv);
    end(&f, ierr, f.t.failed ? MPI_ERR_NO_MEM
                             : mcoll_mpi_alltoallw(s, sc, sd, st, BUF(recvbuf), rc, rd, rt, f.comm));
}

static void f_mpi_gather(void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcount,
                         MPI_Fint *recvtype, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr)
{
    mcoll_fortran_init();
    *ierr = (MPI_Fint)mcoll_mpi_gather(BUF(sendbuf), (int)*sendcount, TYPE(sendtype), BUF(recvbuf), (int)*recvcount,
                                       TYPE(recvtype), (int)*root, PMPI_Comm_f2c(*comm));
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
                             : mcoll_mpi_gatherv(BUF(sendbuf), (int)*sendcount, TYPE(sendtype), BUF(recvbuf), rc, rd,
                                                 TYPE(recvtype), (int)*root, f.comm));
}

static void f_mpi_scatter(void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcount,
                          MPI_Fint *recvtype, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr)
{
    mcoll_fortran_init();
    *ierr = (MPI_Fint)mcoll_mpi_scatter(BUF(sendbuf), (int)*sendcount, TYPE(sendtype), BUF(recvbuf), (int)*recvcount,
                                        TYPE(recvtype), (int)*root, PMPI_Comm_f2c(*comm));
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
                             : mcoll_mpi_scatterv(BUF(sendbuf), sc, sd, TYPE(sendtype), BUF(recvbuf), (int)*recvcount,
                                                  TYPE(recvtype), (int)*root, f.comm));
}

static void f_mpi_neighbor_allgather(void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,
                                     MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *ierr)
{
    mcoll_fortran_init();
    *ierr = (MPI_Fint)mcoll_mpi_neighbor_allgather(BUF(sendbuf), (int)*sendcount, TYPE(sendtype), BUF(recvbuf),
                                                   (int)*recvcount, TYPE(recvtype), PMPI_Comm_f2c(*comm));
}

static void f_mpi_neighbor_allgatherv(void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,
                                      MPI_Fint *recvcounts, MPI_Fint *displs, MPI_Fint *recvtype, MPI_Fint *comm,
                                      MPI_Fint *ierr)
{
    call f;
    const int *rc, *rd;
    begin(&f, comm, 1, 0);
    rc = recvs(&f, recvcounts);
    rd = recvs(&f, displs);
    end(&f, ierr, f.t.failed ? MPI_ERR_NO_MEM
                             : mcoll_mpi_neighbor_allgatherv(BUF(sendbuf), (int)*sendcount, TYPE(sendtype),
                                                             BUF(recvbuf), rc, rd, TYPE(recvtype), f.comm));
}

static void f_mpi_neighbor_alltoall(void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,
                                    MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *ierr)
{
    mcoll_fortran_init();
    *ierr = (MPI_Fint)mcoll_mpi_neighbor_alltoall(BUF(sendbuf), (int)*sendcount, TYPE(sendtype), BUF(recvbuf),
                                                  (int)*recvcount, TYPE(recvtype), PMPI_Comm_f2c(*comm));
}

static void f_mpi_neighbor_alltoallv(void *sendbuf, MPI_Fint *sendcounts, MPI_Fint *sdispls, MPI_Fint *sendtype,
                                     void *recvbuf, MPI_Fint *recvcounts, MPI_Fint *rdispls, MPI_Fint *recvtype,
                                     MPI_Fint *comm, MPI_Fint *ierr)
{
    call f;
    const int *sc, *sd, *rc, *rd;
    begin(&f, comm, 1, 0);
    sc = sends(&f, sendcounts);
    sd = sends(&f, sdispls);
    rc = recvs(&f, recvcounts);
    rd = recvs(&f, rdispls);
    end(&f, ierr, f.t.failed ? MPI_ERR_NO_MEM
                             : mcoll_mpi_neighbor_alltoallv(BUF(sendbuf), sc, sd, TYPE(sendtype), BUF(recvbuf), rc, rd,
                                                            TYPE(recvtype), f.comm));
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
                             : mcoll_mpi_neighbor_alltoallw(BUF(sendbuf), sc, sdispls, st, BUF(recvbuf), rc, rdispls,
                                                            rt, f.comm));
}

FORTRAN_ENTRY(mpi_allgatherv, MPI_ALLGATHERV,
              (void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcounts,
               MPI_Fint *displs, MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *ierr),
              (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, ierr))
FORTRAN_ENTRY(mpi_alltoall, MPI_ALLTOALL,
              (void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcount,
               MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *ierr),
              (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, ierr))
FORTRAN_ENTRY(mpi_alltoallv, MPI_ALLTOALLV,
              (void *sendbuf, MPI_Fint *sendcounts, MPI_Fint *sdispls, MPI_Fint *sendtype, void *recvbuf,
               MPI_Fint *recvcounts, MPI_Fint *rdispls, MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *ierr),
              (sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, ierr))
FORTRAN_ENTRY(mpi_alltoallw, MPI_ALLTOALLW,
              (void *sendbuf, MPI_Fint *sendcounts, MPI_Fint *sdispls, MPI_Fint *sendtypes, void *recvbuf,
               MPI_Fint *recvcounts, MPI_Fint *rdispls, MPI_Fint *recvtypes, MPI_Fint *comm, MPI_Fint *ierr),
              (sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm, ierr))
FORTRAN_ENTRY(mpi_gather, MPI_GATHER,
              (void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcount,
               MPI_Fint *recvtype, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr),
              (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, ierr))
FORTRAN_ENTRY(mpi_gatherv, MPI_GATHERV,
              (void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcounts,
               MPI_Fint *displs, MPI_Fint *recvtype, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr),
              (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm, ierr))
FORTRAN_ENTRY(mpi_scatter, MPI_SCATTER,
              (void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcount,
               MPI_Fint *recvtype, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr),
              (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, ierr))
FORTRAN_ENTRY(mpi_scatterv, MPI_SCATTERV,
              (void *sendbuf, MPI_Fint *sendcounts, MPI_Fint *displs, MPI_Fint *sendtype, void *recvbuf,
               MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr),
              (sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm, ierr))
FORTRAN_ENTRY(mpi_neighbor_allgather, MPI_NEIGHBOR_ALLGATHER,
              (void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcount,
               MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *ierr),
              (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, ierr))
FORTRAN_ENTRY(mpi_neighbor_allgatherv, MPI_NEIGHBOR_ALLGATHERV,
              (void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcounts,
               MPI_Fint *displs, MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *ierr),
              (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, ierr))
FORTRAN_ENTRY(mpi_neighbor_alltoall, MPI_NEIGHBOR_ALLTOALL,
              (void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcount,
               MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *ierr),
              (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, ierr))
FORTRAN_ENTRY(mpi_neighbor_alltoallv, MPI_NEIGHBOR_ALLTOALLV,
              (void *sendbuf, MPI_Fint *sendcounts, MPI_Fint *sdispls, MPI_Fint *sendtype, void *recvbuf,
               MPI_Fint *recvcounts, MPI_Fint *rdispls, MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *ierr),
              (sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, ierr))
FORTRAN_ENTRY(mpi_neighbor_alltoallw, MPI_NEIGHBOR_ALLTOALLW,
              (void *sendbuf, MPI_Fint *sendcounts, MPI_Aint *sdispls, MPI_Fint *sendtypes, void *recvbuf,
               MPI_Fint *recvcounts, MPI_Aint *rdispls, MPI_Fint *recvtypes, MPI_Fint *comm, MPI_Fint *ierr),
              (sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm, ierr))
