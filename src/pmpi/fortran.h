/* Shared by the Fortran entry points (pmpi_fortran.c, pmpi_fortran_blocks.c,
 * pmpi_fortran_nonblocking.c).
 *
 * Open MPI's Fortran bindings call PMPI_* directly, so the C wrappers never see Fortran calls;
 * mcoll defines the bindings' own symbols instead. mpif.h and `use mpi` call the four spellings
 * libmpi_mpifh exports (mpi_allreduce, mpi_allreduce_, mpi_allreduce__, MPI_ALLREDUCE); `use
 * mpi_f08` calls mpi_allreduce_f08_ in libmpi_usempif08, which hands the same arguments to the
 * same back end: buffers as plain addresses, handles (TYPE(MPI_Comm) etc., one INTEGER each)
 * and integers by reference, arrays of handles as arrays of INTEGER, and an OPTIONAL ierror,
 * NULL when the caller leaves it out. Every entry point converts the handles, the MPI_IN_PLACE
 * and MPI_BOTTOM sentinels (the same common blocks in all three bindings) and INTEGER arrays,
 * then runs the same C code as the C entry point, validation included. */
#ifndef MCOLL_FORTRAN_H
#define MCOLL_FORTRAN_H

#include <mpi.h>

/* A Fortran buffer argument as the C API spells it (MPI_IN_PLACE, MPI_BOTTOM, or itself). */
void *mcoll_fortran_buffer(void *buf);

/* C arrays made for one call, freed by mcoll_fortran_free. */
typedef struct {
    void *owned[8];
    int n;
    int failed;       /* an allocation failed: the call returns MPI_ERR_NO_MEM */
} mcoll_fortran_temps;

/* An INTEGER array of n entries as int: the array itself where INTEGER is int (the usual case),
 * else a converted copy. */
const int *mcoll_fortran_ints(mcoll_fortran_temps *t, const MPI_Fint *f, int n);
/* An array of n datatype handles as MPI_Datatype (NULL stays NULL). */
const MPI_Datatype *mcoll_fortran_types(mcoll_fortran_temps *t, const MPI_Fint *f, int n);
void mcoll_fortran_free(mcoll_fortran_temps *t);
/* Blocks on each side of a call on comm: the remote group's size (the group's own on an
 * intracommunicator), or for the neighbourhood calls the out- and in-degree; 0 for an invalid
 * communicator, which the C entry point then reports. */
void mcoll_fortran_blocks(MPI_Comm comm, int neighbor, int *nsend, int *nrecv);

/* The outcome of a C call that made *r: the request handle back to Fortran when it succeeded,
 * and the error code. Called with the C call as `err` (evaluated first: the order of arguments
 * is unspecified). */
void mcoll_fortran_give_request(int err, const MPI_Request *r, MPI_Fint *request, MPI_Fint *ierr);
/* INTEGER arrays that a nonblocking call reads until it completes cannot be converted copies:
 * 1 when INTEGER is int (they are used as they are); else MPI_ERR_INTERN is raised on comm,
 * written to *ierr, and 0 returned. */
int mcoll_fortran_ints_kept(MPI_Fint *comm, MPI_Fint *ierr);

/* The five spellings of one entry point, each making `call`. Every parameter list ends with
 * `ierr`; the f08 one gives `call` somewhere to write when the caller passed no ierror. */
#define FORTRAN_CALLS(lower, upper, params, call)        \
    void lower params;                                   \
    void lower##_ params;                                \
    void lower##__ params;                               \
    void upper params;                                   \
    void lower##_f08_ params;                            \
    void lower params { call; }                          \
    void lower##_ params { call; }                       \
    void lower##__ params { call; }                      \
    void upper params { call; }                          \
    void lower##_f08_ params                             \
    {                                                    \
        MPI_Fint absent_;                                \
        if (!ierr) ierr = &absent_;                      \
        call;                                            \
    }

/* The same, calling f_<lower> with `args`. */
#define FORTRAN_ENTRY(lower, upper, params, args) FORTRAN_CALLS(lower, upper, params, f_##lower args)

/* A buffer argument and a datatype handle as C sees them. */
#define F_BUF(b) mcoll_fortran_buffer(b)
#define F_TYPE(t) PMPI_Type_f2c(*(t))

#endif /* MCOLL_FORTRAN_H */
