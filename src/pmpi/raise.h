/* Errors of the user's calls, raised as MPI raises them: the error class through the error
 * handler of the communicator. Where that handler ends the job (MPI_ERRORS_ARE_FATAL, and
 * MPI_ERRORS_ABORT where the MPI has it), the message names the call the user made
 * ("An error occurred in MPI_Allreduce"), its error class as MPI_Error_string gives it and the
 * communicator, in the MPI's own layout, before the job is aborted with the error class as its
 * exit code, as the handler would. MPI_Comm_call_errhandler, which mcoll would otherwise go
 * through, makes the MPI name itself instead. Other handlers (MPI_ERRORS_RETURN, the user's)
 * are invoked through MPI_Comm_call_errhandler, exactly as before. */
#ifndef MCOLL_RAISE_H
#define MCOLL_RAISE_H

#include <stddef.h>
#include <mpi.h>
#include "pmpi.h"

/* Raise `errclass` for the user's call `fn` ("MPI_Allreduce"; NULL: unnamed) through the error
 * handler of `comm` (of MPI_COMM_WORLD when comm is MPI_COMM_NULL, as Open MPI does) and return
 * it: with MPI_ERRORS_RETURN the caller returns it to the user. */
int mcoll_raise_in(const char *fn, MPI_Comm comm, int errclass);
/* The same for a call mcoll does not name. */
int mcoll_raise(MPI_Comm comm, int errclass);

/* The MPI name of a call named in the log's lower case: "iallreduce" -> "MPI_Iallreduce",
 * "allreduce_init" -> "MPI_Allreduce_init" (MPIX_ where the MPI's persistent collectives are
 * extensions). Returns buf. */
const char *mcoll_mpi_name(const char *lower, char *buf, size_t size);
/* The MPI name of the function the user called for `c`. Returns buf. */
const char *mcoll_call_name(const mcoll_call *c, char *buf, size_t size);

#endif /* MCOLL_RAISE_H */
