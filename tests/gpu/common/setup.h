/* mcoll communicators created and destroyed as reported setup steps (never filtered out: the
 * cases after them need them). */
#ifndef GPU_SETUP_H
#define GPU_SETUP_H

#include <mpi.h>
#include "mcoll.h"

/* Collective over `comm`; NULL on every rank when any rank failed (or the run has stopped). */
mcoll_comm *setup_comm(const char *name, MPI_Comm comm, const mcoll_config *config);
/* Collective; does nothing for NULL. */
void teardown_comm(const char *name, mcoll_comm *mc);

#endif /* GPU_SETUP_H */
