/* The table of predefined datatypes and built-in ops (see typeinfo.h). */
#include <stdint.h>
#include <string.h>
#include "typeinfo.h"
#include "dtype.h"
#include "log.h"
#include "mcoll.h"

#define TABLE_SLOTS 256 /* power of two, well above the number of predefined types */

typedef struct { MPI_Datatype type; const char *name; } named_type;
typedef struct { MPI_Op op; const char *name; } named_op;

#define T(x) {x, #x}
static const named_type predefined[] = {
    T(MPI_CHAR), T(MPI_SIGNED_CHAR), T(MPI_UNSIGNED_CHAR), T(MPI_BYTE), T(MPI_WCHAR), T(MPI_SHORT),
    T(MPI_UNSIGNED_SHORT), T(MPI_INT), T(MPI_UNSIGNED), T(MPI_LONG), T(MPI_UNSIGNED_LONG),
    T(MPI_LONG_LONG_INT), T(MPI_LONG_LONG), T(MPI_UNSIGNED_LONG_LONG), T(MPI_FLOAT), T(MPI_DOUBLE),
    T(MPI_LONG_DOUBLE), T(MPI_INT8_T), T(MPI_INT16_T), T(MPI_INT32_T), T(MPI_INT64_T), T(MPI_UINT8_T),
    T(MPI_UINT16_T), T(MPI_UINT32_T), T(MPI_UINT64_T), T(MPI_C_BOOL), T(MPI_C_COMPLEX),
    T(MPI_C_FLOAT_COMPLEX), T(MPI_C_DOUBLE_COMPLEX), T(MPI_C_LONG_DOUBLE_COMPLEX), T(MPI_AINT),
    T(MPI_OFFSET), T(MPI_COUNT), T(MPI_PACKED), T(MPI_FLOAT_INT), T(MPI_DOUBLE_INT), T(MPI_LONG_INT),
    T(MPI_2INT), T(MPI_SHORT_INT), T(MPI_LONG_DOUBLE_INT),
    /* Fortran types, as MPI_Type_f2c gives them to the Fortran entry points */
    T(MPI_CHARACTER), T(MPI_LOGICAL), T(MPI_INTEGER), T(MPI_REAL), T(MPI_DOUBLE_PRECISION),
    T(MPI_COMPLEX), T(MPI_DOUBLE_COMPLEX), T(MPI_2REAL), T(MPI_2DOUBLE_PRECISION), T(MPI_2INTEGER),
#ifdef MPI_INTEGER1
    T(MPI_INTEGER1),
#endif
#ifdef MPI_INTEGER2
    T(MPI_INTEGER2),
#endif
#ifdef MPI_INTEGER4
    T(MPI_INTEGER4),
#endif
#ifdef MPI_INTEGER8
    T(MPI_INTEGER8),
#endif
#ifdef MPI_INTEGER16
    T(MPI_INTEGER16),
#endif
#ifdef MPI_REAL2
    T(MPI_REAL2),
#endif
#ifdef MPI_REAL4
    T(MPI_REAL4),
#endif
#ifdef MPI_REAL8
    T(MPI_REAL8),
#endif
#ifdef MPI_REAL16
    T(MPI_REAL16),
#endif
#ifdef MPI_COMPLEX8
    T(MPI_COMPLEX8),
#endif
#ifdef MPI_COMPLEX16
    T(MPI_COMPLEX16),
#endif
#ifdef MPI_COMPLEX32
    T(MPI_COMPLEX32),
#endif
#ifdef MPI_LOGICAL1
    T(MPI_LOGICAL1),
#endif
#ifdef MPI_LOGICAL2
    T(MPI_LOGICAL2),
#endif
#ifdef MPI_LOGICAL4
    T(MPI_LOGICAL4),
#endif
#ifdef MPI_LOGICAL8
    T(MPI_LOGICAL8),
#endif
#ifdef MPI_CXX_BOOL
    T(MPI_CXX_BOOL), T(MPI_CXX_FLOAT_COMPLEX), T(MPI_CXX_DOUBLE_COMPLEX), T(MPI_CXX_LONG_DOUBLE_COMPLEX),
#endif
};

/* In the order of the MCOLL_OPI_* indices. */
static const named_op builtin_ops[MCOLL_NUM_BUILTIN_OPS] = {
    {MPI_MAX, "MPI_MAX"}, {MPI_MIN, "MPI_MIN"}, {MPI_SUM, "MPI_SUM"}, {MPI_PROD, "MPI_PROD"},
    {MPI_LAND, "MPI_LAND"}, {MPI_BAND, "MPI_BAND"}, {MPI_LOR, "MPI_LOR"}, {MPI_BOR, "MPI_BOR"},
    {MPI_LXOR, "MPI_LXOR"}, {MPI_BXOR, "MPI_BXOR"}, {MPI_MAXLOC, "MPI_MAXLOC"},
    {MPI_MINLOC, "MPI_MINLOC"}, {MPI_REPLACE, "MPI_REPLACE"}, {MPI_NO_OP, "MPI_NO_OP"},
};
#undef T

static mcoll_type_info table[TABLE_SLOTS];
static int table_used;
/* Errors on this communicator return instead of reaching the user's error handlers. */
static MPI_Comm probe_comm = MPI_COMM_NULL;

static size_t slot_of(MPI_Datatype type)
{
    uintptr_t bits = 0;
    memcpy(&bits, &type, sizeof type < sizeof bits ? sizeof type : sizeof bits);
    bits ^= bits >> 17;
    return (size_t)((bits * (uintptr_t)0x9E3779B97F4A7C15ull) >> 8) & (TABLE_SLOTS - 1);
}

const mcoll_type_info *mcoll_typeinfo_lookup(MPI_Datatype type)
{
    size_t i = slot_of(type), n;
    for (n = 0; n < TABLE_SLOTS; n++, i = (i + 1) & (TABLE_SLOTS - 1)) {
        if (!table[i].name) return NULL;
        if (table[i].type == type) return &table[i];
    }
    return NULL;
}

/* Ask the MPI whether `op` applies to `type`: a count-0 reduction checks its arguments and
 * moves nothing. */
static int probe_op(MPI_Op op, MPI_Datatype type)
{
    char in = 0, out = 0;
    return PMPI_Allreduce(&in, &out, 0, type, op, probe_comm) == MPI_SUCCESS;
}

/* The kernels' columns of a row: which kernel reduces the type with each built-in op, and
 * whether multimem does it in the switch. */
static void add_kernels(mcoll_type_info *row)
{
    mcoll_dtype dt;
    mcoll_op op;
    int o;
    row->kernel = mcoll_dtype_from_mpi(row->type, &dt) == 0 ? (int)dt : -1;
    for (o = 0; o < MCOLL_NUM_BUILTIN_OPS; o++) {
        row->kernel_op[o] = -1;
        if (row->kernel < 0 || mcoll_op_from_mpi(builtin_ops[o].op, dt, &op) != 0) continue;
        row->kernel_op[o] = (signed char)op;
        if (mcoll_multimem_supports(dt, op)) row->multimem_ops |= 1u << o;
    }
}

static void add(MPI_Datatype type, const char *name, unsigned ops)
{
    size_t i = slot_of(type);
    int size = 0;
    MPI_Aint lb, extent, true_lb, true_extent;
    if (type == MPI_DATATYPE_NULL || mcoll_typeinfo_lookup(type)) return; /* aliases: one entry */
    if (table_used + 1 >= TABLE_SLOTS / 2) return;                         /* not reached */
    if (PMPI_Type_size(type, &size) != MPI_SUCCESS || PMPI_Type_get_extent(type, &lb, &extent) != MPI_SUCCESS ||
        PMPI_Type_get_true_extent(type, &true_lb, &true_extent) != MPI_SUCCESS)
        return;
    while (table[i].name) i = (i + 1) & (TABLE_SLOTS - 1);
    table[i].type = type;
    table[i].name = name;
    table[i].size = size;
    table[i].extent = extent;
    table[i].true_lb = true_lb;
    table[i].true_extent = true_extent;
    table[i].dense = (MPI_Aint)size == extent && extent == true_extent && true_lb == 0;
    table[i].ops = ops;
    add_kernels(&table[i]);
    table_used++;
}

int mcoll_typeinfo_init(void)
{
    size_t t;
    int o;
    if (PMPI_Comm_dup(MPI_COMM_SELF, &probe_comm) != MPI_SUCCESS) return MCOLL_ERR_MPI;
    PMPI_Comm_set_errhandler(probe_comm, MPI_ERRORS_RETURN);
    PMPI_Comm_set_name(probe_comm, "mcoll probe");
    for (t = 0; t < sizeof predefined / sizeof predefined[0]; t++) {
        unsigned ops = 0;
        if (predefined[t].type == MPI_DATATYPE_NULL) continue;
        for (o = 0; o < MCOLL_NUM_BUILTIN_OPS; o++)
            if (probe_op(builtin_ops[o].op, predefined[t].type)) ops |= 1u << o;
        add(predefined[t].type, predefined[t].name, ops);
    }
    /* The 16-bit floats: mcoll supplies SUM, PROD, MIN and MAX for them. */
    add(MCOLL_FLOAT16, "MCOLL_FLOAT16", 1u << MCOLL_OPI_SUM | 1u << MCOLL_OPI_PROD | 1u << MCOLL_OPI_MIN | 1u << MCOLL_OPI_MAX);
    add(MCOLL_BFLOAT16, "MCOLL_BFLOAT16", 1u << MCOLL_OPI_SUM | 1u << MCOLL_OPI_PROD | 1u << MCOLL_OPI_MIN | 1u << MCOLL_OPI_MAX);
    MCOLL_TRACE("datatype table: %d predefined types", table_used);
    return MCOLL_SUCCESS;
}

void mcoll_typeinfo_finalize(void)
{
    memset(table, 0, sizeof table);
    table_used = 0;
    if (probe_comm != MPI_COMM_NULL) PMPI_Comm_free(&probe_comm);
}

int mcoll_op_index(MPI_Op op)
{
    int i;
    for (i = 0; i < MCOLL_NUM_BUILTIN_OPS; i++)
        if (builtin_ops[i].op == op) return i;
    return -1;
}

const char *mcoll_op_text(MPI_Op op)
{
    int i = mcoll_op_index(op);
    return i < 0 ? "user op" : builtin_ops[i].name;
}

int mcoll_type_is_committed(MPI_Datatype type)
{
    /* A send to MPI_PROC_NULL checks the datatype (committed included) and moves nothing. */
    if (type == MPI_DATATYPE_NULL || probe_comm == MPI_COMM_NULL) return 0;
    return PMPI_Send(NULL, 0, type, MPI_PROC_NULL, 0, probe_comm) == MPI_SUCCESS;
}

int mcoll_op_accepts(MPI_Op op, int opi, MPI_Datatype type, const mcoll_type_info *info)
{
    if (opi < 0) return 1;
    if (info) return (info->ops >> opi) & 1u;
    return probe_comm != MPI_COMM_NULL && probe_op(op, type);
}
