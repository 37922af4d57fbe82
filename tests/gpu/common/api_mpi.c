/* MPI_* calls on device buffers (through mcoll's plug-in) as a coll_api; see api.h.
 * MPI semantics: the result is in recvbuf when the call returns, so nothing here synchronizes
 * the GPU; the checks read the buffers right after the call. Every call of coll_kind has an MPI
 * form, blocking and nonblocking (MPI_I* completed at once by MPI_Wait); MPI counts are ints,
 * so the per-rank arrays are converted. */
#include <limits.h>
#include <stdio.h>
#include "api.h"
#include "report.h"

/* Counts and displacements are per rank of a communicator of at most this many ranks. */
#define MPI_ARRAY_MAX 64

static const char *mpi_function(coll_kind kind)
{
    switch (kind) {
    case COLL_ALLREDUCE: return "MPI_Allreduce";
    case COLL_REDUCE: return "MPI_Reduce";
    case COLL_BCAST: return "MPI_Bcast";
    case COLL_REDUCE_SCATTER: return "MPI_Reduce_scatter_block";
    case COLL_ALLGATHER: return "MPI_Allgather";
    case COLL_ALLGATHERV: return "MPI_Allgatherv";
    case COLL_ALLTOALL: return "MPI_Alltoall";
    case COLL_ALLTOALLV: return "MPI_Alltoallv";
    case COLL_GATHER: return "MPI_Gather";
    case COLL_GATHERV: return "MPI_Gatherv";
    case COLL_SCATTER: return "MPI_Scatter";
    case COLL_SCATTERV: return "MPI_Scatterv";
    case COLL_SCAN: return "MPI_Scan";
    case COLL_EXSCAN: return "MPI_Exscan";
    }
    return "?";
}

/* The int form of a per-rank array; NULL stays NULL (MPI ignores the argument there). */
static const int *to_int(const size_t *in, int n, int *out, int *ok)
{
    int i;
    if (!in) return NULL;
    for (i = 0; i < n; i++) {
        if (in[i] > INT_MAX) *ok = 0;
        out[i] = (int)in[i];
    }
    return out;
}

/* The blocking call, or with `req` the nonblocking one. */
static int mpi_call(coll_api *api, const coll_call *call, MPI_Request *req)
{
    MPI_Datatype t = type_mpi(call->type);
    MPI_Op op = call->op ? op_mpi(call->op) : MPI_OP_NULL;
    MPI_Comm comm = api->comm;
    int n = call->count > INT_MAX ? -1 : (int)call->count, root = call->root, ok = 1;
    int sc[MPI_ARRAY_MAX], sd[MPI_ARRAY_MAX], rc[MPI_ARRAY_MAX], rd[MPI_ARRAY_MAX], i;
    const int *scounts = to_int(call->sendcounts, api->size, sc, &ok), *sdispls = to_int(call->sdispls, api->size, sd, &ok);
    const int *rcounts = to_int(call->recvcounts, api->size, rc, &ok), *rdispls = to_int(call->rdispls, api->size, rd, &ok);
    const void *s = call->sendbuf;
    void *r = call->recvbuf;

    if (n < 0 || !ok || api->size > MPI_ARRAY_MAX) {
        case_fail("count %zu or %d ranks do not fit this MPI call", call->count, api->size);
        return MPI_ERR_COUNT;
    }
    switch (call->kind) {
    case COLL_ALLREDUCE: return req ? MPI_Iallreduce(s, r, n, t, op, comm, req) : MPI_Allreduce(s, r, n, t, op, comm);
    case COLL_REDUCE:
        return req ? MPI_Ireduce(s, r, n, t, op, root, comm, req) : MPI_Reduce(s, r, n, t, op, root, comm);
    case COLL_BCAST: return req ? MPI_Ibcast(r, n, t, root, comm, req) : MPI_Bcast(r, n, t, root, comm);
    case COLL_REDUCE_SCATTER:
        if (!req) return MPI_Reduce_scatter_block(s, r, n, t, op, comm);
        /* The vector form with equal blocks, so that both entry points are made. */
        for (i = 0; i < api->size; i++) rc[i] = n;
        return MPI_Ireduce_scatter(s, r, rc, t, op, comm, req);
    case COLL_ALLGATHER:
        return req ? MPI_Iallgather(s, n, t, r, n, t, comm, req) : MPI_Allgather(s, n, t, r, n, t, comm);
    case COLL_ALLGATHERV:
        return req ? MPI_Iallgatherv(s, n, t, r, rcounts, rdispls, t, comm, req)
                   : MPI_Allgatherv(s, n, t, r, rcounts, rdispls, t, comm);
    case COLL_ALLTOALL:
        return req ? MPI_Ialltoall(s, n, t, r, n, t, comm, req) : MPI_Alltoall(s, n, t, r, n, t, comm);
    case COLL_ALLTOALLV:
        return req ? MPI_Ialltoallv(s, scounts, sdispls, t, r, rcounts, rdispls, t, comm, req)
                   : MPI_Alltoallv(s, scounts, sdispls, t, r, rcounts, rdispls, t, comm);
    case COLL_GATHER:
        return req ? MPI_Igather(s, n, t, r, n, t, root, comm, req) : MPI_Gather(s, n, t, r, n, t, root, comm);
    case COLL_GATHERV:
        return req ? MPI_Igatherv(s, n, t, r, rcounts, rdispls, t, root, comm, req)
                   : MPI_Gatherv(s, n, t, r, rcounts, rdispls, t, root, comm);
    case COLL_SCATTER:
        return req ? MPI_Iscatter(s, n, t, r, n, t, root, comm, req) : MPI_Scatter(s, n, t, r, n, t, root, comm);
    case COLL_SCATTERV:
        return req ? MPI_Iscatterv(s, scounts, sdispls, t, r, n, t, root, comm, req)
                   : MPI_Scatterv(s, scounts, sdispls, t, r, n, t, root, comm);
    case COLL_SCAN: return req ? MPI_Iscan(s, r, n, t, op, comm, req) : MPI_Scan(s, r, n, t, op, comm);
    case COLL_EXSCAN: return req ? MPI_Iexscan(s, r, n, t, op, comm, req) : MPI_Exscan(s, r, n, t, op, comm);
    }
    return MPI_ERR_OTHER;
}

static int failed(const coll_call *call, const char *form, int rc)
{
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, text, &len);
    case_fail("%s%s returned %d: %s", form, mpi_function(call->kind), rc, text);
    return -1;
}

static int mpi_issue(coll_api *api, const coll_call *call)
{
    int rc = mpi_call(api, call, NULL);
    return rc == MPI_SUCCESS ? 0 : failed(call, "", rc);
}

static int mpi_issue_nonblocking(coll_api *api, const coll_call *call)
{
    MPI_Request req = MPI_REQUEST_NULL;
    int rc = mpi_call(api, call, &req);
    if (rc != MPI_SUCCESS) return failed(call, "the nonblocking form of ", rc);
    rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
    return rc == MPI_SUCCESS ? 0 : failed(call, "MPI_Wait on ", rc);
}

static int mpi_wait(coll_api *api)
{
    (void)api;
    return 0;
}

void api_mpi(coll_api *api, const char *name, MPI_Comm comm)
{
    api->name = name;
    api->comm = comm;
    MPI_Comm_rank(comm, &api->rank);
    MPI_Comm_size(comm, &api->size);
    api->mc = NULL;
    api->stream = NULL;
    api->issue = mpi_issue;
    api->wait = mpi_wait;
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
}

void api_mpi_nonblocking(coll_api *api, const char *name, MPI_Comm comm)
{
    api_mpi(api, name, comm);
    api->issue = mpi_issue_nonblocking;
}
