/* Datatype and op tables: the kernels' mapping (mcoll_dtype_from_mpi / mcoll_op_from_mpi), the
 * plug-in's table of predefined types (sizes, which built-in op applies), the 16-bit float
 * handles, and the op translation for them. Runs after MPI_Init as a singleton; MPI_Init and
 * MPI_Finalize are mcoll's wrappers (this program links the library statically). */
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

    /* Kernel mapping */
    CHECK(maps(MPI_FLOAT, MCOLL_F32) && maps(MPI_DOUBLE, MCOLL_F64));
    CHECK(maps(MCOLL_FLOAT16, MCOLL_F16) && maps(MCOLL_BFLOAT16, MCOLL_BF16));
    CHECK(maps(MPI_INT, MCOLL_I32) && maps(MPI_INT32_T, MCOLL_I32) && maps(MPI_UNSIGNED, MCOLL_U32));
    CHECK(maps(MPI_INT64_T, MCOLL_I64) && maps(MPI_UINT64_T, MCOLL_U64) && maps(MPI_LONG_LONG, MCOLL_I64));
    CHECK(maps(MPI_LONG, sizeof(long) == 8 ? MCOLL_I64 : MCOLL_I32));
    CHECK(maps(MPI_UNSIGNED_LONG, sizeof(long) == 8 ? MCOLL_U64 : MCOLL_U32));
    CHECK(maps(MPI_REAL, MCOLL_F32) && maps(MPI_DOUBLE_PRECISION, MCOLL_F64) && maps(MPI_INTEGER, MCOLL_I32));
    CHECK(unmapped(MPI_CHAR) && unmapped(MPI_SHORT) && unmapped(MPI_UNSIGNED_CHAR) && unmapped(MPI_INT8_T));
    CHECK(unmapped(MPI_INT16_T) && unmapped(MPI_LONG_DOUBLE) && unmapped(MPI_C_BOOL) && unmapped(MPI_2INT));
    CHECK(unmapped(MPI_DOUBLE_INT) && unmapped(MPI_C_FLOAT_COMPLEX) && unmapped(MPI_BYTE) && unmapped(MPI_DATATYPE_NULL));
    MPI_Type_contiguous(4, MPI_FLOAT, &contig);
    MPI_Type_commit(&contig);
    CHECK(unmapped(contig));
    CHECK(op_maps(MPI_SUM, MCOLL_F32, MCOLL_SUM) && op_maps(MPI_PROD, MCOLL_F64, MCOLL_PROD));
    CHECK(op_maps(MPI_MIN, MCOLL_F16, MCOLL_MIN) && op_maps(MPI_MAX, MCOLL_BF16, MCOLL_MAX));
    CHECK(op_maps(MPI_BAND, MCOLL_I32, MCOLL_BAND) && op_maps(MPI_BOR, MCOLL_U64, MCOLL_BOR));
    CHECK(op_maps(MPI_BXOR, MCOLL_I64, MCOLL_BXOR));
    CHECK(op_unmapped(MPI_BAND, MCOLL_F32) && op_unmapped(MPI_BXOR, MCOLL_F16));
    CHECK(op_unmapped(MPI_LAND, MCOLL_I32) && op_unmapped(MPI_MAXLOC, MCOLL_F32) && op_unmapped(MPI_REPLACE, MCOLL_I32));
    CHECK(strcmp(mcoll_dtype_name(MCOLL_BF16), "bfloat16") == 0 && strcmp(mcoll_op_name(MCOLL_BXOR), "bxor") == 0);

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
    CHECK(mcoll_op_index(MPI_SUM) == MCOLL_OPI_SUM && mcoll_op_index(MPI_MINLOC) == MCOLL_OPI_MINLOC);
    CHECK(mcoll_op_index(MPI_OP_NULL) == -1 && strcmp(mcoll_op_text(MPI_BOR), "MPI_BOR") == 0);
    /* Derived types are answered by the MPI: committed or not, built-in op or not */
    CHECK(mcoll_type_is_committed(contig));
    CHECK(!mcoll_op_accepts(MPI_SUM, contig)); /* Open MPI: built-in ops take predefined types only */
    CHECK(mcoll_op_accepts(MPI_SUM, MPI_FLOAT) && !mcoll_op_accepts(MPI_BAND, MPI_FLOAT));
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
