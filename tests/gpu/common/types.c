/* Datatypes and ops under test; see types.h. */
#include <stdio.h>
#include <string.h>
#include "half.h"
#include "mcoll.h"
#include "types.h"

const test_type reducible_types[] = {
    {TT_FLOAT, "float", 4, FMT_F32, 1, 0},
    {TT_DOUBLE, "double", 8, FMT_F64, 1, 0},
    {TT_FLOAT16, "float16", 2, FMT_F16, 1, 0},
    {TT_BFLOAT16, "bfloat16", 2, FMT_BF16, 1, 0},
    {TT_INT32, "int32", sizeof(int), FMT_INT, 1, 0},
    {TT_UINT32, "uint32", sizeof(unsigned), FMT_INT, 0, 0},
    {TT_INT64, "int64", 8, FMT_INT, 1, 0},
    {TT_UINT64, "uint64", 8, FMT_INT, 0, 0},
    {TT_LONG, "long", sizeof(long), FMT_INT, 1, 1},
    {TT_ULONG, "ulong", sizeof(unsigned long), FMT_INT, 0, 1},
};
const size_t num_reducible_types = sizeof reducible_types / sizeof reducible_types[0];

static const test_type other_types[] = {
    {TT_BYTE, "byte", 1, FMT_INT, 0, 0},
    {TT_INT16, "int16", 2, FMT_INT, 1, 0},
};

const test_op test_ops[] = {
    {OP_SUM, "sum", 0}, {OP_PROD, "prod", 0}, {OP_MIN, "min", 0}, {OP_MAX, "max", 0},
    {OP_BAND, "band", 1}, {OP_BOR, "bor", 1}, {OP_BXOR, "bxor", 1},
};
const size_t num_test_ops = sizeof test_ops / sizeof test_ops[0];

const test_type *type_get(type_id id)
{
    size_t i;
    for (i = 0; i < num_reducible_types; i++)
        if (reducible_types[i].id == id) return &reducible_types[i];
    for (i = 0; i < sizeof other_types / sizeof other_types[0]; i++)
        if (other_types[i].id == id) return &other_types[i];
    return NULL;
}

MPI_Datatype type_mpi(const test_type *t)
{
    switch (t->id) {
    case TT_FLOAT: return MPI_FLOAT;
    case TT_DOUBLE: return MPI_DOUBLE;
    case TT_FLOAT16: return MCOLL_FLOAT16;
    case TT_BFLOAT16: return MCOLL_BFLOAT16;
    case TT_INT32: return MPI_INT;
    case TT_UINT32: return MPI_UNSIGNED;
    case TT_INT64: return MPI_INT64_T;
    case TT_UINT64: return MPI_UINT64_T;
    case TT_LONG: return MPI_LONG;
    case TT_ULONG: return MPI_UNSIGNED_LONG;
    case TT_BYTE: return MPI_BYTE;
    case TT_INT16: return MPI_SHORT;
    }
    return MPI_DATATYPE_NULL;
}

int type_is_float(const test_type *t) { return t->format != FMT_INT; }

uint64_t type_mask(const test_type *t) { return t->size >= 8 ? ~(uint64_t)0 : ((uint64_t)1 << (8 * t->size)) - 1; }

double type_unit_roundoff(const test_type *t)
{
    switch (t->format) {
    case FMT_F32: return 0x1p-24;
    case FMT_F64: return 0x1p-53;
    case FMT_F16: return 0x1p-11;
    case FMT_BF16: return 0x1p-8;
    case FMT_INT: break;
    }
    return 0;
}

static uint64_t sign_extend(const test_type *t, uint64_t bits)
{
    uint64_t top;
    if (!t->is_signed || t->size >= 8) return bits;
    top = (uint64_t)1 << (8 * t->size - 1);
    return (bits ^ top) - top;
}

tvalue type_load(const test_type *t, const void *buf, size_t i)
{
    const unsigned char *p = (const unsigned char *)buf + i * t->size;
    tvalue v = {0, 0};
    uint8_t b8;
    uint16_t b16;
    uint32_t b32;
    uint64_t b64;
    float f;
    double d;

    switch (t->format) {
    case FMT_F32: memcpy(&f, p, 4); v.f = (double)f; return v;
    case FMT_F64: memcpy(&d, p, 8); v.f = d; return v;
    case FMT_F16: memcpy(&b16, p, 2); v.f = (double)half_to_float(b16); return v;
    case FMT_BF16: memcpy(&b16, p, 2); v.f = (double)bf16_to_float(b16); return v;
    case FMT_INT: break;
    }
    switch (t->size) {
    case 1: memcpy(&b8, p, 1); b64 = b8; break;
    case 2: memcpy(&b16, p, 2); b64 = b16; break;
    case 4: memcpy(&b32, p, 4); b64 = b32; break;
    default: memcpy(&b64, p, 8); break;
    }
    v.u = sign_extend(t, b64);
    return v;
}

void type_store(const test_type *t, void *buf, size_t i, tvalue v)
{
    unsigned char *p = (unsigned char *)buf + i * t->size;
    uint8_t b8;
    uint16_t b16;
    uint32_t b32;
    float f;

    switch (t->format) {
    case FMT_F32: f = (float)v.f; memcpy(p, &f, 4); return;
    case FMT_F64: memcpy(p, &v.f, 8); return;
    case FMT_F16: b16 = half_from_float((float)v.f); memcpy(p, &b16, 2); return;
    case FMT_BF16: b16 = bf16_from_float((float)v.f); memcpy(p, &b16, 2); return;
    case FMT_INT: break;
    }
    switch (t->size) {
    case 1: b8 = (uint8_t)v.u; memcpy(p, &b8, 1); break;
    case 2: b16 = (uint16_t)v.u; memcpy(p, &b16, 2); break;
    case 4: b32 = (uint32_t)v.u; memcpy(p, &b32, 4); break;
    default: memcpy(p, &v.u, 8); break;
    }
}

void type_load_many(const test_type *t, const void *buf, size_t count, double *f, uint64_t *u)
{
    const unsigned char *p = buf;
    size_t i;
    float x;
    double d;
    uint16_t h;
    uint32_t w;
    switch (t->format) {
    case FMT_F32: for (i = 0; i < count; i++) { memcpy(&x, p + 4 * i, 4); f[i] = (double)x; } return;
    case FMT_F64: for (i = 0; i < count; i++) { memcpy(&d, p + 8 * i, 8); f[i] = d; } return;
    case FMT_F16: for (i = 0; i < count; i++) { memcpy(&h, p + 2 * i, 2); f[i] = (double)half_to_float(h); } return;
    case FMT_BF16: for (i = 0; i < count; i++) { memcpy(&h, p + 2 * i, 2); f[i] = (double)bf16_to_float(h); } return;
    case FMT_INT: break;
    }
    if (t->size == 4) {
        for (i = 0; i < count; i++) {
            memcpy(&w, p + 4 * i, 4);
            u[i] = t->is_signed ? (uint64_t)(int64_t)(int32_t)w : w;
        }
    } else if (t->size == 8) {
        memcpy(u, p, 8 * count);
    } else {
        for (i = 0; i < count; i++) u[i] = type_load(t, buf, i).u;
    }
}

void type_store_many(const test_type *t, void *buf, size_t count, const double *f, const uint64_t *u)
{
    unsigned char *p = buf;
    size_t i;
    float x;
    uint16_t h;
    uint32_t w;
    tvalue v;
    switch (t->format) {
    case FMT_F32: for (i = 0; i < count; i++) { x = (float)f[i]; memcpy(p + 4 * i, &x, 4); } return;
    case FMT_F64: memcpy(p, f, 8 * count); return;
    case FMT_F16: for (i = 0; i < count; i++) { h = half_from_float((float)f[i]); memcpy(p + 2 * i, &h, 2); } return;
    case FMT_BF16: for (i = 0; i < count; i++) { h = bf16_from_float((float)f[i]); memcpy(p + 2 * i, &h, 2); } return;
    case FMT_INT: break;
    }
    if (t->size == 4) {
        for (i = 0; i < count; i++) { w = (uint32_t)u[i]; memcpy(p + 4 * i, &w, 4); }
    } else if (t->size == 8) {
        memcpy(p, u, 8 * count);
    } else {
        for (i = 0; i < count; i++) { v.f = 0; v.u = u[i]; type_store(t, buf, i, v); }
    }
}

double type_round(const test_type *t, double x)
{
    switch (t->format) {
    case FMT_F32: return (double)(float)x;
    case FMT_F16: return (double)half_to_float(half_from_float((float)x));
    case FMT_BF16: return (double)bf16_to_float(bf16_from_float((float)x));
    case FMT_F64:
    case FMT_INT: break;
    }
    return x;
}

void type_format_value(const test_type *t, tvalue v, char *buf, size_t len)
{
    unsigned char raw[8] = {0};
    uint64_t bits = 0;
    size_t i;
    type_store(t, raw, 0, v);
    for (i = t->size; i-- > 0;) bits = bits << 8 | raw[i];
    if (type_is_float(t)) snprintf(buf, len, "%.9g [0x%0*llx]", v.f, (int)(2 * t->size), (unsigned long long)bits);
    else if (t->is_signed) snprintf(buf, len, "%lld [0x%0*llx]", (long long)(int64_t)v.u, (int)(2 * t->size), (unsigned long long)bits);
    else snprintf(buf, len, "%llu [0x%0*llx]", (unsigned long long)(v.u & type_mask(t)), (int)(2 * t->size),
                  (unsigned long long)bits);
}

const test_op *op_get(op_id id)
{
    size_t i;
    for (i = 0; i < num_test_ops; i++)
        if (test_ops[i].id == id) return &test_ops[i];
    return NULL;
}

MPI_Op op_mpi(const test_op *op)
{
    switch (op->id) {
    case OP_SUM: return MPI_SUM;
    case OP_PROD: return MPI_PROD;
    case OP_MIN: return MPI_MIN;
    case OP_MAX: return MPI_MAX;
    case OP_BAND: return MPI_BAND;
    case OP_BOR: return MPI_BOR;
    case OP_BXOR: return MPI_BXOR;
    }
    return MPI_OP_NULL;
}

int op_applies(const test_op *op, const test_type *t) { return !op->bitwise || !type_is_float(t); }
