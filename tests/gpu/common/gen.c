/* Input patterns; see gen.h. */
#include <math.h>
#include "gen.h"

uint64_t gen_mix(uint64_t x)
{
    x += 0x9E3779B97F4A7C15u;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9u;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBu;
    return x ^ (x >> 31);
}

void gen_init(gen_ctx *g, const test_type *type, const test_op *op, int nranks, uint64_t seed)
{
    g->type = type;
    g->op = op;
    g->nranks = nranks;
    g->key = gen_mix(seed ^ gen_mix(((uint64_t)type->id << 8) | (op ? (uint64_t)op->id + 1 : 0)));
    g->linear = 0;
    g->kind = op ? (int)op->id : -1;
    g->mask = type_mask(type);
    g->top = (uint64_t)1 << (8 * (type->format == FMT_PAIR ? type->value_size : type->size) - 1);
}

static inline uint64_t hash_of(const gen_ctx *g, int rank, size_t index)
{
    return gen_mix(g->key ^ (((uint64_t)index << 8) | (unsigned)rank));
}

/* 1 when `rank` holds the extreme value of element `index` for min and max. */
static inline int owns_extreme(const gen_ctx *g, int rank, size_t index)
{
    return (index & 1) == 0 && (size_t)rank == (index / 2) % (size_t)g->nranks;
}

static inline double float_value(const gen_ctx *g, int rank, size_t index, uint64_t h)
{
    double u = (double)(int64_t)(h >> 11) * 0x1p-53; /* [0, 1) from the top 53 bits; signed converts faster */
    int negative = (int)(h >> 3) & 1;
    switch (g->kind) {
    case OP_PROD: return 1.0 + (u - 0.5) / 8.0;
    case OP_MIN:
    case OP_MAX:
        if (owns_extreme(g, rank, index)) return g->kind == OP_MIN ? -(150.0 + 49.0 * u) : 150.0 + 49.0 * u;
        return negative ? -(1.0 + 99.0 * u) : 1.0 + 99.0 * u;
    default: return negative ? -(0.5 + u) : 0.5 + u;
    }
}

static inline uint64_t int_value(const gen_ctx *g, int rank, size_t index, uint64_t h)
{
    const test_type *t = g->type;
    uint64_t mask = g->mask, top = g->top, r = h >> 8, x;
    /* Element sizes are powers of two: the bit number wraps with a mask. */
    uint64_t own_bit = (uint64_t)1 << ((index + (size_t)rank) & (8 * t->size - 1));
    int negative = (int)h & 1;

    switch (g->kind) {
    case OP_SUM:
        if (!t->is_signed) break;
        x = 1 + r % ((uint64_t)1 << (t->size >= 8 ? 40 : t->size >= 4 ? 20 : t->size >= 2 ? 10 : 4));
        return negative ? (uint64_t)0 - x : x;
    case OP_PROD:
        /* Magnitudes of at least 2: a product of +-1s would equal the poison pattern (-1). */
        x = 2 + r % (t->size >= 8 ? 1022u : t->is_signed ? 2u : 6u);
        return negative && t->is_signed ? (uint64_t)0 - x : x;
    case OP_MIN:
    case OP_MAX:
        if (!owns_extreme(g, rank, index)) break;
        /* Near the limits: a kernel comparing with the wrong signedness picks the wrong one. */
        if (g->kind == OP_MIN) x = t->is_signed ? top + r % 16 : 1 + r % 16;
        else x = (t->is_signed ? top - 1 : mask) - 1 - r % 16;
        return t->is_signed ? ((x & mask) ^ top) - top : x;
    case OP_BAND: x = ~(h & gen_mix(h) & gen_mix(h + 1)) & mask & ~own_bit; goto extend;
    case OP_BOR: x = ((h & gen_mix(h) & gen_mix(h + 1)) & mask) | own_bit; goto extend;
    case OP_LAND:
    case OP_LOR:
    case OP_LXOR:
        /* Zero or not: LAND mostly true, LOR mostly false, LXOR even, so both results occur. */
        if (g->kind == OP_LXOR ? (r & 1) : (r % (2 * (uint64_t)g->nranks) == 0) == (g->kind == OP_LAND)) return 0;
        if (t->id == TT_BOOL) return 1;
        /* One bit anywhere in the element: two ranks' bits rarely meet (a bitwise AND would be
         * 0), and many lie above the low byte (a narrower test would miss them). */
        x = (uint64_t)1 << ((r >> 16) % (8 * t->size));
        goto extend;
    default: break;
    }
    x = h & mask;
    if (!x) x = own_bit;
extend:
    return t->is_signed && t->size < 8 ? (x ^ top) - top : x;
}

void gen_linear_terms(const gen_ctx *g, size_t index, int64_t *base, int64_t *step)
{
    uint64_t h = gen_mix(g->key ^ ((uint64_t)index << 8));
    int64_t sign = (h & 1) ? -1 : 1;
    *base = sign * (int64_t)(1 + (h >> 8) % 1024);
    *step = sign * (int64_t)(1 + (h >> 24) % 8);
}

static void linear_values(const gen_ctx *g, int rank, size_t first, size_t count, double *f, uint64_t *u)
{
    int64_t base, step;
    size_t j;
    for (j = 0; j < count; j++) {
        gen_linear_terms(g, first + j, &base, &step);
        if (!type_is_float(g->type)) u[j] = (uint64_t)(base + rank * step);
        else if (g->type->format == FMT_F32 || g->type->format == FMT_F64) f[j] = (double)(base + rank * step); /* exact */
        else f[j] = type_round(g->type, (double)(base + rank * step));
    }
}

/* Complex numbers: sums and data as two float-sum values; products of modulus in
 * [15/16, 17/16) at any angle, so both parts matter and either may be near zero. Pairs: values
 * from a set of four (ties are common, the index decides them), indices in [-1000, 1000]. */
static tvalue compound_value(const gen_ctx *g, int rank, size_t index, uint64_t h)
{
    const test_type *t = g->type;
    uint64_t h2 = gen_mix(h);
    double u1 = (double)(int64_t)(h >> 11) * 0x1p-53, u2 = (double)(int64_t)(h2 >> 11) * 0x1p-53;
    tvalue v = {0, 0, 0, 0};
    (void)rank;
    (void)index;
    if (t->format == FMT_PAIR) {
        int64_t s = (int64_t)(h % 4) - 2;
        v.k = (int32_t)(h2 % 2001) - 1000;
        if (t->value != FMT_INT) v.f = type_round(t, 0.5 * (double)s);
        else if (t->value_size >= 8) v.u = (uint64_t)(s * ((int64_t)1 << 33) + 7); /* high bits decide */
        else v.u = (uint64_t)s;
        return v;
    }
    if (g->kind == OP_PROD) {
        double modulus = 1.0 + (u1 - 0.5) / 8.0, angle = 6.283185307179586 * u2;
        v.f = type_round(t, modulus * cos(angle));
        v.im = type_round(t, modulus * sin(angle));
        return v;
    }
    v.f = type_round(t, (h & 8) ? -(0.5 + u1) : 0.5 + u1);
    v.im = type_round(t, (h2 & 8) ? -(0.5 + u2) : 0.5 + u2);
    return v;
}

tvalue gen_value(const gen_ctx *g, int rank, size_t index)
{
    tvalue v = {0, 0, 0, 0};
    if (type_is_compound(g->type)) return compound_value(g, rank, index, hash_of(g, rank, index));
    gen_values(g, rank, index, 1, &v.f, &v.u);
    return v;
}

void gen_values(const gen_ctx *g, int rank, size_t first, size_t count, double *f, uint64_t *u)
{
    size_t j;
    if (g->linear) {
        linear_values(g, rank, first, count, f, u);
        return;
    }
    switch (g->type->format) {
    case FMT_F32:
        for (j = 0; j < count; j++) f[j] = (double)(float)float_value(g, rank, first + j, hash_of(g, rank, first + j));
        return;
    case FMT_F64:
        for (j = 0; j < count; j++) f[j] = float_value(g, rank, first + j, hash_of(g, rank, first + j));
        return;
    case FMT_F16:
    case FMT_BF16: /* rounded to the type, so the reference sees what the GPU reads */
        for (j = 0; j < count; j++) f[j] = type_round(g->type, float_value(g, rank, first + j, hash_of(g, rank, first + j)));
        return;
    case FMT_INT:
        for (j = 0; j < count; j++) u[j] = int_value(g, rank, first + j, hash_of(g, rank, first + j));
        return;
    case FMT_CF32: case FMT_CF64: case FMT_PAIR: /* one at a time: gen_value */
        return;
    }
}

void gen_fill(const gen_ctx *g, int rank, size_t first, size_t count, void *buf)
{
    double f[GEN_CHUNK];
    uint64_t u[GEN_CHUNK];
    size_t done, n;
    if (type_is_compound(g->type)) {
        for (done = 0; done < count; done++) type_store(g->type, buf, done, gen_value(g, rank, first + done));
        return;
    }
    for (done = 0; done < count; done += n) {
        n = count - done < GEN_CHUNK ? count - done : GEN_CHUNK;
        gen_values(g, rank, first + done, n, f, u);
        type_store_many(g->type, (unsigned char *)buf + done * g->type->size, n, f, u);
    }
}
