/* Fortran entry points (mpif.h, `use mpi` and `use mpi_f08`; see fortran.h) of MPI_Init,
 * MPI_Init_thread, MPI_Finalize and the collectives without blocks per peer (allgather and the
 * others with blocks are in pmpi_fortran_blocks.c). Also what both files share: the sentinels and INTEGER arrays.
 *
 * The sentinels are the addresses of common blocks (mpi_fortran_in_place_, ...) that the
 * Fortran compiler references; they are looked up in the process's global scope, which gives
 * the definition every Fortran unit links to (a program using mpi_f08 holds its own copy, which
 * is the one found). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include "pmpi.h"
#include "plugin.h"
#include "fortran.h"
#include "validate.h"

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

void *mcoll_fortran_buffer(void *buf)
{
    int i;
    for (i = 0; i < SPELLINGS; i++) {
        if (buf && buf == in_place_addr[i]) return MPI_IN_PLACE;
        if (buf && buf == bottom_addr[i]) return MPI_BOTTOM;
    }
    return buf;
}

static void *keep(mcoll_fortran_temps *t, void *p)
{
    if (!p || t->n == (int)(sizeof t->owned / sizeof t->owned[0])) {
        free(p);
        t->failed = 1;
        return NULL;
    }
    return t->owned[t->n++] = p;
}

const int *mcoll_fortran_ints(mcoll_fortran_temps *t, const MPI_Fint *f, int n)
{
    int *c, i;
    /* INTEGER and int differ only with unusual compiler flags; convert when they do. */
    if (sizeof(MPI_Fint) == sizeof(int) || !f) return (const int *)f;
    c = (int *)keep(t, malloc((size_t)(n > 0 ? n : 1) * sizeof *c));
    for (i = 0; c && i < n; i++) c[i] = (int)f[i];
    return c;
}

const MPI_Datatype *mcoll_fortran_types(mcoll_fortran_temps *t, const MPI_Fint *f, int n)
{
    MPI_Datatype *c;
    int i;
    if (!f) return NULL;
    c = (MPI_Datatype *)keep(t, malloc((size_t)(n > 0 ? n : 1) * sizeof *c));
    for (i = 0; c && i < n; i++) c[i] = PMPI_Type_f2c(f[i]);
    return c;
}

void mcoll_fortran_give_request(int err, const MPI_Request *r, MPI_Fint *request, MPI_Fint *ierr)
{
    if (err == MPI_SUCCESS) *request = PMPI_Request_c2f(*r);
    *ierr = (MPI_Fint)err;
}

int mcoll_fortran_ints_kept(MPI_Fint *comm, MPI_Fint *ierr)
{
    if (sizeof(MPI_Fint) == sizeof(int)) return 1;
    *ierr = (MPI_Fint)mcoll_raise(PMPI_Comm_f2c(*comm), MPI_ERR_INTERN);
    return 0;
}

void mcoll_fortran_free(mcoll_fortran_temps *t)
{
    while (t->n > 0) free(t->owned[--t->n]);
}

void mcoll_fortran_blocks(MPI_Comm comm, int neighbor, int *nsend, int *nrecv)
{
    int inter = 0;
    *nsend = *nrecv = 0;
    if (mcoll_comm_is_null(comm)) return;
    if (neighbor) {
        mcoll_neighbor_degrees(comm, nrecv, nsend);
        return;
    }
    if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS) return;
    if (inter) PMPI_Comm_remote_size(comm, nsend);
    else PMPI_Comm_size(comm, nsend);
    *nrecv = *nsend;
}

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

/* allreduce, reduce_scatter_block, scan and exscan: (sendbuf, recvbuf, count, type, op, comm). */
typedef int (*reduction_fn)(const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm);
static void f_reduction(reduction_fn fn, void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *op,
                        MPI_Fint *comm, MPI_Fint *ierr)
{
    mcoll_fortran_init();
    *ierr = (MPI_Fint)fn(F_BUF(sendbuf), F_BUF(recvbuf), (int)*count, F_TYPE(type), PMPI_Op_f2c(*op),
                         PMPI_Comm_f2c(*comm));
}

static void f_mpi_bcast(void *buf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr)
{
    mcoll_fortran_init();
    *ierr = (MPI_Fint)mcoll_mpi_bcast(F_BUF(buf), (int)*count, F_TYPE(type), (int)*root, PMPI_Comm_f2c(*comm));
}

static void f_mpi_reduce(void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *op, MPI_Fint *root,
                         MPI_Fint *comm, MPI_Fint *ierr)
{
    mcoll_fortran_init();
    *ierr = (MPI_Fint)mcoll_mpi_reduce(F_BUF(sendbuf), F_BUF(recvbuf), (int)*count, F_TYPE(type), PMPI_Op_f2c(*op),
                                       (int)*root, PMPI_Comm_f2c(*comm));
}

static void f_mpi_reduce_scatter(void *sendbuf, void *recvbuf, MPI_Fint *recvcounts, MPI_Fint *type, MPI_Fint *op,
                                 MPI_Fint *comm, MPI_Fint *ierr)
{
    MPI_Comm c = PMPI_Comm_f2c(*comm);
    mcoll_fortran_temps t = {{0}, 0, 0};
    const int *counts;
    int size = 0;
    mcoll_fortran_init();
    /* One count per rank of the local group (the one the result is scattered over). */
    if (sizeof(MPI_Fint) != sizeof(int) && !mcoll_comm_is_null(c)) PMPI_Comm_size(c, &size);
    counts = mcoll_fortran_ints(&t, recvcounts, size);
    *ierr = (MPI_Fint)(t.failed ? MPI_ERR_NO_MEM
                                : mcoll_mpi_reduce_scatter(F_BUF(sendbuf), F_BUF(recvbuf), counts, F_TYPE(type),
                                                           PMPI_Op_f2c(*op), c));
    mcoll_fortran_free(&t);
}

static void f_mpi_barrier(MPI_Fint *comm, MPI_Fint *ierr) { *ierr = (MPI_Fint)mcoll_mpi_barrier(PMPI_Comm_f2c(*comm)); }

static void f_mpi_reduce_local(void *inbuf, void *inoutbuf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *op,
                               MPI_Fint *ierr)
{
    mcoll_fortran_init();
    *ierr = (MPI_Fint)mcoll_mpi_reduce_local(F_BUF(inbuf), F_BUF(inoutbuf), (int)*count, F_TYPE(type),
                                             PMPI_Op_f2c(*op));
}

#define REDUCTION_PARAMS \
    (void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *op, MPI_Fint *comm, MPI_Fint *ierr)
#define REDUCTION_ARGS sendbuf, recvbuf, count, type, op, comm, ierr

FORTRAN_ENTRY(mpi_init, MPI_INIT, (MPI_Fint *ierr), (ierr))
FORTRAN_ENTRY(mpi_init_thread, MPI_INIT_THREAD, (MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr),
              (required, provided, ierr))
FORTRAN_ENTRY(mpi_finalize, MPI_FINALIZE, (MPI_Fint *ierr), (ierr))
FORTRAN_CALLS(mpi_allreduce, MPI_ALLREDUCE, REDUCTION_PARAMS, f_reduction(mcoll_mpi_allreduce, REDUCTION_ARGS))
FORTRAN_ENTRY(mpi_bcast, MPI_BCAST,
              (void *buf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr),
              (buf, count, type, root, comm, ierr))
FORTRAN_ENTRY(mpi_reduce, MPI_REDUCE,
              (void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *op, MPI_Fint *root,
               MPI_Fint *comm, MPI_Fint *ierr),
              (sendbuf, recvbuf, count, type, op, root, comm, ierr))
FORTRAN_CALLS(mpi_reduce_scatter_block, MPI_REDUCE_SCATTER_BLOCK, REDUCTION_PARAMS,
              f_reduction(mcoll_mpi_reduce_scatter_block, REDUCTION_ARGS))
FORTRAN_ENTRY(mpi_reduce_scatter, MPI_REDUCE_SCATTER,
              (void *sendbuf, void *recvbuf, MPI_Fint *recvcounts, MPI_Fint *type, MPI_Fint *op, MPI_Fint *comm,
               MPI_Fint *ierr),
              (sendbuf, recvbuf, recvcounts, type, op, comm, ierr))
FORTRAN_ENTRY(mpi_barrier, MPI_BARRIER, (MPI_Fint *comm, MPI_Fint *ierr), (comm, ierr))
FORTRAN_CALLS(mpi_scan, MPI_SCAN, REDUCTION_PARAMS, f_reduction(mcoll_mpi_scan, REDUCTION_ARGS))
FORTRAN_CALLS(mpi_exscan, MPI_EXSCAN, REDUCTION_PARAMS, f_reduction(mcoll_mpi_exscan, REDUCTION_ARGS))
FORTRAN_ENTRY(mpi_reduce_local, MPI_REDUCE_LOCAL,
              (void *inbuf, void *inoutbuf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *op, MPI_Fint *ierr),
              (inbuf, inoutbuf, count, type, op, ierr))
