/* The datatypes and ops under test, their MPI handles, and element access on the host.
 *
 * Host values: floating types as double (exact for every 16/32/64-bit float), integers as their
 * bits in a uint64_t, sign-extended for signed types. */
#ifndef GPU_TYPES_H
#define GPU_TYPES_H

#include <stddef.h>
#include <stdint.h>
#include <mpi.h>

/* int32/uint32 are MPI_INT/MPI_UNSIGNED, int64/uint64 are MPI_INT64_T/MPI_UINT64_T, and
 * long/ulong are MPI_LONG/MPI_UNSIGNED_LONG. */
typedef enum {
    TT_FLOAT, TT_DOUBLE, TT_FLOAT16, TT_BFLOAT16, TT_INT32, TT_UINT32, TT_INT64, TT_UINT64,
    TT_LONG, TT_ULONG,   /* the same kernels under a second MPI handle */
    TT_BYTE, TT_INT16    /* not reduced by the engines: bytes for bcast/allgather, a fallback type */
} type_id;

typedef enum { FMT_F32, FMT_F64, FMT_F16, FMT_BF16, FMT_INT } type_format;

typedef struct {
    type_id id;
    const char *name;    /* as it appears in case names */
    size_t size;
    type_format format;
    int is_signed;
    int alias;           /* 1: another handle for a type already covered */
} test_type;

/* The types the engines reduce (aliases last). */
extern const test_type reducible_types[];
extern const size_t num_reducible_types;

const test_type *type_get(type_id id);
MPI_Datatype type_mpi(const test_type *t);   /* call after MPI_Init (MCOLL_FLOAT16 is made there) */
int type_is_float(const test_type *t);
uint64_t type_mask(const test_type *t);       /* all bits of an integer element */
double type_unit_roundoff(const test_type *t); /* 2^-p: half the distance from 1 to the next value */

typedef struct {
    double f;   /* floating types */
    uint64_t u; /* integer types */
} tvalue;

tvalue type_load(const test_type *t, const void *buf, size_t i);
void type_store(const test_type *t, void *buf, size_t i, tvalue v);
/* The same for `count` elements at once: floating types use f[], integers u[] (the other array
 * may be NULL). These are the loops the large cases spend their time in. */
void type_load_many(const test_type *t, const void *buf, size_t count, double *f, uint64_t *u);
void type_store_many(const test_type *t, void *buf, size_t count, const double *f, const uint64_t *u);
/* The value `x` becomes when stored as `t` (rounded to nearest). */
double type_round(const test_type *t, double x);
/* Text for a value: the number and the raw bits. */
void type_format_value(const test_type *t, tvalue v, char *buf, size_t len);

typedef enum { OP_SUM, OP_PROD, OP_MIN, OP_MAX, OP_BAND, OP_BOR, OP_BXOR } op_id;

typedef struct {
    op_id id;
    const char *name;
    int bitwise;
} test_op;

extern const test_op test_ops[];
extern const size_t num_test_ops;

const test_op *op_get(op_id id);
MPI_Op op_mpi(const test_op *op);
/* 1 when MPI defines `op` on `t` (bitwise ops on integers only). */
int op_applies(const test_op *op, const test_type *t);

#endif /* GPU_TYPES_H */
