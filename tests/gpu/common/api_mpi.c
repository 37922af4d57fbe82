/* MPI_* calls on device buffers (through mcoll's plug-in) as a coll_api; see api.h.
 * MPI semantics: the result is in recvbuf when the call returns, so nothing here synchronizes
 * the GPU; the checks read the buffers right after the call. The nonblocking api makes each
 * call's MPI_I* form and completes it at once with MPI_Wait. */
#include <stdio.h>
#include "api.h"
#include "mpi_calls.h"
#include "report.h"

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
    mpi_ints ints;
    int rc = mpi_call(api->comm, api->size, call, FORM_BLOCKING, &ints, NULL);
    mpi_ints_free(&ints);
    return rc == MPI_SUCCESS ? 0 : failed(call, "", rc);
}

static int mpi_issue_nonblocking(coll_api *api, const coll_call *call)
{
    mpi_ints ints;
    MPI_Request req = MPI_REQUEST_NULL;
    int rc = mpi_call(api->comm, api->size, call, FORM_NONBLOCKING, &ints, &req);
    if (rc != MPI_SUCCESS) {
        mpi_ints_free(&ints);
        return failed(call, "the nonblocking form of ", rc);
    }
    rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
    mpi_ints_free(&ints);
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
