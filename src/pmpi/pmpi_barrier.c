/* MPI_Barrier: no buffers, so always MPI; intercepted to check the communicator like the others
 * and to log the call. */
#include "pmpi.h"
#include "plugin.h"
#include "validate.h"
#include "reported.h"

int mcoll_mpi_barrier(MPI_Comm comm)
{
    if (!mcoll_plugin_active) return mcoll_next_Barrier(comm);
    if (mcoll_comm_is_null(comm)) return mcoll_raise_in("MPI_Barrier", comm, MPI_ERR_COMM);
    MCOLL_REPORT_NO_BUFFERS(comm, "barrier");
    return mcoll_next_Barrier(comm);
}

int MPI_Barrier(MPI_Comm comm) { return mcoll_mpi_barrier(comm); }
