/* MPI datatypes and ops as the kernels know them. The native API decodes its arguments with
 * these on every call; the PMPI plug-in reads the answers from its datatype table instead
 * (src/pmpi/typeinfo.h), filled from these once at MPI_Init. */
#ifndef MCOLL_DTYPE_H
#define MCOLL_DTYPE_H

#include <mpi.h>
#include "launch.h"

/* 0 and *out set when `type` is a predefined type the kernels reduce; -1 otherwise. */
int mcoll_dtype_from_mpi(MPI_Datatype type, mcoll_dtype *out);
/* 0 and *out set when `op` is a built-in op the kernels implement for `dtype`; -1 otherwise. */
int mcoll_op_from_mpi(MPI_Op op, mcoll_dtype dtype, mcoll_op *out);
const char *mcoll_dtype_name(mcoll_dtype dtype);
const char *mcoll_op_name(mcoll_op op);

#endif /* MCOLL_DTYPE_H */
