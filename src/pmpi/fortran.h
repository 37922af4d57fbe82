/* What the Fortran entry points share (pmpi_fortran.c, pmpi_fortran_nonblocking.c). */
#ifndef MCOLL_FORTRAN_H
#define MCOLL_FORTRAN_H

#include <mpi.h>

/* A Fortran buffer argument as the C API spells it: the MPI_IN_PLACE and MPI_BOTTOM sentinels
 * of the Fortran bindings become the C ones. Call mcoll_fortran_init first. */
void *mcoll_fortran_buffer(void *buf);

/* The four spellings of one entry point, each calling f_<lower>. */
#define FORTRAN_ENTRY(lower, upper, params, args)        \
    void lower params;                                   \
    void lower##_ params;                                \
    void lower##__ params;                               \
    void upper params;                                   \
    void lower params { f_##lower args; }                \
    void lower##_ params { f_##lower args; }             \
    void lower##__ params { f_##lower args; }            \
    void upper params { f_##lower args; }

#endif /* MCOLL_FORTRAN_H */
