/* One coll_call (api.h) made through MPI_*: blocking, nonblocking, or persistent (initialized,
 * not started), for every kind of call. Shared by the blocking MPI api (api_mpi.c) and the
 * nonblocking program (gpu_nonblocking.c). */
#ifndef GPU_MPI_CALLS_H
#define GPU_MPI_CALLS_H

#include <mpi.h>
#include "api.h"

typedef enum { FORM_BLOCKING, FORM_NONBLOCKING, FORM_PERSISTENT } mpi_form;

/* The per-rank counts and displacements of a call as the int arrays MPI takes; they must live
 * until the call completes (a persistent one: until its request is freed). */
typedef struct {
    int *sendcounts, *sdispls, *recvcounts, *rdispls;
} mpi_ints;

/* "MPI_Allreduce", ... for failure details. */
const char *mpi_function(coll_kind kind);
/* Make `call` on comm (of `size` ranks) in `form`; q receives the request of the nonblocking
 * and persistent forms. `ints` is filled (free it with mpi_ints_free once the call is done).
 * Returns what MPI returns; MPI_ERR_OTHER for a persistent call where the MPI has none, or when
 * a count does not fit an int or memory runs out. */
int mpi_call(MPI_Comm comm, int size, const coll_call *call, mpi_form form, mpi_ints *ints, MPI_Request *q);
void mpi_ints_free(mpi_ints *ints);

#endif /* GPU_MPI_CALLS_H */
