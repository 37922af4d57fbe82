/* Fortran entry points (mpif.h, `use mpi` and `use mpi_f08`) for the nonblocking collectives and for the
 * completion calls that drive mcoll's requests (request.h).
 *
 * Open MPI's Fortran bindings call PMPI_* directly: a Fortran MPI_WAIT would wait in PMPI_Wait
 * on an mcoll generalized request that nobody completes. So the completion calls are replaced
 * too, in the same spellings as the blocking collectives (pmpi_fortran.c): handles and
 * statuses are converted, and the C wrappers (completion.c) do the work. Indices of MPI_WAITANY,
 * MPI_TESTANY, MPI_WAITSOME and MPI_TESTSOME count from 1, as Fortran's do. The block
 * collectives and scans are in pmpi_fortran_nonblocking_blocks.c, the persistent collectives
 * and MPI_START, MPI_STARTALL, MPI_REQUEST_FREE in pmpi_fortran_persistent.c. */
#include <stdlib.h>
#include "request.h"
#include "plugin.h"
#include "fortran.h"
#include "validate.h"

#define LOCAL 16
#define F_STATUS_SIZE ((int)(sizeof(MPI_Status) / sizeof(MPI_Fint)))

/* A Fortran LOGICAL from a C truth value (1: what gfortran writes, and true to every compiler
 * that tests the low bit). */
static MPI_Fint f_logical(int c) { return c ? 1 : 0; }

static void f_mpi_iallreduce(void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *op,
                             MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr)
{
    MPI_Request r = MPI_REQUEST_NULL;
    mcoll_fortran_init();
    mcoll_fortran_give_request(mcoll_mpi_iallreduce(mcoll_fortran_buffer(sendbuf), mcoll_fortran_buffer(recvbuf), (int)*count,
                                      PMPI_Type_f2c(*type), PMPI_Op_f2c(*op), PMPI_Comm_f2c(*comm), &r),
                 &r, request, ierr);
}

static void f_mpi_ibcast(void *buf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *root, MPI_Fint *comm,
                         MPI_Fint *request, MPI_Fint *ierr)
{
    MPI_Request r = MPI_REQUEST_NULL;
    mcoll_fortran_init();
    mcoll_fortran_give_request(mcoll_mpi_ibcast(mcoll_fortran_buffer(buf), (int)*count, PMPI_Type_f2c(*type), (int)*root,
                                  PMPI_Comm_f2c(*comm), &r),
                 &r, request, ierr);
}

static void f_mpi_ireduce(void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *op,
                          MPI_Fint *root, MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr)
{
    MPI_Request r = MPI_REQUEST_NULL;
    mcoll_fortran_init();
    mcoll_fortran_give_request(mcoll_mpi_ireduce(mcoll_fortran_buffer(sendbuf), mcoll_fortran_buffer(recvbuf), (int)*count,
                                   PMPI_Type_f2c(*type), PMPI_Op_f2c(*op), (int)*root, PMPI_Comm_f2c(*comm), &r),
                 &r, request, ierr);
}

static void f_mpi_ireduce_scatter_block(void *sendbuf, void *recvbuf, MPI_Fint *recvcount, MPI_Fint *type,
                                        MPI_Fint *op, MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr)
{
    MPI_Request r = MPI_REQUEST_NULL;
    mcoll_fortran_init();
    mcoll_fortran_give_request(mcoll_mpi_ireduce_scatter_block(mcoll_fortran_buffer(sendbuf), mcoll_fortran_buffer(recvbuf),
                                                 (int)*recvcount, PMPI_Type_f2c(*type), PMPI_Op_f2c(*op),
                                                 PMPI_Comm_f2c(*comm), &r),
                 &r, request, ierr);
}

/* recvcounts is read until the call completes, so it cannot be a converted copy: INTEGER and int
 * of different sizes (unusual compiler flags) are refused. */
static void f_mpi_ireduce_scatter(void *sendbuf, void *recvbuf, MPI_Fint *recvcounts, MPI_Fint *type, MPI_Fint *op,
                                  MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr)
{
    MPI_Request r = MPI_REQUEST_NULL;
    mcoll_fortran_init();
    if (!mcoll_fortran_ints_kept(comm, ierr)) return;
    mcoll_fortran_give_request(mcoll_mpi_ireduce_scatter(mcoll_fortran_buffer(sendbuf), mcoll_fortran_buffer(recvbuf),
                                           (const int *)recvcounts, PMPI_Type_f2c(*type), PMPI_Op_f2c(*op),
                                           PMPI_Comm_f2c(*comm), &r),
                 &r, request, ierr);
}

static void f_mpi_iallgather(void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,
                             MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *request,
                             MPI_Fint *ierr)
{
    MPI_Request r = MPI_REQUEST_NULL;
    mcoll_fortran_init();
    mcoll_fortran_give_request(mcoll_mpi_iallgather(mcoll_fortran_buffer(sendbuf), (int)*sendcount, PMPI_Type_f2c(*sendtype),
                                      mcoll_fortran_buffer(recvbuf), (int)*recvcount, PMPI_Type_f2c(*recvtype),
                                      PMPI_Comm_f2c(*comm), &r),
                 &r, request, ierr);
}

static void f_mpi_ibarrier(MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr)
{
    MPI_Request r = MPI_REQUEST_NULL;
    mcoll_fortran_give_request(mcoll_mpi_ibarrier(PMPI_Comm_f2c(*comm), &r), &r, request, ierr);
}

/* ---------------------------------------------------------------------------------------------
 * Completion calls: the Fortran arrays as C ones, and back
 * ------------------------------------------------------------------------------------------- */
typedef struct {
    int n;
    MPI_Request *req;
    MPI_Status *st;       /* MPI_STATUSES_IGNORE when the Fortran side ignores them */
    int *idx;
    MPI_Request local_req[LOCAL];
    MPI_Status local_st[LOCAL];
    int local_idx[LOCAL];
    void *heap;
} arrays;

/* 0, or -1 when out of memory. */
static int arrays_open(arrays *a, int n, const MPI_Fint *requests, const MPI_Fint *statuses)
{
    int i;
    a->n = n < 0 ? 0 : n;
    a->heap = NULL;
    a->req = a->local_req;
    a->st = a->local_st;
    a->idx = a->local_idx;
    if (a->n > LOCAL) {
        a->heap = malloc((size_t)a->n * (sizeof *a->req + sizeof *a->st + sizeof *a->idx));
        if (!a->heap) return -1;
        a->st = (MPI_Status *)a->heap;
        a->req = (MPI_Request *)(a->st + a->n);
        a->idx = (int *)(a->req + a->n);
    }
    if (statuses == MPI_F_STATUSES_IGNORE) a->st = MPI_STATUSES_IGNORE;
    for (i = 0; i < a->n; i++) a->req[i] = PMPI_Request_f2c(requests[i]);
    return 0;
}

/* Handles back, and the statuses of the first `nst` entries. */
static void arrays_close(arrays *a, MPI_Fint *requests, MPI_Fint *statuses, int nst)
{
    int i;
    for (i = 0; i < a->n; i++) requests[i] = PMPI_Request_c2f(a->req[i]);
    if (a->st != MPI_STATUSES_IGNORE)
        for (i = 0; i < nst; i++) PMPI_Status_c2f(&a->st[i], statuses + (size_t)i * F_STATUS_SIZE);
    free(a->heap);
}

static void one_status(const MPI_Status *st, MPI_Fint *status)
{
    if (status != MPI_F_STATUS_IGNORE) PMPI_Status_c2f(st, status);
}

static void f_mpi_wait(MPI_Fint *request, MPI_Fint *status, MPI_Fint *ierr)
{
    MPI_Request r = PMPI_Request_f2c(*request);
    MPI_Status st;
    *ierr = (MPI_Fint)MPI_Wait(&r, &st);
    *request = PMPI_Request_c2f(r);
    one_status(&st, status);
}

static void f_mpi_test(MPI_Fint *request, MPI_Fint *flag, MPI_Fint *status, MPI_Fint *ierr)
{
    MPI_Request r = PMPI_Request_f2c(*request);
    MPI_Status st;
    int f = 0;
    *ierr = (MPI_Fint)MPI_Test(&r, &f, &st);
    *request = PMPI_Request_c2f(r);
    *flag = f_logical(f);
    if (f) one_status(&st, status);
}

static void f_mpi_request_get_status(MPI_Fint *request, MPI_Fint *flag, MPI_Fint *status, MPI_Fint *ierr)
{
    MPI_Status st;
    int f = 0;
    *ierr = (MPI_Fint)MPI_Request_get_status(PMPI_Request_f2c(*request), &f, &st);
    *flag = f_logical(f);
    if (f) one_status(&st, status);
}

static void f_mpi_waitall(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *statuses, MPI_Fint *ierr)
{
    arrays a;
    if (arrays_open(&a, (int)*count, requests, statuses)) {
        *ierr = MPI_ERR_NO_MEM;
        return;
    }
    *ierr = (MPI_Fint)MPI_Waitall(a.n, a.req, a.st);
    arrays_close(&a, requests, statuses, a.n);
}

static void f_mpi_testall(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *flag, MPI_Fint *statuses, MPI_Fint *ierr)
{
    arrays a;
    int f = 0;
    if (arrays_open(&a, (int)*count, requests, statuses)) {
        *ierr = MPI_ERR_NO_MEM;
        return;
    }
    *ierr = (MPI_Fint)MPI_Testall(a.n, a.req, &f, a.st);
    *flag = f_logical(f);
    arrays_close(&a, requests, statuses, f ? a.n : 0);
}

static void f_any(int wait, MPI_Fint *count, MPI_Fint *requests, MPI_Fint *index, MPI_Fint *flag, MPI_Fint *status,
                  MPI_Fint *ierr)
{
    arrays a;
    MPI_Status st;
    int i = MPI_UNDEFINED, f = 1;
    if (arrays_open(&a, (int)*count, requests, MPI_F_STATUSES_IGNORE)) {
        *ierr = MPI_ERR_NO_MEM;
        return;
    }
    *ierr = (MPI_Fint)(wait ? MPI_Waitany(a.n, a.req, &i, &st) : MPI_Testany(a.n, a.req, &i, &f, &st));
    arrays_close(&a, requests, NULL, 0);
    *index = (MPI_Fint)(i == MPI_UNDEFINED ? MPI_UNDEFINED : i + 1);
    if (flag) *flag = f_logical(f);
    if (f && i != MPI_UNDEFINED) one_status(&st, status);
}

static void f_mpi_waitany(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *index, MPI_Fint *status, MPI_Fint *ierr)
{
    f_any(1, count, requests, index, NULL, status, ierr);
}

static void f_mpi_testany(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *index, MPI_Fint *flag, MPI_Fint *status,
                          MPI_Fint *ierr)
{
    f_any(0, count, requests, index, flag, status, ierr);
}

static void f_some(int wait, MPI_Fint *incount, MPI_Fint *requests, MPI_Fint *outcount, MPI_Fint *indices,
                   MPI_Fint *statuses, MPI_Fint *ierr)
{
    arrays a;
    int out = 0, i;
    if (arrays_open(&a, (int)*incount, requests, statuses)) {
        *ierr = MPI_ERR_NO_MEM;
        return;
    }
    *ierr = (MPI_Fint)(wait ? MPI_Waitsome(a.n, a.req, &out, a.idx, a.st) : MPI_Testsome(a.n, a.req, &out, a.idx, a.st));
    arrays_close(&a, requests, statuses, out == MPI_UNDEFINED ? 0 : out);
    *outcount = (MPI_Fint)out;
    for (i = 0; out != MPI_UNDEFINED && i < out; i++) indices[i] = (MPI_Fint)(a.idx[i] + 1);
}

static void f_mpi_waitsome(MPI_Fint *incount, MPI_Fint *requests, MPI_Fint *outcount, MPI_Fint *indices,
                           MPI_Fint *statuses, MPI_Fint *ierr)
{
    f_some(1, incount, requests, outcount, indices, statuses, ierr);
}

static void f_mpi_testsome(MPI_Fint *incount, MPI_Fint *requests, MPI_Fint *outcount, MPI_Fint *indices,
                           MPI_Fint *statuses, MPI_Fint *ierr)
{
    f_some(0, incount, requests, outcount, indices, statuses, ierr);
}

FORTRAN_ENTRY(mpi_iallreduce, MPI_IALLREDUCE,
              (void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *op, MPI_Fint *comm,
               MPI_Fint *request, MPI_Fint *ierr),
              (sendbuf, recvbuf, count, type, op, comm, request, ierr))
FORTRAN_ENTRY(mpi_ibcast, MPI_IBCAST,
              (void *buf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *request,
               MPI_Fint *ierr),
              (buf, count, type, root, comm, request, ierr))
FORTRAN_ENTRY(mpi_ireduce, MPI_IREDUCE,
              (void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *op, MPI_Fint *root,
               MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr),
              (sendbuf, recvbuf, count, type, op, root, comm, request, ierr))
FORTRAN_ENTRY(mpi_ireduce_scatter_block, MPI_IREDUCE_SCATTER_BLOCK,
              (void *sendbuf, void *recvbuf, MPI_Fint *recvcount, MPI_Fint *type, MPI_Fint *op, MPI_Fint *comm,
               MPI_Fint *request, MPI_Fint *ierr),
              (sendbuf, recvbuf, recvcount, type, op, comm, request, ierr))
FORTRAN_ENTRY(mpi_ireduce_scatter, MPI_IREDUCE_SCATTER,
              (void *sendbuf, void *recvbuf, MPI_Fint *recvcounts, MPI_Fint *type, MPI_Fint *op, MPI_Fint *comm,
               MPI_Fint *request, MPI_Fint *ierr),
              (sendbuf, recvbuf, recvcounts, type, op, comm, request, ierr))
FORTRAN_ENTRY(mpi_iallgather, MPI_IALLGATHER,
              (void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcount,
               MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr),
              (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request, ierr))
FORTRAN_ENTRY(mpi_ibarrier, MPI_IBARRIER, (MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr), (comm, request, ierr))
FORTRAN_ENTRY(mpi_wait, MPI_WAIT, (MPI_Fint *request, MPI_Fint *status, MPI_Fint *ierr), (request, status, ierr))
FORTRAN_ENTRY(mpi_test, MPI_TEST, (MPI_Fint *request, MPI_Fint *flag, MPI_Fint *status, MPI_Fint *ierr),
              (request, flag, status, ierr))
FORTRAN_ENTRY(mpi_request_get_status, MPI_REQUEST_GET_STATUS,
              (MPI_Fint *request, MPI_Fint *flag, MPI_Fint *status, MPI_Fint *ierr), (request, flag, status, ierr))
FORTRAN_ENTRY(mpi_waitall, MPI_WAITALL, (MPI_Fint *count, MPI_Fint *requests, MPI_Fint *statuses, MPI_Fint *ierr),
              (count, requests, statuses, ierr))
FORTRAN_ENTRY(mpi_testall, MPI_TESTALL,
              (MPI_Fint *count, MPI_Fint *requests, MPI_Fint *flag, MPI_Fint *statuses, MPI_Fint *ierr),
              (count, requests, flag, statuses, ierr))
FORTRAN_ENTRY(mpi_waitany, MPI_WAITANY,
              (MPI_Fint *count, MPI_Fint *requests, MPI_Fint *index, MPI_Fint *status, MPI_Fint *ierr),
              (count, requests, index, status, ierr))
FORTRAN_ENTRY(mpi_testany, MPI_TESTANY,
              (MPI_Fint *count, MPI_Fint *requests, MPI_Fint *index, MPI_Fint *flag, MPI_Fint *status, MPI_Fint *ierr),
              (count, requests, index, flag, status, ierr))
FORTRAN_ENTRY(mpi_waitsome, MPI_WAITSOME,
              (MPI_Fint *incount, MPI_Fint *requests, MPI_Fint *outcount, MPI_Fint *indices, MPI_Fint *statuses,
               MPI_Fint *ierr),
              (incount, requests, outcount, indices, statuses, ierr))
FORTRAN_ENTRY(mpi_testsome, MPI_TESTSOME,
              (MPI_Fint *incount, MPI_Fint *requests, MPI_Fint *outcount, MPI_Fint *indices, MPI_Fint *statuses,
               MPI_Fint *ierr),
              (incount, requests, outcount, indices, statuses, ierr))
