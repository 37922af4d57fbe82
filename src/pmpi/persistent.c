/* MPI_Start, MPI_Startall and MPI_Request_free, for persistent mcoll requests (request.h; the
 * MPI_<Name>_init entry points are with the nonblocking calls, nonblocking.c). The MPI's own
 * requests go to PMPI untouched. */
#include <stdlib.h>
#include "request.h"

int MPI_Start(MPI_Request *request)
{
    mcoll_nbop *op = request ? mcoll_request_persistent(*request) : NULL;
    if (!op) return PMPI_Start(request);
    return mcoll_nbop_start(op);
}

/* mcoll's requests one by one, the MPI's in one PMPI_Startall; the first error is returned. */
int MPI_Startall(int count, MPI_Request requests[])
{
    MPI_Request local[16], *others;
    int i, n = 0, err = MPI_SUCCESS, rc;
    if (count <= 0 || !requests || !mcoll_requests_live()) return PMPI_Startall(count, requests);
    others = count <= 16 ? local : (MPI_Request *)malloc((size_t)count * sizeof *others);
    if (!others) return PMPI_Startall(count, requests); /* the MPI's requests at least */
    for (i = 0; i < count; i++) {
        mcoll_nbop *op = mcoll_request_persistent(requests[i]);
        if (!op) {
            others[n++] = requests[i];
            continue;
        }
        rc = mcoll_nbop_start(op);
        if (err == MPI_SUCCESS) err = rc;
    }
    rc = n ? PMPI_Startall(n, others) : MPI_SUCCESS;
    if (err == MPI_SUCCESS) err = rc;
    if (others != local) free(others);
    return err;
}

/* A persistent mcoll request is freed at once when inactive; when active, its start finishes in
 * the background (at the next completion call or MPI_Finalize) and it is freed then, as MPI
 * describes for active requests. The MPI's own requests, and mcoll's nonblocking ones (which
 * are the MPI's generalized requests), are freed by the MPI. */
int MPI_Request_free(MPI_Request *request)
{
    mcoll_nbop *op = request ? mcoll_request_persistent(*request) : NULL;
    int rc = MPI_SUCCESS;
    if (op) {
        mcoll_nbop_free_persistent(op);
        *request = MPI_REQUEST_NULL;
    } else {
        rc = PMPI_Request_free(request);
    }
    mcoll_requests_progress();
    return rc;
}
