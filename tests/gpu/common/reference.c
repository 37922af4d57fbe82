/* Host reference results; see reference.h. */
#include <math.h>
#include <stdio.h>
#include "reference.h"

static expect reduce_float(const gen_ctx *g, size_t index)
{
    expect e;
    double acc = gen_value(g, 0, index).f, magnitude = fabs(acc), x;
    int r, n = g->nranks;
    op_id op = g->op->id;

    for (r = 1; r < n; r++) {
        x = gen_value(g, r, index).f;
        magnitude += fabs(x);
        if (op == OP_SUM) acc += x;
        else if (op == OP_PROD) acc *= x;
        else if (op == OP_MIN) acc = x < acc ? x : acc;
        else if (op == OP_MAX) acc = x > acc ? x : acc;
    }
    e.value.u = 0;
    e.value.f = acc;
    if (op == OP_SUM) e.tol = n * type_unit_roundoff(g->type) * magnitude;
    else if (op == OP_PROD) e.tol = (n + 1) * type_unit_roundoff(g->type) * fabs(acc);
    else e.tol = 0;
    return e;
}

/* a < b in the type's signedness: flipping the top bit orders signed values as unsigned. */
static int int_less(const test_type *t, uint64_t a, uint64_t b)
{
    uint64_t mask = type_mask(t), top = t->is_signed ? (uint64_t)1 << (8 * t->size - 1) : 0;
    return ((a & mask) ^ top) < ((b & mask) ^ top);
}

static expect reduce_int(const gen_ctx *g, size_t index)
{
    uint64_t acc = gen_value(g, 0, index).u, x;
    int r;
    expect e;

    for (r = 1; r < g->nranks; r++) {
        x = gen_value(g, r, index).u;
        switch (g->op->id) {
        case OP_SUM: acc += x; break;
        case OP_PROD: acc *= x; break;
        case OP_MIN: if (int_less(g->type, x, acc)) acc = x; break;
        case OP_MAX: if (int_less(g->type, acc, x)) acc = x; break;
        case OP_BAND: acc &= x; break;
        case OP_BOR: acc |= x; break;
        case OP_BXOR: acc ^= x; break;
        }
    }
    e.value.f = 0;
    e.value.u = acc & type_mask(g->type);
    e.tol = 0;
    return e;
}

expect ref_reduce(const gen_ctx *g, size_t index)
{
    return type_is_float(g->type) ? reduce_float(g, index) : reduce_int(g, index);
}

int ref_matches(const test_type *t, tvalue got, expect want)
{
    if (type_is_float(t)) return fabs(got.f - want.value.f) <= want.tol; /* NaN never matches */
    return ((got.u ^ want.value.u) & type_mask(t)) == 0;
}

static void describe(const test_type *t, size_t index, tvalue got, expect want, char *why, size_t len)
{
    char g[64], w[64];
    type_format_value(t, got, g, sizeof g);
    type_format_value(t, want.value, w, sizeof w);
    if (want.tol > 0) snprintf(why, len, "element %zu: got %s, want %s +- %.3g", index, g, w, want.tol);
    else snprintf(why, len, "element %zu: got %s, want %s", index, g, w);
}

/* Appends " (N of M <what>)" to a description when more than one thing was wrong. */
static void add_total(char *why, size_t len, size_t bad, size_t count, const char *what)
{
    size_t used = 0;
    while (used < len && why[used]) used++;
    if (bad > 1 && used < len) snprintf(why + used, len - used, " (%zu of %zu %s)", bad, count, what);
}

size_t ref_check_reduced(const gen_ctx *g, const void *out, size_t first, size_t count, char *why, size_t len)
{
    size_t j, bad = 0;
    for (j = 0; j < count; j++) {
        tvalue got = type_load(g->type, out, j);
        expect want = ref_reduce(g, first + j);
        if (ref_matches(g->type, got, want)) continue;
        if (!bad++) describe(g->type, j, got, want, why, len);
    }
    add_total(why, len, bad, count, "elements wrong");
    return bad;
}

size_t ref_check_data(const gen_ctx *g, int rank, const void *out, size_t first, size_t count, char *why, size_t len)
{
    size_t j, bad = 0;
    for (j = 0; j < count; j++) {
        tvalue got = type_load(g->type, out, j);
        expect want;
        want.value = gen_value(g, rank, first + j);
        want.tol = 0;
        if (ref_matches(g->type, got, want)) continue;
        if (!bad++) describe(g->type, j, got, want, why, len);
    }
    add_total(why, len, bad, count, "elements wrong");
    return bad;
}

size_t ref_check_bytes(const void *got, const void *want, size_t n, char *why, size_t len)
{
    const unsigned char *a = got, *b = want;
    size_t i, bad = 0;
    for (i = 0; i < n; i++) {
        if (a[i] == b[i]) continue;
        if (!bad++) snprintf(why, len, "byte %zu: 0x%02x, want 0x%02x", i, a[i], b[i]);
    }
    add_total(why, len, bad, n, "bytes differ");
    return bad;
}

size_t ref_check_fill(const void *got, unsigned char byte, size_t n, char *why, size_t len)
{
    const unsigned char *a = got;
    size_t i, bad = 0;
    for (i = 0; i < n; i++) {
        if (a[i] == byte) continue;
        if (!bad++) snprintf(why, len, "byte %zu: 0x%02x, want untouched 0x%02x", i, a[i], byte);
    }
    add_total(why, len, bad, n, "bytes changed");
    return bad;
}
