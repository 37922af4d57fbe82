/* MPI_* calls on device buffers (through mcoll's plug-in) as a coll_api; see api.h.
 * MPI semantics: the result is in recvbuf when the call returns, so nothing here synchronizes
 * the GPU; the checks read the buffers right after the call. */
#include <stdio.h>
#include "api.h"
#include "mpi_calls.h"
#include "report.h"

static int mpi_issue(coll_api *api, const coll_call *call)
{
    mpi_ints ints;
    int len = 0, rc = mpi_call(api->comm, api->size, call, FORM_BLOCKING, &ints, NULL);
    char text[MPI_MAX_ERROR_STRING];

    mpi_ints_free(&ints);
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
