/* Input patterns; see gen.h. */
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
}

/* 1 when `rank` holds the extreme value of element `index` for min and max. */
static int owns_extreme(const gen_ctx *g, int rank, size_t index)
{
    return index % 2 == 0 && (size_t)rank == (index / 2) % (size_t)g->nranks;
}

static double float_value(const gen_ctx *g, int rank, size_t index, uint64_t h)
{
    double u = (double)(h >> 11) * 0x1p-53; /* [0, 1) from the top 53 bits */
    int negative = (int)(h >> 3) & 1;
    double x;
    switch (g->op ? g->op->id : OP_SUM) {
    case OP_PROD: x = 1.0 + (u - 0.5) / 8.0; break;
    case OP_MIN:
    case OP_MAX:
        if (owns_extreme(g, rank, index)) x = g->op->id == OP_MIN ? -(150.0 + 49.0 * u) : 150.0 + 49.0 * u;
        else x = negative ? -(1.0 + 99.0 * u) : 1.0 + 99.0 * u;
        break;
    default: x = negative ? -(0.5 + u) : 0.5 + u; break;
    }
    return type_round(g->type, x);
}

static uint64_t int_value(const gen_ctx *g, int rank, size_t index, uint64_t h)
{
    const test_type *t = g->type;
    uint64_t mask = type_mask(t), r = h >> 8, own_bit, x, top = (uint64_t)1 << (8 * t->size - 1);
    unsigned bits = 8u * (unsigned)t->size;
    int negative = (int)h & 1;

    own_bit = (uint64_t)1 << ((index + (size_t)rank) % bits);
    switch (g->op ? g->op->id : OP_BXOR) {
    case OP_SUM:
        if (!t->is_signed) break;
        x = 1 + r % ((uint64_t)1 << (t->size >= 8 ? 40 : t->size >= 4 ? 20 : 10));
        return negative ? (uint64_t)0 - x : x;
    case OP_PROD:
        x = 1 + r % (t->size >= 8 ? 1023u : t->is_signed ? 3u : 7u);
        return negative && t->is_signed ? (uint64_t)0 - x : x;
    case OP_MIN:
    case OP_MAX:
        if (!owns_extreme(g, rank, index)) break;
        /* Near the limits: a kernel comparing with the wrong signedness picks the wrong one. */
        if (g->op->id == OP_MIN) x = t->is_signed ? top + r % 16 : 1 + r % 16;
        else x = (t->is_signed ? top - 1 : mask) - 1 - r % 16;
        return t->is_signed ? ((x & mask) ^ top) - top : x;
    case OP_BAND: x = ~(h & gen_mix(h) & gen_mix(h + 1)) & mask & ~own_bit; goto extend;
    case OP_BOR: x = ((h & gen_mix(h) & gen_mix(h + 1)) & mask) | own_bit; goto extend;
    case OP_BXOR: break;
    }
    x = h & mask;
    if (!x) x = own_bit;
extend:
    return t->is_signed && t->size < 8 ? (x ^ top) - top : x;
}

tvalue gen_value(const gen_ctx *g, int rank, size_t index)
{
    uint64_t h = gen_mix(g->key ^ (((uint64_t)index << 8) | (unsigned)rank));
    tvalue v = {0, 0};
    if (type_is_float(g->type)) v.f = float_value(g, rank, index, h);
    else v.u = int_value(g, rank, index, h);
    return v;
}

void gen_fill(const gen_ctx *g, int rank, size_t first, size_t count, void *buf)
{
    size_t j;
    for (j = 0; j < count; j++) type_store(g->type, buf, j, gen_value(g, rank, first + j));
}
