/* The datatypes and ops under test, their MPI handles, and element access on the host.
 *
 * Host values (tvalue): floating types as double (exact for every 16/32/64-bit float),
 * integers as their bits in a uint64_t, sign-extended for signed types; complex numbers as f
 * (real) and im (imaginary); MINLOC/MAXLOC pairs as their value (f or u, as the value's type)
 * and k (the index). Pairs are the C structs {value; int}: their padding bytes are stored as
 * TYPE_PAD_BYTE and never read. */
#ifndef GPU_TYPES_H
#define GPU_TYPES_H

#include <stddef.h>
#include <stdint.h>
#include <mpi.h>

/* int8 MPI_SIGNED_CHAR, uint8 MPI_UINT8_T, int16 MPI_SHORT, uint16 MPI_UNSIGNED_SHORT,
 * int32/uint32 MPI_INT/MPI_UNSIGNED, int64/uint64 MPI_INT64_T/MPI_UINT64_T, byte MPI_BYTE,
 * bool MPI_C_BOOL, cfloat/cdouble MPI_C_FLOAT_COMPLEX/MPI_C_DOUBLE_COMPLEX, the pairs
 * MPI_FLOAT_INT, MPI_DOUBLE_INT, MPI_LONG_INT, MPI_2INT, MPI_SHORT_INT; long/ulong are
 * MPI_LONG/MPI_UNSIGNED_LONG and char MPI_CHAR. */
typedef enum {
    TT_FLOAT, TT_DOUBLE, TT_FLOAT16, TT_BFLOAT16, TT_INT32, TT_UINT32, TT_INT64, TT_UINT64,
    TT_INT8, TT_UINT8, TT_INT16, TT_UINT16, TT_BYTE, TT_BOOL, TT_CFLOAT, TT_CDOUBLE,
    TT_FLOAT_INT, TT_DOUBLE_INT, TT_LONG_INT, TT_2INT, TT_SHORT_INT,
    TT_LONG, TT_ULONG, TT_CHAR, /* the same kernels under a second MPI handle */
    TT_AINT                     /* not reduced by the engines (MPI_AINT): a fallback type */
} type_id;

/* FMT_INT covers bytes and bools too. */
typedef enum { FMT_F32, FMT_F64, FMT_F16, FMT_BF16, FMT_INT, FMT_CF32, FMT_CF64, FMT_PAIR } type_format;

typedef struct {
    type_id id;
    const char *name;    /* as it appears in case names */
    size_t size;         /* bytes per element: the C layout, MPI's extent */
    type_format format;
    int is_signed;       /* integers; pairs: of the value */
    int alias;           /* 1: another handle for a type already covered */
    unsigned ops;        /* bit op_id: the ops MPI defines on it */
    type_format value;   /* pairs: the value's format (FMT_F32, FMT_F64, FMT_INT) */
    size_t value_size;   /* pairs: the value's bytes (the index follows at the next 4 or 8) */
} test_type;

#define TYPE_PAD_BYTE 0xA5

/* The types the engines reduce (aliases last). */
extern const test_type reducible_types[];
extern const size_t num_reducible_types;

const test_type *type_get(type_id id);
MPI_Datatype type_mpi(const test_type *t);   /* call after MPI_Init (MCOLL_FLOAT16 is made there) */
int type_is_float(const test_type *t);       /* the real floating types */
int type_is_compound(const test_type *t);    /* complex numbers and pairs: one element at a time */
uint64_t type_mask(const test_type *t);       /* all bits of an integer element (pairs: of the value) */
double type_unit_roundoff(const test_type *t); /* 2^-p of the (real part's) type */
size_t type_index_offset(const test_type *t); /* pairs: where the index starts */
size_t type_data_end(const test_type *t);     /* bytes up to the end of an element's data */

typedef struct {
    double f;   /* floating types, the real part, a pair's floating value */
    uint64_t u; /* integer types, a pair's integer value */
    double im;  /* the imaginary part */
    int32_t k;  /* a pair's index */
} tvalue;

tvalue type_load(const test_type *t, const void *buf, size_t i);
void type_store(const test_type *t, void *buf, size_t i, tvalue v);
/* The same for `count` elements of a real or integer type at once: floating types use f[],
 * integers u[] (the other array may be NULL). These are the loops the large cases spend their
 * time in. Compound types go one element at a time (type_load, type_store). */
void type_load_many(const test_type *t, const void *buf, size_t count, double *f, uint64_t *u);
void type_store_many(const test_type *t, void *buf, size_t count, const double *f, const uint64_t *u);
/* The value `x` becomes when stored as `t` (rounded to nearest; complex: as a part). */
double type_round(const test_type *t, double x);
/* Text for a value: the number and the raw bits. */
void type_format_value(const test_type *t, tvalue v, char *buf, size_t len);

typedef enum { OP_SUM, OP_PROD, OP_MIN, OP_MAX, OP_BAND, OP_BOR, OP_BXOR, OP_LAND, OP_LOR, OP_LXOR, OP_MINLOC, OP_MAXLOC } op_id;

typedef struct {
    op_id id;
    const char *name;
} test_op;

extern const test_op test_ops[];
extern const size_t num_test_ops;

const test_op *op_get(op_id id);
MPI_Op op_mpi(const test_op *op);
/* 1 when MPI defines `op` on `t` (t->ops). */
int op_applies(const test_op *op, const test_type *t);

#endif /* GPU_TYPES_H */
