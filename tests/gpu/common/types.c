/* Datatypes and ops under test; see types.h. */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include "half.h"
#include "mcoll.h"
#include "types.h"

#define OPB(op) (1u << (op))
#define ARITH (OPB(OP_SUM) | OPB(OP_PROD))
#define ORDER (OPB(OP_MIN) | OPB(OP_MAX))
#define BITS (OPB(OP_BAND) | OPB(OP_BOR) | OPB(OP_BXOR))
#define LOGIC (OPB(OP_LAND) | OPB(OP_LOR) | OPB(OP_LXOR))
#define LOC (OPB(OP_MINLOC) | OPB(OP_MAXLOC))
#define INTS (ARITH | ORDER | BITS | LOGIC)

/* id, name, size, format, signed, alias, ops, pair value format, pair value size */
const test_type reducible_types[] = {
    {TT_FLOAT, "float", 4, FMT_F32, 1, 0, ARITH | ORDER, FMT_F32, 0},
    {TT_DOUBLE, "double", 8, FMT_F64, 1, 0, ARITH | ORDER, FMT_F64, 0},
    {TT_FLOAT16, "float16", 2, FMT_F16, 1, 0, ARITH | ORDER, FMT_F16, 0},
    {TT_BFLOAT16, "bfloat16", 2, FMT_BF16, 1, 0, ARITH | ORDER, FMT_BF16, 0},
    {TT_INT32, "int32", sizeof(int), FMT_INT, 1, 0, INTS, FMT_INT, 0},
    {TT_UINT32, "uint32", sizeof(unsigned), FMT_INT, 0, 0, INTS, FMT_INT, 0},
    {TT_INT64, "int64", 8, FMT_INT, 1, 0, INTS, FMT_INT, 0},
    {TT_UINT64, "uint64", 8, FMT_INT, 0, 0, INTS, FMT_INT, 0},
    {TT_INT8, "int8", 1, FMT_INT, 1, 0, INTS, FMT_INT, 0},
    {TT_UINT8, "uint8", 1, FMT_INT, 0, 0, INTS, FMT_INT, 0},
    {TT_INT16, "int16", sizeof(short), FMT_INT, 1, 0, INTS, FMT_INT, 0},
    {TT_UINT16, "uint16", sizeof(unsigned short), FMT_INT, 0, 0, INTS, FMT_INT, 0},
    {TT_BYTE, "byte", 1, FMT_INT, 0, 0, BITS, FMT_INT, 0},
    {TT_BOOL, "bool", sizeof(_Bool), FMT_INT, 0, 0, LOGIC, FMT_INT, 0},
    {TT_CFLOAT, "cfloat", 8, FMT_CF32, 1, 0, ARITH, FMT_F32, 0},
    {TT_CDOUBLE, "cdouble", 16, FMT_CF64, 1, 0, ARITH, FMT_F64, 0},
    {TT_FLOAT_INT, "float_int", sizeof(struct { float v; int k; }), FMT_PAIR, 1, 0, LOC, FMT_F32, sizeof(float)},
    {TT_DOUBLE_INT, "double_int", sizeof(struct { double v; int k; }), FMT_PAIR, 1, 0, LOC, FMT_F64, sizeof(double)},
    {TT_LONG_INT, "long_int", sizeof(struct { long v; int k; }), FMT_PAIR, 1, 0, LOC, FMT_INT, sizeof(long)},
    {TT_2INT, "2int", sizeof(struct { int v; int k; }), FMT_PAIR, 1, 0, LOC, FMT_INT, sizeof(int)},
    {TT_SHORT_INT, "short_int", sizeof(struct { short v; int k; }), FMT_PAIR, 1, 0, LOC, FMT_INT, sizeof(short)},
    {TT_LONG, "long", sizeof(long), FMT_INT, 1, 1, INTS, FMT_INT, 0},
    {TT_ULONG, "ulong", sizeof(unsigned long), FMT_INT, 0, 1, INTS, FMT_INT, 0},
    /* Open MPI takes MPI_CHAR with every integer op (MPI defines none on it) */
    {TT_CHAR, "char", 1, FMT_INT, CHAR_MIN < 0, 1, INTS, FMT_INT, 0},
};
const size_t num_reducible_types = sizeof reducible_types / sizeof reducible_types[0];

static const test_type other_types[] = {
    {TT_AINT, "aint", sizeof(MPI_Aint), FMT_INT, 1, 0, INTS, FMT_INT, 0},
};

const test_op test_ops[] = {
    {OP_SUM, "sum"}, {OP_PROD, "prod"}, {OP_MIN, "min"}, {OP_MAX, "max"}, {OP_BAND, "band"}, {OP_BOR, "bor"},
    {OP_BXOR, "bxor"}, {OP_LAND, "land"}, {OP_LOR, "lor"}, {OP_LXOR, "lxor"}, {OP_MINLOC, "minloc"},
    {OP_MAXLOC, "maxloc"},
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
    case TT_INT8: return MPI_SIGNED_CHAR;
    case TT_UINT8: return MPI_UINT8_T;
    case TT_INT16: return MPI_SHORT;
    case TT_UINT16: return MPI_UNSIGNED_SHORT;
    case TT_BYTE: return MPI_BYTE;
    case TT_BOOL: return MPI_C_BOOL;
    case TT_CFLOAT: return MPI_C_FLOAT_COMPLEX;
    case TT_CDOUBLE: return MPI_C_DOUBLE_COMPLEX;
    case TT_FLOAT_INT: return MPI_FLOAT_INT;
    case TT_DOUBLE_INT: return MPI_DOUBLE_INT;
    case TT_LONG_INT: return MPI_LONG_INT;
    case TT_2INT: return MPI_2INT;
    case TT_SHORT_INT: return MPI_SHORT_INT;
    case TT_LONG: return MPI_LONG;
    case TT_ULONG: return MPI_UNSIGNED_LONG;
    case TT_CHAR: return MPI_CHAR;
    case TT_AINT: return MPI_AINT;
    }
    return MPI_DATATYPE_NULL;
}

int type_is_float(const test_type *t) { return t->format <= FMT_BF16; }

int type_is_compound(const test_type *t) { return t->format >= FMT_CF32; }

uint64_t type_mask(const test_type *t)
{
    size_t bytes = t->format == FMT_PAIR ? t->value_size : t->size;
    return bytes >= 8 ? ~(uint64_t)0 : ((uint64_t)1 << (8 * bytes)) - 1;
}

double type_unit_roundoff(const test_type *t)
{
    switch (t->format) {
    case FMT_F32: case FMT_CF32: return 0x1p-24;
    case FMT_F64: case FMT_CF64: return 0x1p-53;
    case FMT_F16: return 0x1p-11;
    case FMT_BF16: return 0x1p-8;
    case FMT_INT: case FMT_PAIR: break;
    }
    return 0;
}

size_t type_index_offset(const test_type *t) { return t->value_size > 4 ? 8 : 4; }

size_t type_data_end(const test_type *t) { return t->format == FMT_PAIR ? type_index_offset(t) + 4 : t->size; }

static uint64_t sign_extend(int is_signed, size_t size, uint64_t bits)
{
    uint64_t top;
    if (!is_signed || size >= 8) return bits;
    top = (uint64_t)1 << (8 * size - 1);
    return (bits ^ top) - top;
}

/* An integer of `size` bytes at p, and back. */
static uint64_t load_int(const unsigned char *p, size_t size, int is_signed)
{
    uint8_t b8;
    uint16_t b16;
    uint32_t b32;
    uint64_t b64;
    switch (size) {
    case 1: memcpy(&b8, p, 1); b64 = b8; break;
    case 2: memcpy(&b16, p, 2); b64 = b16; break;
    case 4: memcpy(&b32, p, 4); b64 = b32; break;
    default: memcpy(&b64, p, 8); break;
    }
    return sign_extend(is_signed, size, b64);
}

static void store_int(unsigned char *p, size_t size, uint64_t v)
{
    uint8_t b8 = (uint8_t)v;
    uint16_t b16 = (uint16_t)v;
    uint32_t b32 = (uint32_t)v;
    switch (size) {
    case 1: memcpy(p, &b8, 1); break;
    case 2: memcpy(p, &b16, 2); break;
    case 4: memcpy(p, &b32, 4); break;
    default: memcpy(p, &v, 8); break;
    }
}

static double load_real(const unsigned char *p, type_format format)
{
    float f;
    double d;
    if (format == FMT_F32 || format == FMT_CF32) {
        memcpy(&f, p, 4);
        return (double)f;
    }
    memcpy(&d, p, 8);
    return d;
}

static void store_real(unsigned char *p, type_format format, double x)
{
    float f = (float)x;
    if (format == FMT_F32 || format == FMT_CF32) memcpy(p, &f, 4);
    else memcpy(p, &x, 8);
}

tvalue type_load(const test_type *t, const void *buf, size_t i)
{
    const unsigned char *p = (const unsigned char *)buf + i * t->size;
    tvalue v = {0, 0, 0, 0};
    uint16_t b16;

    switch (t->format) {
    case FMT_F32: case FMT_F64: v.f = load_real(p, t->format); return v;
    case FMT_F16: memcpy(&b16, p, 2); v.f = (double)half_to_float(b16); return v;
    case FMT_BF16: memcpy(&b16, p, 2); v.f = (double)bf16_to_float(b16); return v;
    case FMT_CF32: case FMT_CF64:
        v.f = load_real(p, t->format);
        v.im = load_real(p + t->size / 2, t->format);
        return v;
    case FMT_PAIR:
        if (t->value == FMT_INT) v.u = load_int(p, t->value_size, 1);
        else v.f = load_real(p, t->value);
        memcpy(&v.k, p + type_index_offset(t), 4);
        return v;
    case FMT_INT: break;
    }
    v.u = load_int(p, t->size, t->is_signed);
    return v;
}

void type_store(const test_type *t, void *buf, size_t i, tvalue v)
{
    unsigned char *p = (unsigned char *)buf + i * t->size;
    uint16_t b16;

    switch (t->format) {
    case FMT_F32: case FMT_F64: store_real(p, t->format, v.f); return;
    case FMT_F16: b16 = half_from_float((float)v.f); memcpy(p, &b16, 2); return;
    case FMT_BF16: b16 = bf16_from_float((float)v.f); memcpy(p, &b16, 2); return;
    case FMT_CF32: case FMT_CF64:
        store_real(p, t->format, v.f);
        store_real(p + t->size / 2, t->format, v.im);
        return;
    case FMT_PAIR:
        memset(p, TYPE_PAD_BYTE, t->size);
        if (t->value == FMT_INT) store_int(p, t->value_size, v.u);
        else store_real(p, t->value, v.f);
        memcpy(p + type_index_offset(t), &v.k, 4);
        return;
    case FMT_INT: break;
    }
    store_int(p, t->size, v.u);
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
    case FMT_CF32: case FMT_CF64: case FMT_PAIR: return; /* one at a time: type_load */
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
    tvalue v = {0, 0, 0, 0};
    switch (t->format) {
    case FMT_F32: for (i = 0; i < count; i++) { x = (float)f[i]; memcpy(p + 4 * i, &x, 4); } return;
    case FMT_F64: memcpy(p, f, 8 * count); return;
    case FMT_F16: for (i = 0; i < count; i++) { h = half_from_float((float)f[i]); memcpy(p + 2 * i, &h, 2); } return;
    case FMT_BF16: for (i = 0; i < count; i++) { h = bf16_from_float((float)f[i]); memcpy(p + 2 * i, &h, 2); } return;
    case FMT_INT: break;
    case FMT_CF32: case FMT_CF64: case FMT_PAIR: return; /* one at a time: type_store */
    }
    if (t->size == 4) {
        for (i = 0; i < count; i++) { w = (uint32_t)u[i]; memcpy(p + 4 * i, &w, 4); }
    } else if (t->size == 8) {
        memcpy(p, u, 8 * count);
    } else {
        for (i = 0; i < count; i++) { v.u = u[i]; type_store(t, buf, i, v); }
    }
}

double type_round(const test_type *t, double x)
{
    switch (t->format) {
    case FMT_F32: case FMT_CF32: return (double)(float)x;
    case FMT_F16: return (double)half_to_float(half_from_float((float)x));
    case FMT_BF16: return (double)bf16_to_float(bf16_from_float((float)x));
    case FMT_PAIR: return t->value == FMT_F32 ? (double)(float)x : x;
    case FMT_F64: case FMT_CF64: case FMT_INT: break;
    }
    return x;
}

void type_format_value(const test_type *t, tvalue v, char *buf, size_t len)
{
    unsigned char raw[16];
    uint64_t bits = 0;
    size_t i, n = t->size < 8 ? t->size : 8;
    memset(raw, 0, sizeof raw);
    type_store(t, raw, 0, v);
    switch (t->format) {
    case FMT_CF32: case FMT_CF64:
        snprintf(buf, len, "%.9g%+.9gi", v.f, v.im);
        return;
    case FMT_PAIR:
        if (t->value == FMT_INT) snprintf(buf, len, "(%lld, index %d)", (long long)(int64_t)v.u, (int)v.k);
        else snprintf(buf, len, "(%.9g, index %d)", v.f, (int)v.k);
        return;
    default: break;
    }
    for (i = n; i-- > 0;) bits = bits << 8 | raw[i];
    if (type_is_float(t)) snprintf(buf, len, "%.9g [0x%0*llx]", v.f, (int)(2 * n), (unsigned long long)bits);
    else if (t->is_signed) snprintf(buf, len, "%lld [0x%0*llx]", (long long)(int64_t)v.u, (int)(2 * n), (unsigned long long)bits);
    else snprintf(buf, len, "%llu [0x%0*llx]", (unsigned long long)(v.u & type_mask(t)), (int)(2 * n),
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
    case OP_LAND: return MPI_LAND;
    case OP_LOR: return MPI_LOR;
    case OP_LXOR: return MPI_LXOR;
    case OP_MINLOC: return MPI_MINLOC;
    case OP_MAXLOC: return MPI_MAXLOC;
    }
    return MPI_OP_NULL;
}

int op_applies(const test_op *op, const test_type *t) { return (t->ops >> op->id) & 1u; }
