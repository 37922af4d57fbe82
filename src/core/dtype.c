/* Mapping of MPI datatypes and ops onto the kernels' types. One table of handles says which
 * kernel datatype each predefined datatype is; which ops apply to it is the kernels' own table
 * (collectives/dtype_table.cuh, through mcoll_reduce_supported). Integer types are matched by
 * size and signedness, so MPI_INT, MPI_INT32_T, MPI_LONG (LP64: 64 bits) all find their kernel;
 * MPI_CHAR follows the signedness of C's char. Pairs are taken only when the MPI lays them out
 * as the C structs the kernels expect. */
#include <limits.h>
#include <string.h>
#include "dtype.h"
#include "mcoll.h"

MPI_Datatype MCOLL_FLOAT16 = MPI_DATATYPE_NULL;
MPI_Datatype MCOLL_BFLOAT16 = MPI_DATATYPE_NULL;

/* Kernel datatype of a handle, or one of these: an integer of the handle's size. */
enum { SIGNED_INT = -1, UNSIGNED_INT = -2 };
#define CHAR_INT (CHAR_MIN < 0 ? SIGNED_INT : UNSIGNED_INT)

typedef struct {
    MPI_Datatype type;
    int kernel; /* mcoll_dtype, SIGNED_INT or UNSIGNED_INT */
} handle_row;

/* Fortran's INTEGER, REAL and COMPLEX types too: MPI_Type_f2c gives them to the Fortran
 * bindings. (Fortran's LOGICAL is not C's bool, and its pair types MPI_2REAL, ... are laid out
 * differently: neither is here.) */
static const handle_row handles[] = {
    {MPI_FLOAT, MCOLL_F32}, {MPI_REAL, MCOLL_F32}, {MPI_REAL4, MCOLL_F32},
    {MPI_DOUBLE, MCOLL_F64}, {MPI_DOUBLE_PRECISION, MCOLL_F64}, {MPI_REAL8, MCOLL_F64},
    {MPI_CHAR, CHAR_INT}, {MPI_SIGNED_CHAR, SIGNED_INT}, {MPI_UNSIGNED_CHAR, UNSIGNED_INT},
    {MPI_SHORT, SIGNED_INT}, {MPI_UNSIGNED_SHORT, UNSIGNED_INT},
    {MPI_INT, SIGNED_INT}, {MPI_UNSIGNED, UNSIGNED_INT},
    {MPI_LONG, SIGNED_INT}, {MPI_UNSIGNED_LONG, UNSIGNED_INT},
    {MPI_LONG_LONG, SIGNED_INT}, {MPI_LONG_LONG_INT, SIGNED_INT}, {MPI_UNSIGNED_LONG_LONG, UNSIGNED_INT},
    {MPI_INT8_T, SIGNED_INT}, {MPI_INT16_T, SIGNED_INT}, {MPI_INT32_T, SIGNED_INT}, {MPI_INT64_T, SIGNED_INT},
    {MPI_UINT8_T, UNSIGNED_INT}, {MPI_UINT16_T, UNSIGNED_INT}, {MPI_UINT32_T, UNSIGNED_INT},
    {MPI_UINT64_T, UNSIGNED_INT},
    {MPI_INTEGER, SIGNED_INT}, {MPI_INTEGER4, SIGNED_INT}, {MPI_INTEGER8, SIGNED_INT},
#ifdef MPI_INTEGER1
    {MPI_INTEGER1, SIGNED_INT},
#endif
#ifdef MPI_INTEGER2
    {MPI_INTEGER2, SIGNED_INT},
#endif
    {MPI_BYTE, MCOLL_BYTE}, {MPI_C_BOOL, MCOLL_BOOL},
    {MPI_C_COMPLEX, MCOLL_CF32}, {MPI_C_FLOAT_COMPLEX, MCOLL_CF32}, {MPI_C_DOUBLE_COMPLEX, MCOLL_CF64},
    {MPI_COMPLEX, MCOLL_CF32}, {MPI_DOUBLE_COMPLEX, MCOLL_CF64},
#ifdef MPI_CXX_BOOL
    {MPI_CXX_BOOL, MCOLL_BOOL}, {MPI_CXX_FLOAT_COMPLEX, MCOLL_CF32}, {MPI_CXX_DOUBLE_COMPLEX, MCOLL_CF64},
#endif
    {MPI_FLOAT_INT, MCOLL_F32_I32}, {MPI_DOUBLE_INT, MCOLL_F64_I32},
    {MPI_LONG_INT, sizeof(long) == 8 ? MCOLL_I64_I32 : MCOLL_I32_I32},
    {MPI_2INT, MCOLL_I32_I32}, {MPI_SHORT_INT, MCOLL_I16_I32},
};

static const struct {
    MPI_Op op;
    mcoll_op kernel;
} op_rows[] = {
    {MPI_SUM, MCOLL_SUM}, {MPI_PROD, MCOLL_PROD}, {MPI_MIN, MCOLL_MIN}, {MPI_MAX, MCOLL_MAX},
    {MPI_BAND, MCOLL_BAND}, {MPI_BOR, MCOLL_BOR}, {MPI_BXOR, MCOLL_BXOR},
    {MPI_LAND, MCOLL_LAND}, {MPI_LOR, MCOLL_LOR}, {MPI_LXOR, MCOLL_LXOR},
    {MPI_MINLOC, MCOLL_MINLOC}, {MPI_MAXLOC, MCOLL_MAXLOC},
};

static int int_dtype(int size, int is_signed, mcoll_dtype *out)
{
    switch (size) {
    case 1: *out = is_signed ? MCOLL_I8 : MCOLL_U8; return 0;
    case 2: *out = is_signed ? MCOLL_I16 : MCOLL_U16; return 0;
    case 4: *out = is_signed ? MCOLL_I32 : MCOLL_U32; return 0;
    case 8: *out = is_signed ? MCOLL_I64 : MCOLL_U64; return 0;
    default: return -1;
    }
}

static int is_pair(mcoll_dtype dt)
{
    return dt == MCOLL_F32_I32 || dt == MCOLL_F64_I32 || dt == MCOLL_I64_I32 || dt == MCOLL_I32_I32 ||
           dt == MCOLL_I16_I32;
}

/* A pair's value first, its int last, the extent the C struct's size: the layout the kernels
 * read (value at 0, index at the end of the data, padding where C puts it). */
static int pair_layout_ok(MPI_Datatype type, mcoll_dtype dt)
{
    MPI_Aint lb, extent, true_lb, true_extent;
    size_t value = dt == MCOLL_F32_I32 || dt == MCOLL_I32_I32 ? 4 : dt == MCOLL_I16_I32 ? 2 : 8;
    int size;
    if (PMPI_Type_size(type, &size) != MPI_SUCCESS || PMPI_Type_get_extent(type, &lb, &extent) != MPI_SUCCESS ||
        PMPI_Type_get_true_extent(type, &true_lb, &true_extent) != MPI_SUCCESS)
        return 0;
    return lb == 0 && true_lb == 0 && (size_t)size == value + sizeof(int32_t) && (size_t)extent == mcoll_dtype_size(dt) &&
           (size_t)true_extent == mcoll_dtype_span(dt, 1);
}

int mcoll_dtype_from_mpi(MPI_Datatype type, mcoll_dtype *out)
{
    size_t i;
    int size;

    if (type == MPI_DATATYPE_NULL) return -1;
    if (type == MCOLL_FLOAT16) { *out = MCOLL_F16; return 0; }
    if (type == MCOLL_BFLOAT16) { *out = MCOLL_BF16; return 0; }
    for (i = 0; i < sizeof handles / sizeof handles[0]; i++) {
        if (handles[i].type != type) continue;
        if (handles[i].kernel == SIGNED_INT || handles[i].kernel == UNSIGNED_INT)
            return PMPI_Type_size(type, &size) == MPI_SUCCESS ? int_dtype(size, handles[i].kernel == SIGNED_INT, out) : -1;
        if (is_pair((mcoll_dtype)handles[i].kernel) && !pair_layout_ok(type, (mcoll_dtype)handles[i].kernel)) return -1;
        *out = (mcoll_dtype)handles[i].kernel;
        return 0;
    }
    return -1;
}

int mcoll_op_from_mpi(MPI_Op op, mcoll_dtype dtype, mcoll_op *out)
{
    size_t i;
    for (i = 0; i < sizeof op_rows / sizeof op_rows[0]; i++) {
        if (op_rows[i].op != op) continue;
        if (!mcoll_reduce_supported(dtype, op_rows[i].kernel)) return -1;
        *out = op_rows[i].kernel;
        return 0;
    }
    return -1;
}

const char *mcoll_dtype_name(mcoll_dtype dtype)
{
    static const char *const names[MCOLL_NUM_DTYPES] = {
        "float", "double", "float16", "bfloat16", "int32", "uint32", "int64", "uint64",
        "int8", "uint8", "int16", "uint16", "byte", "bool", "float complex", "double complex",
        "float_int", "double_int", "int64_int", "int_int", "short_int"};
    return (unsigned)dtype < MCOLL_NUM_DTYPES ? names[dtype] : "?";
}

const char *mcoll_op_name(mcoll_op op)
{
    static const char *const names[MCOLL_NUM_OPS] = {"sum", "prod", "min", "max", "band", "bor",
                                                     "bxor", "land", "lor", "lxor", "minloc", "maxloc"};
    return (unsigned)op < MCOLL_NUM_OPS ? names[op] : "?";
}
