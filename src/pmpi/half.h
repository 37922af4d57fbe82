/* The 16-bit floats on the host: conversions and the MPI reductions mcoll supplies for
 * MCOLL_FLOAT16 and MCOLL_BFLOAT16 (MPI-3 has no such types, so MPI_SUM etc. on them would be
 * refused). Each element is widened to float, combined, and rounded back to nearest-even.
 * MIN and MAX follow IEEE minNum/maxNum, as the GPU min/max instructions do: a NaN loses to a
 * number; -0 is below +0. */
#ifndef MCOLL_HALF_H
#define MCOLL_HALF_H

#include <stdint.h>
#include <mpi.h>

float mcoll_half_to_float(uint16_t h);
uint16_t mcoll_float_to_half(float f);
float mcoll_bf16_to_float(uint16_t h);
uint16_t mcoll_float_to_bf16(float f);

/* inout[i] = in[i] op inout[i]; op is MCOLL_OPI_SUM, _PROD, _MIN or _MAX (typeinfo.h). */
void mcoll_half_reduce(int op, int is_bf16, const uint16_t *in, uint16_t *inout, int n);

/* The 16-bit float handles (MCOLL_FLOAT16, MCOLL_BFLOAT16, defined in src/core/dtype.c) and
 * their ops are created at MPI_Init by mcoll_dtype_init and freed by mcoll_dtype_finalize. */
int mcoll_dtype_init(void);
void mcoll_dtype_finalize(void);

/* The op to give PMPI: mcoll's own for a 16-bit float type with SUM, PROD, MIN or MAX, else `op`. */
MPI_Op mcoll_half_op(MPI_Datatype type, MPI_Op op);

#endif /* MCOLL_HALF_H */
