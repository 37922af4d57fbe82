/* Datatype and op tables: the kernels' mapping (mcoll_dtype_from_mpi / mcoll_op_from_mpi and the
 * kernels' own table behind it, element sizes and spans, the multimem table's bounds), the
 * plug-in's table of predefined types (sizes, which built-in op applies), the 16-bit float
 * handles, and the op translation for them. Runs after MPI_Init as a singleton; MPI_Init and
 * MPI_Finalize are mcoll's wrappers (this program links the library statically). */
#include <stddef.h>
#include <string.h>
#include <mpi.h>
#include "dtype.h"
#include "half.h"
#include "typeinfo.h"
#include "mcoll.h"
#include "unit.h"

static int maps(MPI_Datatype type, mcoll_dtype want)
{
    mcoll_dtype got;
    return mcoll_dtype_from_mpi(type, &got) == 0 && got == want;
}

static int unmapped(MPI_Datatype type)
{
    mcoll_dtype got;
    return mcoll_dtype_from_mpi(type, &got) == -1;
}

static int op_maps(MPI_Op op, mcoll_dtype dt, mcoll_op want)
{
    mcoll_op got;
    return mcoll_op_from_mpi(op, dt, &got) == 0 && got == want;
}

static int op_unmapped(MPI_Op op, mcoll_dtype dt)
{
    mcoll_op got;
    return mcoll_op_from_mpi(op, dt, &got) == -1;
}

static int has_op(MPI_Datatype type, int opi)
{
    const mcoll_type_info *info = mcoll_typeinfo_lookup(type);
    return info && ((info->ops >> opi) & 1u);
}

int main(int argc, char **argv)
{
    MPI_Datatype contig;
    char name[MPI_MAX_OBJECT_NAME];
    int len, size;

    MPI_Init(&argc, &argv);

    /* Kernel mapping: floats, integers by size and signedness */
    CHECK(maps(MPI_FLOAT, MCOLL_F32) && maps(MPI_DOUBLE, MCOLL_F64));
    CHECK(maps(MCOLL_FLOAT16, MCOLL_F16) && maps(MCOLL_BFLOAT16, MCOLL_BF16));
    CHECK(maps(MPI_INT, MCOLL_I32) && maps(MPI_INT32_T, MCOLL_I32) && maps(MPI_UNSIGNED, MCOLL_U32));
    CHECK(maps(MPI_INT64_T, MCOLL_I64) && maps(MPI_UINT64_T, MCOLL_U64) && maps(MPI_LONG_LONG, MCOLL_I64));
    CHECK(maps(MPI_LONG, sizeof(long) == 8 ? MCOLL_I64 : MCOLL_I32));
    CHECK(maps(MPI_UNSIGNED_LONG, sizeof(long) == 8 ? MCOLL_U64 : MCOLL_U32));
    CHECK(maps(MPI_REAL, MCOLL_F32) && maps(MPI_DOUBLE_PRECISION, MCOLL_F64) && maps(MPI_INTEGER, MCOLL_I32));
    /* 8- and 16-bit integers; MPI_CHAR is signed where C's char is */
    CHECK(maps(MPI_SIGNED_CHAR, MCOLL_I8) && maps(MPI_INT8_T, MCOLL_I8));
    CHECK(maps(MPI_UNSIGNED_CHAR, MCOLL_U8) && maps(MPI_UINT8_T, MCOLL_U8));
    CHECK(maps(MPI_CHAR, (char)-1 < 0 ? MCOLL_I8 : MCOLL_U8));
    CHECK(maps(MPI_SHORT, MCOLL_I16) && maps(MPI_INT16_T, MCOLL_I16));
    CHECK(maps(MPI_UNSIGNED_SHORT, MCOLL_U16) && maps(MPI_UINT16_T, MCOLL_U16));
    /* Bytes, bools, complex numbers, value-index pairs */
    CHECK(maps(MPI_BYTE, MCOLL_BYTE) && maps(MPI_C_BOOL, MCOLL_BOOL) && maps(MPI_CXX_BOOL, MCOLL_BOOL));
    CHECK(maps(MPI_C_FLOAT_COMPLEX, MCOLL_CF32) && maps(MPI_C_COMPLEX, MCOLL_CF32) && maps(MPI_C_DOUBLE_COMPLEX, MCOLL_CF64));
    CHECK(maps(MPI_CXX_FLOAT_COMPLEX, MCOLL_CF32) && maps(MPI_CXX_DOUBLE_COMPLEX, MCOLL_CF64));
    CHECK(maps(MPI_COMPLEX, MCOLL_CF32) && maps(MPI_DOUBLE_COMPLEX, MCOLL_CF64));
    CHECK(maps(MPI_FLOAT_INT, MCOLL_F32_I32) && maps(MPI_DOUBLE_INT, MCOLL_F64_I32) && maps(MPI_2INT, MCOLL_I32_I32));
    CHECK(maps(MPI_SHORT_INT, MCOLL_I16_I32) && maps(MPI_LONG_INT, sizeof(long) == 8 ? MCOLL_I64_I32 : MCOLL_I32_I32));
    /* Element sizes are the C layouts, which are the MPI extents */
    {
        struct double_int { double v; int k; } di;
        struct { long v; int k; } li;
        struct { short v; int k; } si;
        struct { float v; int k; } fi;
        MPI_Aint lb, extent;
        CHECK(mcoll_dtype_size(MCOLL_F64_I32) == sizeof di && mcoll_dtype_size(MCOLL_F32_I32) == sizeof fi);
        CHECK(mcoll_dtype_size(MCOLL_I16_I32) == sizeof si && mcoll_dtype_size(MCOLL_I32_I32) == 2 * sizeof(int));
        CHECK(sizeof(long) != 8 || mcoll_dtype_size(MCOLL_I64_I32) == sizeof li);
        MPI_Type_get_extent(MPI_DOUBLE_INT, &lb, &extent);
        CHECK(extent == (MPI_Aint)sizeof di);
        MPI_Type_get_extent(MPI_SHORT_INT, &lb, &extent);
        CHECK(extent == (MPI_Aint)sizeof si);
        MPI_Type_get_extent(MPI_LONG_INT, &lb, &extent);
        CHECK(extent == (MPI_Aint)sizeof li);
        /* Spans end at the last element's data: 3 x {double; int} is 44 bytes, not 48 */
        CHECK(mcoll_dtype_span(MCOLL_F64_I32, 3) == 2 * sizeof di + offsetof(struct double_int, k) + sizeof(int));
        CHECK(mcoll_dtype_span(MCOLL_I16_I32, 3) == 3 * sizeof si && mcoll_dtype_span(MCOLL_U8, 5) == 5);
        CHECK(mcoll_dtype_span(MCOLL_CF64, 2) == 32 && mcoll_dtype_span(MCOLL_F64_I32, 0) == 0);
    }
    /* Not in the kernels */
    CHECK(unmapped(MPI_LONG_DOUBLE) && unmapped(MPI_C_LONG_DOUBLE_COMPLEX) && unmapped(MPI_LONG_DOUBLE_INT));
    CHECK(unmapped(MPI_WCHAR) && unmapped(MPI_LOGICAL) && unmapped(MPI_2REAL) && unmapped(MPI_2INTEGER));
    CHECK(unmapped(MPI_PACKED) && unmapped(MPI_DATATYPE_NULL));
    MPI_Type_contiguous(4, MPI_FLOAT, &contig);
    MPI_Type_commit(&contig);
    CHECK(unmapped(contig));

    /* Ops: the arithmetic and ordering ones */
    CHECK(op_maps(MPI_SUM, MCOLL_F32, MCOLL_SUM) && op_maps(MPI_PROD, MCOLL_F64, MCOLL_PROD));
    CHECK(op_maps(MPI_MIN, MCOLL_F16, MCOLL_MIN) && op_maps(MPI_MAX, MCOLL_BF16, MCOLL_MAX));
    CHECK(op_maps(MPI_BAND, MCOLL_I32, MCOLL_BAND) && op_maps(MPI_BOR, MCOLL_U64, MCOLL_BOR));
    CHECK(op_maps(MPI_BXOR, MCOLL_I64, MCOLL_BXOR));
    /* every op MPI defines on C integers, at every width */
    {
        static const mcoll_dtype ints[] = {MCOLL_I8, MCOLL_U8, MCOLL_I16, MCOLL_U16, MCOLL_I32, MCOLL_U32, MCOLL_I64, MCOLL_U64};
        static const MPI_Op int_ops[] = {MPI_SUM, MPI_PROD, MPI_MIN, MPI_MAX, MPI_BAND, MPI_BOR, MPI_BXOR, MPI_LAND, MPI_LOR, MPI_LXOR};
        static const mcoll_op int_kernel_ops[] = {MCOLL_SUM, MCOLL_PROD, MCOLL_MIN, MCOLL_MAX, MCOLL_BAND,
                                                  MCOLL_BOR, MCOLL_BXOR, MCOLL_LAND, MCOLL_LOR, MCOLL_LXOR};
        size_t i, o;
        int all = 1;
        for (i = 0; i < sizeof ints / sizeof ints[0]; i++) {
            for (o = 0; o < sizeof int_ops / sizeof int_ops[0]; o++) all &= op_maps(int_ops[o], ints[i], int_kernel_ops[o]);
            all &= op_unmapped(MPI_MINLOC, ints[i]) && op_unmapped(MPI_MAXLOC, ints[i]);
        }
        CHECK(all);
    }
    /* bytes: bitwise only; bools: logical only */
    CHECK(op_maps(MPI_BAND, MCOLL_BYTE, MCOLL_BAND) && op_maps(MPI_BOR, MCOLL_BYTE, MCOLL_BOR) &&
          op_maps(MPI_BXOR, MCOLL_BYTE, MCOLL_BXOR));
    CHECK(op_unmapped(MPI_SUM, MCOLL_BYTE) && op_unmapped(MPI_MAX, MCOLL_BYTE) && op_unmapped(MPI_LAND, MCOLL_BYTE));
    CHECK(op_maps(MPI_LAND, MCOLL_BOOL, MCOLL_LAND) && op_maps(MPI_LOR, MCOLL_BOOL, MCOLL_LOR) &&
          op_maps(MPI_LXOR, MCOLL_BOOL, MCOLL_LXOR));
    CHECK(op_unmapped(MPI_SUM, MCOLL_BOOL) && op_unmapped(MPI_BAND, MCOLL_BOOL) && op_unmapped(MPI_MAX, MCOLL_BOOL));
    /* complex: sums and products */
    CHECK(op_maps(MPI_SUM, MCOLL_CF32, MCOLL_SUM) && op_maps(MPI_PROD, MCOLL_CF64, MCOLL_PROD));
    CHECK(op_unmapped(MPI_MIN, MCOLL_CF32) && op_unmapped(MPI_MAX, MCOLL_CF64) && op_unmapped(MPI_BAND, MCOLL_CF32));
    CHECK(op_unmapped(MPI_LAND, MCOLL_CF64) && op_unmapped(MPI_MINLOC, MCOLL_CF32));
    /* pairs: MINLOC and MAXLOC only; MINLOC and MAXLOC nowhere else */
    CHECK(op_maps(MPI_MINLOC, MCOLL_F64_I32, MCOLL_MINLOC) && op_maps(MPI_MAXLOC, MCOLL_I16_I32, MCOLL_MAXLOC));
    CHECK(op_maps(MPI_MAXLOC, MCOLL_F32_I32, MCOLL_MAXLOC) && op_maps(MPI_MINLOC, MCOLL_I32_I32, MCOLL_MINLOC) &&
          op_maps(MPI_MINLOC, MCOLL_I64_I32, MCOLL_MINLOC));
    CHECK(op_unmapped(MPI_SUM, MCOLL_F64_I32) && op_unmapped(MPI_MIN, MCOLL_I32_I32) && op_unmapped(MPI_BAND, MCOLL_I16_I32));
    CHECK(op_unmapped(MPI_MAXLOC, MCOLL_F32) && op_unmapped(MPI_MINLOC, MCOLL_BOOL));
    /* floats: no bitwise or logical ops */
    CHECK(op_unmapped(MPI_BAND, MCOLL_F32) && op_unmapped(MPI_BXOR, MCOLL_F16) && op_unmapped(MPI_LAND, MCOLL_F64));
    CHECK(op_unmapped(MPI_LOR, MCOLL_BF16) && op_unmapped(MPI_REPLACE, MCOLL_I32) && op_unmapped(MPI_NO_OP, MCOLL_I32));
    CHECK(op_unmapped(MPI_OP_NULL, MCOLL_I32) && op_unmapped(MPI_SUM, MCOLL_NUM_DTYPES));
    CHECK(strcmp(mcoll_dtype_name(MCOLL_BF16), "bfloat16") == 0 && strcmp(mcoll_op_name(MCOLL_BXOR), "bxor") == 0);
    CHECK(strcmp(mcoll_dtype_name(MCOLL_I16_I32), "short_int") == 0 && strcmp(mcoll_op_name(MCOLL_MAXLOC), "maxloc") == 0);

    /* The multimem table: only pairs the ISA reduces, never outside the kernels' table */
    CHECK(!mcoll_multimem_supports(MCOLL_I8, MCOLL_SUM) && !mcoll_multimem_supports(MCOLL_U16, MCOLL_MAX));
    CHECK(!mcoll_multimem_supports(MCOLL_BOOL, MCOLL_LOR) && !mcoll_multimem_supports(MCOLL_I32, MCOLL_LAND));
    CHECK(!mcoll_multimem_supports(MCOLL_CF32, MCOLL_PROD) && !mcoll_multimem_supports(MCOLL_F64_I32, MCOLL_MINLOC));
    CHECK(!mcoll_multimem_supports(MCOLL_BYTE, MCOLL_SUM) && !mcoll_multimem_supports(MCOLL_F32, MCOLL_MIN));
    {
        int d, o, inside = 1;
        for (d = 0; d < MCOLL_NUM_DTYPES; d++)
            for (o = 0; o < MCOLL_NUM_OPS; o++)
                if (mcoll_multimem_supports((mcoll_dtype)d, (mcoll_op)o) && !mcoll_reduce_supported((mcoll_dtype)d, (mcoll_op)o))
                    inside = 0;
        CHECK(inside);
    }

    /* The 16-bit float handles: committed 2-byte types with their names */
    CHECK(MCOLL_FLOAT16 != MPI_DATATYPE_NULL && MCOLL_BFLOAT16 != MPI_DATATYPE_NULL);
    MPI_Type_size(MCOLL_FLOAT16, &size);
    CHECK(size == 2);
    MPI_Type_get_name(MCOLL_BFLOAT16, name, &len);
    CHECK(strcmp(name, "MCOLL_BFLOAT16") == 0);
    CHECK(mcoll_type_is_committed(MCOLL_FLOAT16));

    /* The plug-in's table of predefined types, read from the MPI */
    CHECK(mcoll_typeinfo_lookup(MPI_DOUBLE) && mcoll_typeinfo_lookup(MPI_DOUBLE)->size == 8);
    CHECK(strcmp(mcoll_typeinfo_lookup(MPI_INT)->name, "MPI_INT") == 0);
    CHECK(mcoll_typeinfo_lookup(MPI_LONG)->size == (int)sizeof(long));
    CHECK(mcoll_typeinfo_lookup(contig) == NULL && mcoll_typeinfo_lookup(MPI_DATATYPE_NULL) == NULL);
    CHECK(has_op(MPI_FLOAT, MCOLL_OPI_SUM) && has_op(MPI_FLOAT, MCOLL_OPI_MAX) && !has_op(MPI_FLOAT, MCOLL_OPI_BAND));
    CHECK(has_op(MPI_INT, MCOLL_OPI_BXOR) && has_op(MPI_INT, MCOLL_OPI_LAND) && !has_op(MPI_INT, MCOLL_OPI_MAXLOC));
    CHECK(has_op(MPI_2INT, MCOLL_OPI_MAXLOC) && has_op(MPI_DOUBLE_INT, MCOLL_OPI_MINLOC) && !has_op(MPI_2INT, MCOLL_OPI_SUM));
    CHECK(has_op(MPI_C_BOOL, MCOLL_OPI_LXOR) && !has_op(MPI_C_BOOL, MCOLL_OPI_SUM));
    CHECK(has_op(MPI_C_DOUBLE_COMPLEX, MCOLL_OPI_PROD) && !has_op(MPI_C_DOUBLE_COMPLEX, MCOLL_OPI_MAX));
    CHECK(!has_op(MPI_INT, MCOLL_OPI_REPLACE) && !has_op(MPI_INT, MCOLL_OPI_NO_OP));
    CHECK(has_op(MCOLL_FLOAT16, MCOLL_OPI_SUM) && has_op(MCOLL_BFLOAT16, MCOLL_OPI_MIN) && !has_op(MCOLL_FLOAT16, MCOLL_OPI_BAND));
    /* ... and the kernels' columns of the same rows, filled from the kernel mapping */
    CHECK(mcoll_typeinfo_lookup(MPI_FLOAT)->kernel == MCOLL_F32 && mcoll_typeinfo_lookup(MPI_LONG_DOUBLE)->kernel == -1);
    CHECK(mcoll_typeinfo_lookup(MPI_FLOAT)->kernel_op[MCOLL_OPI_SUM] == MCOLL_SUM);
    CHECK(mcoll_typeinfo_lookup(MPI_FLOAT)->kernel_op[MCOLL_OPI_BAND] == -1);
    CHECK(mcoll_typeinfo_lookup(MPI_FLOAT)->kernel_op[MCOLL_OPI_LAND] == -1);
    CHECK(mcoll_typeinfo_lookup(MPI_INT)->kernel_op[MCOLL_OPI_BXOR] == MCOLL_BXOR);
    CHECK(mcoll_typeinfo_lookup(MPI_2INT)->kernel_op[MCOLL_OPI_MAXLOC] == MCOLL_MAXLOC);
    CHECK(mcoll_typeinfo_lookup(MPI_2INT)->kernel_op[MCOLL_OPI_SUM] == -1);
    CHECK(mcoll_typeinfo_lookup(MCOLL_FLOAT16)->kernel == MCOLL_F16);
    CHECK(((mcoll_typeinfo_lookup(MPI_FLOAT)->multimem_ops >> MCOLL_OPI_SUM) & 1u) ==
          (unsigned)mcoll_multimem_supports(MCOLL_F32, MCOLL_SUM));
    CHECK(!((mcoll_typeinfo_lookup(MPI_DOUBLE)->multimem_ops >> MCOLL_OPI_PROD) & 1u));
    CHECK(mcoll_typeinfo_lookup(MPI_INT)->dense && !mcoll_typeinfo_lookup(MPI_DOUBLE_INT)->dense);
    CHECK(mcoll_op_index(MPI_SUM) == MCOLL_OPI_SUM && mcoll_op_index(MPI_MINLOC) == MCOLL_OPI_MINLOC);
    CHECK(mcoll_op_index(MPI_OP_NULL) == -1 && strcmp(mcoll_op_text(MPI_BOR), "MPI_BOR") == 0);
    /* Derived types are answered by the MPI: committed or not, built-in op or not */
    CHECK(mcoll_type_is_committed(contig));
    CHECK(!mcoll_op_accepts(MPI_SUM, MCOLL_OPI_SUM, contig, NULL)); /* Open MPI: built-in ops take predefined types only */
    CHECK(mcoll_op_accepts(MPI_SUM, MCOLL_OPI_SUM, MPI_FLOAT, mcoll_typeinfo_lookup(MPI_FLOAT)));
    CHECK(!mcoll_op_accepts(MPI_BAND, MCOLL_OPI_BAND, MPI_FLOAT, mcoll_typeinfo_lookup(MPI_FLOAT)));
    {
        MPI_Datatype loose;
        MPI_Type_contiguous(3, MPI_INT, &loose);
        CHECK(!mcoll_type_is_committed(loose));
        MPI_Type_free(&loose);
    }

    /* Op translation for the 16-bit floats only */
    CHECK(mcoll_half_op(MCOLL_FLOAT16, MPI_SUM) != MPI_SUM && mcoll_half_op(MCOLL_FLOAT16, MPI_SUM) != MPI_OP_NULL);
    CHECK(mcoll_half_op(MCOLL_BFLOAT16, MPI_MAX) != MPI_MAX);
    CHECK(mcoll_half_op(MCOLL_FLOAT16, MPI_BAND) == MPI_BAND);
    CHECK(mcoll_half_op(MPI_FLOAT, MPI_SUM) == MPI_SUM);
    CHECK(mcoll_half_op(MPI_DATATYPE_NULL, MPI_SUM) == MPI_SUM);

    MPI_Type_free(&contig);
    MPI_Finalize();
    /* Freed with everything else inside MPI_Finalize */
    CHECK(MCOLL_FLOAT16 == MPI_DATATYPE_NULL && MCOLL_BFLOAT16 == MPI_DATATYPE_NULL);
    return unit_exit("test_dtype");
}
