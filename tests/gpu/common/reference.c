/* Host reference results; see reference.h. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "reference.h"

/* The GPU's error bound plus this reference's own (it rounds in double too), for a reduction
 * over n ranks. */
static double tolerance(const gen_ctx *g, int n, double result, double magnitude)
{
    if (g->op->id == OP_SUM) return (n * type_unit_roundoff(g->type) + (n - 1) * 0x1p-53) * magnitude;
    if (g->op->id == OP_PROD) return ((n + 1) * type_unit_roundoff(g->type) + n * 0x1p-53) * fabs(result);
    return 0;
}

static expect reduce_float(const gen_ctx *g, int n, size_t index)
{
    expect e = {{0, 0, 0, 0}, 0};
    double acc = gen_value(g, 0, index).f, magnitude = fabs(acc), x;
    int r;
    op_id op = g->op->id;

    for (r = 1; r < n; r++) {
        x = gen_value(g, r, index).f;
        magnitude += fabs(x);
        if (op == OP_SUM) acc += x;
        else if (op == OP_PROD) acc *= x;
        else if (op == OP_MIN) acc = x < acc ? x : acc;
        else if (op == OP_MAX) acc = x > acc ? x : acc;
    }
    e.value.f = acc;
    e.tol = tolerance(g, n, acc, magnitude);
    return e;
}

/* a < b in the type's signedness: flipping the top bit orders signed values as unsigned. */
static int int_less(const test_type *t, uint64_t a, uint64_t b)
{
    uint64_t mask = type_mask(t), top = t->is_signed ? (mask >> 1) + 1 : 0;
    return ((a & mask) ^ top) < ((b & mask) ^ top);
}

static int is_logical(op_id op) { return op == OP_LAND || op == OP_LOR || op == OP_LXOR; }

/* acc op x for integers; logical ops give 0 or 1 (finish() makes a lone first value one too). */
static uint64_t int_op(const test_type *t, op_id op, uint64_t acc, uint64_t x)
{
    uint64_t mask = type_mask(t);
    switch (op) {
    case OP_SUM: return acc + x;
    case OP_PROD: return acc * x;
    case OP_MIN: return int_less(t, x, acc) ? x : acc;
    case OP_MAX: return int_less(t, acc, x) ? x : acc;
    case OP_BAND: return acc & x;
    case OP_BOR: return acc | x;
    case OP_BXOR: return acc ^ x;
    case OP_LAND: return (acc & mask) && (x & mask);
    case OP_LOR: return (acc & mask) || (x & mask);
    case OP_LXOR: return !(acc & mask) != !(x & mask);
    case OP_MINLOC: case OP_MAXLOC: break;
    }
    return acc;
}

static uint64_t int_finish(const test_type *t, op_id op, uint64_t acc)
{
    return is_logical(op) ? (acc & type_mask(t)) != 0 : acc & type_mask(t);
}

static expect reduce_int(const gen_ctx *g, int n, size_t index)
{
    uint64_t acc = gen_value(g, 0, index).u;
    int r;
    expect e;

    for (r = 1; r < n; r++) acc = int_op(g->type, g->op->id, acc, gen_value(g, r, index).u);
    memset(&e, 0, sizeof e);
    e.value.u = int_finish(g->type, g->op->id, acc);
    return e;
}

/* The better of two pairs for MINLOC/MAXLOC: the smaller or larger value, on a tie the
 * smaller index. */
static tvalue loc_op(const test_type *t, op_id op, tvalue acc, tvalue x)
{
    int less, greater;
    if (t->value == FMT_INT) {
        less = int_less(t, x.u, acc.u);
        greater = int_less(t, acc.u, x.u);
    } else {
        less = x.f < acc.f;
        greater = x.f > acc.f;
    }
    if (op == OP_MINLOC ? less : greater) return x;
    if (!less && !greater && x.k < acc.k) acc.k = x.k;
    return acc;
}

/* Complex sums and products in double, in rank order. The bounds are the GPU's (any order of
 * the sum; the product rounded at each of n - 1 steps, each within 3u of the product of the
 * moduli, fused or not) plus the reference's own rounding. */
static expect reduce_compound(const gen_ctx *g, int n, size_t index)
{
    const test_type *t = g->type;
    tvalue acc = gen_value(g, 0, index), x;
    double magnitude, re;
    int r;
    expect e;

    magnitude = t->format == FMT_PAIR ? 0 : g->op->id == OP_SUM ? fabs(acc.f) + fabs(acc.im) : hypot(acc.f, acc.im);
    for (r = 1; r < n; r++) {
        x = gen_value(g, r, index);
        if (t->format == FMT_PAIR) {
            acc = loc_op(t, g->op->id, acc, x);
        } else if (g->op->id == OP_SUM) {
            acc.f += x.f;
            acc.im += x.im;
            magnitude += fabs(x.f) + fabs(x.im);
        } else {
            re = acc.f * x.f - acc.im * x.im;
            acc.im = acc.f * x.im + acc.im * x.f;
            acc.f = re;
            magnitude *= hypot(x.f, x.im);
        }
    }
    if (t->format == FMT_PAIR) acc.u &= type_mask(t);
    e.value = acc;
    if (t->format == FMT_PAIR) e.tol = 0;
    else if (g->op->id == OP_SUM) e.tol = (n * type_unit_roundoff(t) + n * 0x1p-53) * magnitude;
    else e.tol = (3 * n * type_unit_roundoff(t) + 4 * n * 0x1p-53) * magnitude;
    return e;
}

/* The reduction of element `index` over ranks 0..n-1. */
static expect reduce_over(const gen_ctx *g, int n, size_t index)
{
    if (type_is_compound(g->type)) return reduce_compound(g, n, index);
    return type_is_float(g->type) ? reduce_float(g, n, index) : reduce_int(g, n, index);
}

expect ref_reduce(const gen_ctx *g, size_t index) { return reduce_over(g, g->nranks, index); }

int ref_matches(const test_type *t, tvalue got, expect want)
{
    switch (t->format) {
    case FMT_CF32: case FMT_CF64: /* NaN never matches */
        return fabs(got.f - want.value.f) <= want.tol && fabs(got.im - want.value.im) <= want.tol;
    case FMT_PAIR:
        if (got.k != want.value.k) return 0;
        if (t->value == FMT_INT) return ((got.u ^ want.value.u) & type_mask(t)) == 0;
        return got.f == want.value.f;
    case FMT_INT:
        return ((got.u ^ want.value.u) & type_mask(t)) == 0;
    default:
        return fabs(got.f - want.value.f) <= want.tol;
    }
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

/* acc[j] = acc[j] op x[j] for the ranks after the first, as reduce_float / reduce_int do. */
static void combine(const gen_ctx *g, size_t n, double *acc, double *magnitude, const double *x, uint64_t *uacc,
                    const uint64_t *ux)
{
    size_t j;
    if (type_is_float(g->type)) {
        for (j = 0; j < n; j++) magnitude[j] += fabs(x[j]);
        switch (g->op->id) {
        case OP_SUM: for (j = 0; j < n; j++) acc[j] += x[j]; break;
        case OP_PROD: for (j = 0; j < n; j++) acc[j] *= x[j]; break;
        case OP_MIN: for (j = 0; j < n; j++) acc[j] = x[j] < acc[j] ? x[j] : acc[j]; break;
        case OP_MAX: for (j = 0; j < n; j++) acc[j] = x[j] > acc[j] ? x[j] : acc[j]; break;
        default: break;
        }
        return;
    }
    switch (g->op->id) {
    case OP_SUM: for (j = 0; j < n; j++) uacc[j] += ux[j]; break;
    case OP_PROD: for (j = 0; j < n; j++) uacc[j] *= ux[j]; break;
    case OP_BAND: for (j = 0; j < n; j++) uacc[j] &= ux[j]; break;
    case OP_BOR: for (j = 0; j < n; j++) uacc[j] |= ux[j]; break;
    case OP_BXOR: for (j = 0; j < n; j++) uacc[j] ^= ux[j]; break;
    default: for (j = 0; j < n; j++) uacc[j] = int_op(g->type, g->op->id, uacc[j], ux[j]); break;
    }
}

/* Compound types, one element at a time: against the reduction over ranks 0..reduced-1
 * (reduced != 0) or against rank `rank`'s input. */
static size_t check_compound(const gen_ctx *g, int reduced, int rank, const void *out, size_t first, size_t count,
                             char *why, size_t len)
{
    size_t j, bad = 0;
    for (j = 0; j < count; j++) {
        tvalue got = type_load(g->type, out, j);
        expect want;
        if (reduced) {
            want = reduce_over(g, reduced, first + j);
        } else {
            want.value = gen_value(g, rank, first + j);
            want.tol = 0;
        }
        if (ref_matches(g->type, got, want)) continue;
        if (!bad++) describe(g->type, first + j, got, want, why, len);
    }
    add_total(why, len, bad, count, "elements wrong");
    return bad;
}

/* Compare n loaded elements with the expected ones; the first mismatch overall is described. */
static size_t compare(const test_type *t, size_t base, size_t n, const double *got, const uint64_t *ugot,
                      const double *want, const double *tol, const uint64_t *uwant, size_t bad, char *why, size_t len)
{
    size_t j;
    for (j = 0; j < n; j++) {
        tvalue g = {0, 0, 0, 0}, w = {0, 0, 0, 0};
        expect e;
        g.f = got ? got[j] : 0;
        g.u = ugot ? ugot[j] : 0;
        w.f = want ? want[j] : 0;
        w.u = uwant ? uwant[j] & type_mask(t) : 0;
        e.value = w;
        e.tol = tol ? tol[j] : 0;
        if (ref_matches(t, g, e)) continue;
        if (!bad++) describe(t, base + j, g, e, why, len);
    }
    return bad;
}

/* The linear pattern's sum in closed form: n * base + step * n(n-1)/2, exact (see gen.h). */
static size_t check_linear_sum(const gen_ctx *g, const void *out, size_t first, size_t count, char *why, size_t len)
{
    double want[GEN_CHUNK], got[GEN_CHUNK];
    uint64_t uwant[GEN_CHUNK], ugot[GEN_CHUNK];
    const test_type *t = g->type;
    int64_t n = g->nranks, base, step;
    size_t done, m, j, bad = 0;

    for (done = 0; done < count; done += m) {
        m = count - done < GEN_CHUNK ? count - done : GEN_CHUNK;
        for (j = 0; j < m; j++) {
            gen_linear_terms(g, first + done + j, &base, &step);
            want[j] = (double)(n * base + step * (n * (n - 1) / 2));
            uwant[j] = (uint64_t)(n * base + step * (n * (n - 1) / 2));
        }
        type_load_many(t, (const unsigned char *)out + done * t->size, m, got, ugot);
        bad = type_is_float(t) ? compare(t, done, m, got, NULL, want, NULL, NULL, bad, why, len)
                               : compare(t, done, m, NULL, ugot, NULL, NULL, uwant, bad, why, len);
    }
    add_total(why, len, bad, count, "elements wrong");
    return bad;
}

size_t ref_check_reduced(const gen_ctx *g, const void *out, size_t first, size_t count, char *why, size_t len)
{
    /* Exact integers in float, double and integer types: the closed form applies. */
    if (g->linear && g->op->id == OP_SUM && !type_is_compound(g->type) && g->type->format != FMT_F16 &&
        g->type->format != FMT_BF16)
        return check_linear_sum(g, out, first, count, why, len);
    return ref_check_prefix(g, g->nranks, out, first, count, why, len);
}

size_t ref_check_prefix(const gen_ctx *g, int nranks, const void *out, size_t first, size_t count, char *why,
                        size_t len)
{
    double acc[GEN_CHUNK], magnitude[GEN_CHUNK], x[GEN_CHUNK], got[GEN_CHUNK];
    uint64_t uacc[GEN_CHUNK], ux[GEN_CHUNK], ugot[GEN_CHUNK];
    const test_type *t = g->type;
    int is_float = type_is_float(t), r;
    size_t done, n, j, bad = 0;

    if (type_is_compound(t)) return check_compound(g, nranks, 0, out, first, count, why, len);
    for (done = 0; done < count; done += n) {
        n = count - done < GEN_CHUNK ? count - done : GEN_CHUNK;
        gen_values(g, 0, first + done, n, acc, uacc);
        if (is_float)
            for (j = 0; j < n; j++) magnitude[j] = fabs(acc[j]);
        for (r = 1; r < nranks; r++) {
            gen_values(g, r, first + done, n, x, ux);
            combine(g, n, acc, magnitude, x, uacc, ux);
        }
        if (is_float)
            for (j = 0; j < n; j++) magnitude[j] = tolerance(g, nranks, acc[j], magnitude[j]);
        else
            for (j = 0; j < n; j++) uacc[j] = int_finish(t, g->op->id, uacc[j]);
        type_load_many(t, (const unsigned char *)out + done * t->size, n, got, ugot);
        bad = is_float ? compare(t, done, n, got, NULL, acc, magnitude, NULL, bad, why, len)
                       : compare(t, done, n, NULL, ugot, NULL, NULL, uacc, bad, why, len);
    }
    add_total(why, len, bad, count, "elements wrong");
    return bad;
}

size_t ref_check_data(const gen_ctx *g, int rank, const void *out, size_t first, size_t count, char *why, size_t len)
{
    double want[GEN_CHUNK], got[GEN_CHUNK];
    uint64_t uwant[GEN_CHUNK], ugot[GEN_CHUNK];
    const test_type *t = g->type;
    size_t done, n, bad = 0;

    if (type_is_compound(t)) return check_compound(g, 0, rank, out, first, count, why, len);
    for (done = 0; done < count; done += n) {
        n = count - done < GEN_CHUNK ? count - done : GEN_CHUNK;
        gen_values(g, rank, first + done, n, want, uwant);
        type_load_many(t, (const unsigned char *)out + done * t->size, n, got, ugot);
        bad = type_is_float(t) ? compare(t, done, n, got, NULL, want, NULL, NULL, bad, why, len)
                               : compare(t, done, n, NULL, ugot, NULL, NULL, uwant, bad, why, len);
    }
    add_total(why, len, bad, count, "elements wrong");
    return bad;
}

size_t ref_check_bytes(const void *got, const void *want, size_t n, char *why, size_t len)
{
    const unsigned char *a = got, *b = want;
    size_t i, bad = 0;
    if (!n || !memcmp(got, want, n)) return 0; /* the usual case, at memcmp speed */
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
