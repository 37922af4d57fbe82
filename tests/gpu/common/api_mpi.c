/* MPI_* calls on device buffers (through mcoll's plug-in) as a coll_api; see api.h.
 * MPI semantics: the result is in recvbuf when the call returns, so nothing here synchronizes
 * the GPU; the checks read the buffers right after the call. */
#include <limits.h>
#include <stdio.h>
#include "api.h"
#include "report.h"

static const char *mpi_function(coll_kind kind)
{
    switch (kind) {
    case COLL_ALLREDUCE: return "MPI_Allreduce";
    case COLL_REDUCE: return "MPI_Reduce";
    case COLL_BCAST: return "MPI_Bcast";
    case COLL_REDUCE_SCATTER: return "MPI_Reduce_scatter_block";
    case COLL_ALLGATHER: return "MPI_Allgather";
    default: return "?";
    }
}

static int mpi_issue(coll_api *api, const coll_call *call)
{
    MPI_Datatype type = type_mpi(call->type);
    MPI_Op op = call->op ? op_mpi(call->op) : MPI_OP_NULL;
    int count = (int)call->count, rc = MPI_ERR_OTHER, len = 0;
    char text[MPI_MAX_ERROR_STRING];
    const void *send = call->sendbuf;

    if (call->count > INT_MAX) {
        case_fail("count %zu does not fit an MPI int", call->count);
        return -1;
    }
    switch (call->kind) {
    case COLL_ALLREDUCE: rc = MPI_Allreduce(send, call->recvbuf, count, type, op, api->comm); break;
    case COLL_REDUCE: rc = MPI_Reduce(send, call->recvbuf, count, type, op, call->root, api->comm); break;
    case COLL_BCAST: rc = MPI_Bcast(call->recvbuf, count, type, call->root, api->comm); break;
    case COLL_REDUCE_SCATTER: rc = MPI_Reduce_scatter_block(send, call->recvbuf, count, type, op, api->comm); break;
    case COLL_ALLGATHER: rc = MPI_Allgather(send, count, type, call->recvbuf, count, type, api->comm); break;
    default:
        case_fail("mcoll_%s is a native call only: these suites do not make it through MPI", coll_name(call->kind));
        return -1;
    }
    if (rc == MPI_SUCCESS) return 0;
    MPI_Error_string(rc, text, &len);
    case_fail("%s returned %d: %s", mpi_function(call->kind), rc, text);
    return -1;
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
