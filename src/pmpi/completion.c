/* The MPI completion calls, which drive mcoll's requests (request.h).
 *
 * Each first advances mcoll's operations (a cheap query each), then lets the MPI do the work
 * on the user's requests, in which every started persistent mcoll request stands replaced by
 * the generalized request of its start (the view below). A wait whose requests include an
 * mcoll operation not yet finished cannot block inside the MPI (nobody would complete it:
 * Open MPI 4 would spin in PMPI_Wait forever), so it alternates the MPI's test form with mcoll's
 * progress until that operation is done, then waits in the MPI. With no mcoll request alive,
 * every call goes straight to PMPI. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime under -std=c11 (clock.h) */
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include "async.h"
#include "clock.h"
#include "log.h"
#include "request.h"

#define LOCAL 16
#define SPINS_BEFORE_YIELD 100

/* The requests as PMPI sees them. */
typedef struct {
    int n;
    MPI_Request *user, *mpi;
    unsigned char *swapped;   /* entry i holds a persistent request's start */
    MPI_Request local[LOCAL];
    unsigned char local_swapped[LOCAL];
} view;

static int view_open(view *v, int n, MPI_Request *user)
{
    int i;
    v->n = n;
    v->user = v->mpi = user;
    v->swapped = NULL;
    for (i = 0; i < n; i++) {
        mcoll_nbop *op = mcoll_request_persistent(user[i]);
        MPI_Request start = op ? mcoll_request_active(op) : MPI_REQUEST_NULL;
        if (start == MPI_REQUEST_NULL) continue;
        if (!v->swapped) {
            if (n <= LOCAL) {
                v->mpi = v->local;
                v->swapped = v->local_swapped;
            } else {
                v->mpi = (MPI_Request *)malloc((size_t)n * (sizeof *v->mpi + 1));
                if (!v->mpi) return MPI_ERR_NO_MEM;
                v->swapped = (unsigned char *)(v->mpi + n);
            }
            memcpy(v->mpi, user, (size_t)n * sizeof *v->mpi);
            memset(v->swapped, 0, (size_t)n);
        }
        v->mpi[i] = start;
        v->swapped[i] = 1;
    }
    return MPI_SUCCESS;
}

/* Back to the user's array: the MPI's changes, except that a persistent request stays itself
 * (its start's request, once freed by the MPI, has made it inactive). */
static void view_close(view *v)
{
    int i;
    if (!v->swapped) return;
    for (i = 0; i < v->n; i++)
        if (!v->swapped[i]) v->user[i] = v->mpi[i];
    if (v->mpi != v->local) free(v->mpi);
}

static int view_pending(const view *v)
{
    int i;
    for (i = 0; i < v->n; i++)
        if (mcoll_request_pending(v->mpi[i])) return 1;
    return 0;
}

/* One completion call: which form, and its outputs. */
typedef enum { ONE, ALL, ANY, SOME } form;
typedef struct {
    form f;
    int n;
    int *flag, *index, *outcount, *indices;
    MPI_Status *status; /* statuses for ALL and SOME */
} call;

static int test_form(const call *k, MPI_Request *r, int *done)
{
    int rc, flag = 0;
    switch (k->f) {
    case ONE: rc = PMPI_Test(r, &flag, k->status); break;
    case ALL: rc = PMPI_Testall(k->n, r, &flag, k->status); break;
    case ANY: rc = PMPI_Testany(k->n, r, k->index, &flag, k->status); break;
    default:
        rc = PMPI_Testsome(k->n, r, k->outcount, k->indices, k->status);
        flag = *k->outcount != 0;
        break;
    }
    if (k->flag) *k->flag = flag;
    *done = flag;
    return rc;
}

static int wait_form(const call *k, MPI_Request *r)
{
    switch (k->f) {
    case ONE: return PMPI_Wait(r, k->status);
    case ALL: return PMPI_Waitall(k->n, r, k->status);
    case ANY: return PMPI_Waitany(k->n, r, k->index, k->status);
    default: return PMPI_Waitsome(k->n, r, k->outcount, k->indices, k->status);
    }
}

static int complete(const call *k, MPI_Request *requests, int blocking)
{
    view v;
    int rc, done = 0, spins = 0;
    const uint64_t t0 = mcoll_trace_ns();
    uint64_t t1;
    mcoll_requests_progress();
    rc = view_open(&v, k->n, requests);
    if (rc != MPI_SUCCESS) return rc;
    if (!blocking) {
        rc = test_form(k, v.mpi, &done);
    } else {
        /* Launches still queued would wait for the launcher thread to wake: make them here. */
        mcoll_async_help(NULL);
        while (view_pending(&v)) {
            rc = test_form(k, v.mpi, &done);
            if (rc != MPI_SUCCESS || done) goto out;
            if (++spins > SPINS_BEFORE_YIELD) sched_yield();
            mcoll_requests_progress();
        }
        t1 = mcoll_trace_ns();
        rc = wait_form(k, v.mpi);
        /* Polls: the work was not done when the wait began (a kernel still running, a launch
         * still queued). */
        MCOLL_TRACE("wait: %.2f us until mcoll's operations were done (%d polls), %.2f us in the MPI's wait",
                    mcoll_trace_us(t0, t1), spins, mcoll_trace_us(t1, mcoll_trace_ns()));
    }
out:
    view_close(&v);
    return rc;
}

/* The MPI reports bad arguments (NULL arrays, negative counts) itself. */
static int ours(int n, const MPI_Request *requests)
{
    return mcoll_requests_live() && n > 0 && requests;
}

int MPI_Wait(MPI_Request *request, MPI_Status *status)
{
    call k = {ONE, 1, NULL, NULL, NULL, NULL, status};
    if (!ours(1, request)) return PMPI_Wait(request, status);
    return complete(&k, request, 1);
}

int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    call k = {ONE, 1, flag, NULL, NULL, NULL, status};
    if (!ours(1, request) || !flag) return PMPI_Test(request, flag, status);
    return complete(&k, request, 0);
}

int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[])
{
    call k = {ALL, count, NULL, NULL, NULL, NULL, statuses};
    if (!ours(count, requests)) return PMPI_Waitall(count, requests, statuses);
    return complete(&k, requests, 1);
}

int MPI_Testall(int count, MPI_Request requests[], int *flag, MPI_Status statuses[])
{
    call k = {ALL, count, flag, NULL, NULL, NULL, statuses};
    if (!ours(count, requests) || !flag) return PMPI_Testall(count, requests, flag, statuses);
    return complete(&k, requests, 0);
}

int MPI_Waitany(int count, MPI_Request requests[], int *index, MPI_Status *status)
{
    call k = {ANY, count, NULL, index, NULL, NULL, status};
    if (!ours(count, requests) || !index) return PMPI_Waitany(count, requests, index, status);
    return complete(&k, requests, 1);
}

int MPI_Testany(int count, MPI_Request requests[], int *index, int *flag, MPI_Status *status)
{
    call k = {ANY, count, flag, index, NULL, NULL, status};
    if (!ours(count, requests) || !index || !flag) return PMPI_Testany(count, requests, index, flag, status);
    return complete(&k, requests, 0);
}

int MPI_Waitsome(int incount, MPI_Request requests[], int *outcount, int indices[], MPI_Status statuses[])
{
    call k = {SOME, incount, NULL, NULL, outcount, indices, statuses};
    if (!ours(incount, requests) || !outcount || !indices)
        return PMPI_Waitsome(incount, requests, outcount, indices, statuses);
    return complete(&k, requests, 1);
}

int MPI_Testsome(int incount, MPI_Request requests[], int *outcount, int indices[], MPI_Status statuses[])
{
    call k = {SOME, incount, NULL, NULL, outcount, indices, statuses};
    if (!ours(incount, requests) || !outcount || !indices)
        return PMPI_Testsome(incount, requests, outcount, indices, statuses);
    return complete(&k, requests, 0);
}

int MPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status)
{
    mcoll_nbop *op;
    MPI_Request start;
    if (!ours(1, &request)) return PMPI_Request_get_status(request, flag, status);
    mcoll_requests_progress();
    op = mcoll_request_persistent(request);
    start = op ? mcoll_request_active(op) : MPI_REQUEST_NULL;
    return PMPI_Request_get_status(start != MPI_REQUEST_NULL ? start : request, flag, status);
}
