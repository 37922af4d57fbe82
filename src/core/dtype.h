/* MPI datatypes and ops as the kernels know them. */
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

/* The 16-bit float handles (MCOLL_FLOAT16, MCOLL_BFLOAT16) are created at MPI_Init by
 * mcoll_dtype_init and freed by mcoll_dtype_finalize. */
int mcoll_dtype_init(void);
void mcoll_dtype_finalize(void);

#endif /* MCOLL_DTYPE_H */
