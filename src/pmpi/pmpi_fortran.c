/* Fortran entry points (mpif.h and `use mpi`) for the intercepted calls.
 *
 * Open MPI's Fortran bindings call PMPI_* directly, so the C wrappers never see Fortran calls;
 * these replace the bindings' symbols (lower case with one and two trailing underscores, plain
 * lower case, and upper case, as libmpi_mpifh exports them), convert the handles and the
 * MPI_IN_PLACE / MPI_BOTTOM sentinels, and run the same C code as the C entry points.
 * `use mpi_f08` calls other symbols (mpi_allreduce_f08_, ...) and is not intercepted.
 *
 * The sentinels are the addresses of common blocks (mpi_fortran_in_place_, ...) that the
 * Fortran compiler references; they are looked up in the process's global scope, which gives
 * the definition every Fortran unit links to. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include "pmpi.h"
#include "plugin.h"
#include "fortran.h"

#define SPELLINGS 4
static void *in_place_addr[SPELLINGS];
static void *bottom_addr[SPELLINGS];
static pthread_once_t sentinels_once = PTHREAD_ONCE_INIT;

static void find_sentinels(void)
{
    static const char *const in_place[SPELLINGS] = {"mpi_fortran_in_place_", "mpi_fortran_in_place",
                                                    "mpi_fortran_in_place__", "MPI_FORTRAN_IN_PLACE"};
    static const char *const bottom[SPELLINGS] = {"mpi_fortran_bottom_", "mpi_fortran_bottom",
                                                  "mpi_fortran_bottom__", "MPI_FORTRAN_BOTTOM"};
    int i;
    for (i = 0; i < SPELLINGS; i++) {
        in_place_addr[i] = dlsym(RTLD_DEFAULT, in_place[i]);
        bottom_addr[i] = dlsym(RTLD_DEFAULT, bottom[i]);
    }
}

void mcoll_fortran_init(void) { pthread_once(&sentinels_once, find_sentinels); }

/* A Fortran buffer argument as the C API spells it. */
static void *c_buffer(void *buf)
{
    int i;
    for (i = 0; i < SPELLINGS; i++) {
        if (buf && buf == in_place_addr[i]) return MPI_IN_PLACE;
        if (buf && buf == bottom_addr[i]) return MPI_BOTTOM;
    }
    return buf;
}

void *mcoll_fortran_buffer(void *buf) { return c_buffer(buf); }

static void f_mpi_init(MPI_Fint *ierr)
{
    int argc = 0;
    char **argv = NULL;
    *ierr = (MPI_Fint)mcoll_mpi_init(&argc, &argv);
}

static void f_mpi_init_thread(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr)
{
    int argc = 0, level = 0;
    char **argv = NULL;
    *ierr = (MPI_Fint)mcoll_mpi_init_thread(&argc, &argv, (int)*required, &level);
    *provided = (MPI_Fint)level;
}

static void f_mpi_finalize(MPI_Fint *ierr) { *ierr = (MPI_Fint)mcoll_mpi_finalize(); }

static void f_mpi_allreduce(void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *op,
                            MPI_Fint *comm, MPI_Fint *ierr)
{
    mcoll_fortran_init();
    *ierr = (MPI_Fint)mcoll_mpi_allreduce(c_buffer(sendbuf), c_buffer(recvbuf), (int)*count, PMPI_Type_f2c(*type),
                                          PMPI_Op_f2c(*op), PMPI_Comm_f2c(*comm));
}

static void f_mpi_bcast(void *buf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr)
{
    mcoll_fortran_init();
    *ierr = (MPI_Fint)mcoll_mpi_bcast(c_buffer(buf), (int)*count, PMPI_Type_f2c(*type), (int)*root, PMPI_Comm_f2c(*comm));
}

static void f_mpi_reduce(void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *op, MPI_Fint *root,
                         MPI_Fint *comm, MPI_Fint *ierr)
{
    mcoll_fortran_init();
    *ierr = (MPI_Fint)mcoll_mpi_reduce(c_buffer(sendbuf), c_buffer(recvbuf), (int)*count, PMPI_Type_f2c(*type),
                                       PMPI_Op_f2c(*op), (int)*root, PMPI_Comm_f2c(*comm));
}

static void f_mpi_reduce_scatter_block(void *sendbuf, void *recvbuf, MPI_Fint *recvcount, MPI_Fint *type,
                                       MPI_Fint *op, MPI_Fint *comm, MPI_Fint *ierr)
{
    mcoll_fortran_init();
    *ierr = (MPI_Fint)mcoll_mpi_reduce_scatter_block(c_buffer(sendbuf), c_buffer(recvbuf), (int)*recvcount,
                                                     PMPI_Type_f2c(*type), PMPI_Op_f2c(*op), PMPI_Comm_f2c(*comm));
}

static void f_mpi_reduce_scatter(void *sendbuf, void *recvbuf, MPI_Fint *recvcounts, MPI_Fint *type, MPI_Fint *op,
                                 MPI_Fint *comm, MPI_Fint *ierr)
{
    MPI_Comm c = PMPI_Comm_f2c(*comm);
    int *counts = (int *)recvcounts, size = 0, i;
    mcoll_fortran_init();
    /* INTEGER and int differ only with unusual compiler flags; convert when they do. */
    if (sizeof(MPI_Fint) != sizeof(int) && recvcounts && PMPI_Comm_size(c, &size) == MPI_SUCCESS) {
        counts = (int *)malloc((size_t)(size > 0 ? size : 1) * sizeof(int));
        if (!counts) {
            *ierr = MPI_ERR_NO_MEM;
            return;
        }
        for (i = 0; i < size; i++) counts[i] = (int)recvcounts[i];
    }
    *ierr = (MPI_Fint)mcoll_mpi_reduce_scatter(c_buffer(sendbuf), c_buffer(recvbuf), counts, PMPI_Type_f2c(*type),
                                               PMPI_Op_f2c(*op), c);
    if ((void *)counts != (void *)recvcounts) free(counts);
}

static void f_mpi_allgather(void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcount,
                            MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *ierr)
{
    mcoll_fortran_init();
    *ierr = (MPI_Fint)mcoll_mpi_allgather(c_buffer(sendbuf), (int)*sendcount, PMPI_Type_f2c(*sendtype),
                                          c_buffer(recvbuf), (int)*recvcount, PMPI_Type_f2c(*recvtype),
                                          PMPI_Comm_f2c(*comm));
}

static void f_mpi_barrier(MPI_Fint *comm, MPI_Fint *ierr) { *ierr = (MPI_Fint)mcoll_mpi_barrier(PMPI_Comm_f2c(*comm)); }

FORTRAN_ENTRY(mpi_init, MPI_INIT, (MPI_Fint *ierr), (ierr))
FORTRAN_ENTRY(mpi_init_thread, MPI_INIT_THREAD, (MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr),
              (required, provided, ierr))
FORTRAN_ENTRY(mpi_finalize, MPI_FINALIZE, (MPI_Fint *ierr), (ierr))
FORTRAN_ENTRY(mpi_allreduce, MPI_ALLREDUCE,
              (void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *op, MPI_Fint *comm, MPI_Fint *ierr),
              (sendbuf, recvbuf, count, type, op, comm, ierr))
FORTRAN_ENTRY(mpi_bcast, MPI_BCAST,
              (void *buf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr),
              (buf, count, type, root, comm, ierr))
FORTRAN_ENTRY(mpi_reduce, MPI_REDUCE,
              (void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *op, MPI_Fint *root,
               MPI_Fint *comm, MPI_Fint *ierr),
              (sendbuf, recvbuf, count, type, op, root, comm, ierr))
FORTRAN_ENTRY(mpi_reduce_scatter_block, MPI_REDUCE_SCATTER_BLOCK,
              (void *sendbuf, void *recvbuf, MPI_Fint *recvcount, MPI_Fint *type, MPI_Fint *op, MPI_Fint *comm,
               MPI_Fint *ierr),
              (sendbuf, recvbuf, recvcount, type, op, comm, ierr))
FORTRAN_ENTRY(mpi_reduce_scatter, MPI_REDUCE_SCATTER,
              (void *sendbuf, void *recvbuf, MPI_Fint *recvcounts, MPI_Fint *type, MPI_Fint *op, MPI_Fint *comm,
               MPI_Fint *ierr),
              (sendbuf, recvbuf, recvcounts, type, op, comm, ierr))
FORTRAN_ENTRY(mpi_allgather, MPI_ALLGATHER,
              (void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcount,
               MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *ierr),
              (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, ierr))
FORTRAN_ENTRY(mpi_barrier, MPI_BARRIER, (MPI_Fint *comm, MPI_Fint *ierr), (comm, ierr))
