/* Mapping of MPI datatypes and ops onto the kernels' types. Integer types are matched by size
 * and signedness, so MPI_INT, MPI_INT32_T, MPI_LONG (LP64: 64 bits) all find their kernel. */
#include <string.h>
#include "dtype.h"
#include "mcoll.h"

MPI_Datatype MCOLL_FLOAT16 = MPI_DATATYPE_NULL;
MPI_Datatype MCOLL_BFLOAT16 = MPI_DATATYPE_NULL;

static int int_dtype(int size, int is_signed, mcoll_dtype *out)
{
    if (size == 4) { *out = is_signed ? MCOLL_I32 : MCOLL_U32; return 0; }
    if (size == 8) { *out = is_signed ? MCOLL_I64 : MCOLL_U64; return 0; }
    return -1;
}

int mcoll_dtype_from_mpi(MPI_Datatype type, mcoll_dtype *out)
{
    /* Fortran's INTEGER and REAL types too: MPI_Type_f2c gives them to the Fortran bindings. */
    static MPI_Datatype signed_ints[] = {MPI_INT, MPI_LONG, MPI_LONG_LONG, MPI_LONG_LONG_INT, MPI_INT32_T, MPI_INT64_T,
                                         MPI_INTEGER, MPI_INTEGER4, MPI_INTEGER8};
    static MPI_Datatype unsigned_ints[] = {MPI_UNSIGNED, MPI_UNSIGNED_LONG, MPI_UNSIGNED_LONG_LONG, MPI_UINT32_T, MPI_UINT64_T};
    size_t i;
    int size;

    if (type == MPI_DATATYPE_NULL) return -1;
    if (type == MPI_FLOAT || type == MPI_REAL || type == MPI_REAL4) { *out = MCOLL_F32; return 0; }
    if (type == MPI_DOUBLE || type == MPI_DOUBLE_PRECISION || type == MPI_REAL8) { *out = MCOLL_F64; return 0; }
    if (type == MCOLL_FLOAT16) { *out = MCOLL_F16; return 0; }
    if (type == MCOLL_BFLOAT16) { *out = MCOLL_BF16; return 0; }
    for (i = 0; i < sizeof signed_ints / sizeof signed_ints[0]; i++)
        if (type == signed_ints[i] && PMPI_Type_size(type, &size) == MPI_SUCCESS) return int_dtype(size, 1, out);
    for (i = 0; i < sizeof unsigned_ints / sizeof unsigned_ints[0]; i++)
        if (type == unsigned_ints[i] && PMPI_Type_size(type, &size) == MPI_SUCCESS) return int_dtype(size, 0, out);
    return -1;
}

int mcoll_op_from_mpi(MPI_Op op, mcoll_dtype dtype, mcoll_op *out)
{
    int is_int = dtype == MCOLL_I32 || dtype == MCOLL_U32 || dtype == MCOLL_I64 || dtype == MCOLL_U64;
    if (op == MPI_SUM) *out = MCOLL_SUM;
    else if (op == MPI_PROD) *out = MCOLL_PROD;
    else if (op == MPI_MIN) *out = MCOLL_MIN;
    else if (op == MPI_MAX) *out = MCOLL_MAX;
    else if (op == MPI_BAND && is_int) *out = MCOLL_BAND;
    else if (op == MPI_BOR && is_int) *out = MCOLL_BOR;
    else if (op == MPI_BXOR && is_int) *out = MCOLL_BXOR;
    else return -1;
    return 0;
}

const char *mcoll_dtype_name(mcoll_dtype dtype)
{
    static const char *const names[] = {"float", "double", "float16", "bfloat16", "int32", "uint32", "int64", "uint64"};
    return (unsigned)dtype < MCOLL_NUM_DTYPES ? names[dtype] : "?";
}

const char *mcoll_op_name(mcoll_op op)
{
    static const char *const names[] = {"sum", "prod", "min", "max", "band", "bor", "bxor"};
    return (unsigned)op < MCOLL_NUM_OPS ? names[op] : "?";
}
