/* Collective shapes and checks; see bench_coll.h. */
#include "bench_coll.h"

#include <string.h>
#include <strings.h>

static const char *const names[BENCH_NCOLLS] = {
    "allreduce", "bcast", "reduce", "reduce_scatter", "allgather", "barrier"
};

const char *bench_coll_name(bench_coll c)
{
    return c < BENCH_NCOLLS ? names[c] : "?";
}

int bench_coll_find(const char *name)
{
    for (int c = 0; c < BENCH_NCOLLS; c++)
        if (strcasecmp(name, names[c]) == 0)
            return c;
    if (strcasecmp(name, "broadcast") == 0)
        return BENCH_BCAST;
    if (strcasecmp(name, "reducescatter") == 0 || strcasecmp(name, "reduce-scatter") == 0)
        return BENCH_REDUCE_SCATTER;
    return -1;
}

int bench_coll_reduces(bench_coll c)
{
    return c == BENCH_ALLREDUCE || c == BENCH_REDUCE || c == BENCH_REDUCE_SCATTER;
}

int bench_coll_has_root(bench_coll c)
{
    return c == BENCH_BCAST || c == BENCH_REDUCE;
}

static const char *const op_names[BENCH_NOPS] = { "sum", "min", "max" };

const char *bench_op_name(bench_op op)
{
    return op < BENCH_NOPS ? op_names[op] : "?";
}

int bench_op_find(const char *name)
{
    if (strncasecmp(name, "mpi_", 4) == 0)
        name += 4;
    for (int op = 0; op < BENCH_NOPS; op++)
        if (strcasecmp(name, op_names[op]) == 0)
            return op;
    return -1;
}

MPI_Op bench_op_mpi(bench_op op)
{
    switch (op) {
    case BENCH_OP_MIN: return MPI_MIN;
    case BENCH_OP_MAX: return MPI_MAX;
    default: return MPI_SUM;
    }
}

int bench_shape_for(bench_coll c, size_t bytes, size_t elem, int nranks, int rank, bench_shape *s)
{
    size_t n = (size_t)nranks;
    memset(s, 0, sizeof *s);
    s->root = BENCH_ROOT;
    s->op = BENCH_OP_SUM;
    switch (c) {
    case BENCH_ALLREDUCE:
    case BENCH_BCAST:
    case BENCH_REDUCE:
        s->count = bytes / elem;
        s->send_elems = s->recv_elems = s->count;
        s->bytes = s->count * elem;
        break;
    case BENCH_REDUCE_SCATTER:
        s->count = bytes / elem / n;
        s->send_elems = s->count * n;
        s->recv_elems = s->count;
        s->bytes = s->send_elems * elem;
        s->first = (size_t)rank * s->count;
        break;
    case BENCH_ALLGATHER:
        s->count = bytes / elem / n;
        s->send_elems = s->count;
        s->recv_elems = s->count * n;
        s->bytes = s->recv_elems * elem;
        break;
    case BENCH_BARRIER:
        return 0;
    default:
        return -1;
    }
    if (c == BENCH_BCAST)
        s->send_elems = 0;
    return s->count > 0 ? 0 : -1;
}

size_t bench_reduce_scatter_v_count(size_t elems, int nranks, int rank)
{
    size_t n = (size_t)nranks, r = (size_t)rank;
    return elems / n + (r < elems % n);
}

int bench_shape_reduce_scatter_v(size_t bytes, size_t elem, int nranks, int rank, bench_shape *s)
{
    size_t elems = bytes / elem, n = (size_t)nranks, r = (size_t)rank;
    memset(s, 0, sizeof *s);
    s->root = BENCH_ROOT;
    s->op = BENCH_OP_SUM;
    s->count = bench_reduce_scatter_v_count(elems, nranks, rank);
    s->send_elems = elems;
    s->recv_elems = s->count;
    s->bytes = elems * elem;
    s->first = r * (elems / n) + (r < elems % n ? r : elems % n);
    return elems > 0 ? 0 : -1;
}

double bench_busbw_factor(bench_coll c, int nranks)
{
    double n = nranks;
    switch (c) {
    case BENCH_ALLREDUCE: return 2.0 * (n - 1) / n;
    case BENCH_REDUCE_SCATTER:
    case BENCH_ALLGATHER: return (n - 1) / n;
    default: return 1.0;
    }
}

const char *bench_busbw_formula(bench_coll c)
{
    switch (c) {
    case BENCH_ALLREDUCE: return "2(n-1)/n";
    case BENCH_REDUCE_SCATTER:
    case BENCH_ALLGATHER: return "(n-1)/n";
    default: return "1";
    }
}

/* Rank r's input, element i: b(i) + r. The result over n ranks is mul * b(i) + add: the sum
 * n*b(i) + n(n-1)/2, the minimum b(i) (rank 0's), the maximum b(i) + n - 1. */
static void reduced(bench_op op, int nranks, long long *mul, long long *add)
{
    switch (op) {
    case BENCH_OP_MIN: *mul = 1, *add = 0; break;
    case BENCH_OP_MAX: *mul = 1, *add = nranks - 1; break;
    default: *mul = nranks, *add = (long long)nranks * (nranks - 1) / 2; break;
    }
}

size_t bench_recv_buffer_elems(bench_coll c, const bench_shape *s, int in_place)
{
    return in_place && c == BENCH_REDUCE_SCATTER ? s->send_elems : s->recv_elems;
}

void bench_check_inputs(bench_coll c, const bench_dtype *t, const bench_shape *s, int rank,
                        int in_place, int seed, void *send, void *recv)
{
    char *r = recv;
    if (send && s->send_elems)
        bench_dtype_fill(t, send, s->send_elems, 0, 1, rank, seed);
    memset(recv, 0xff, bench_recv_buffer_elems(c, s, in_place) * t->size);
    switch (c) {
    case BENCH_BCAST:
        if (rank == s->root)
            bench_dtype_fill(t, recv, s->recv_elems, 0, 1, rank, seed);
        break;
    case BENCH_ALLREDUCE:
    case BENCH_REDUCE_SCATTER:
        if (in_place) /* MPI_IN_PLACE: the input is in the receive buffer (all of it, for reduce_scatter) */
            bench_dtype_fill(t, recv, s->send_elems, 0, 1, rank, seed);
        break;
    case BENCH_REDUCE:
        if (in_place && rank == s->root)
            bench_dtype_fill(t, recv, s->send_elems, 0, 1, rank, seed);
        break;
    case BENCH_ALLGATHER:
        if (in_place) /* this rank's block sits at its place in the receive buffer */
            bench_dtype_fill(t, r + (size_t)rank * s->count * t->size, s->count, 0, 1, rank, seed);
        break;
    default:
        break;
    }
}

size_t bench_check_result(bench_coll c, const bench_dtype *t, const bench_shape *s, int rank,
                          int nranks, int in_place, int seed, const void *recv)
{
    const char *r = recv;
    size_t bad = 0;
    long long mul, add;
    (void)in_place; /* every in-place form leaves the result where the out-of-place one does */
    reduced(s->op, nranks, &mul, &add);
    switch (c) {
    case BENCH_ALLREDUCE:
        return bench_dtype_wrong(t, recv, s->count, 0, mul, add, seed);
    case BENCH_BCAST:
        return bench_dtype_wrong(t, recv, s->count, 0, 1, s->root, seed);
    case BENCH_REDUCE:
        if (rank != s->root)
            return 0;
        return bench_dtype_wrong(t, recv, s->count, 0, mul, add, seed);
    case BENCH_REDUCE_SCATTER: /* this rank's block of the reduced vector */
        return bench_dtype_wrong(t, recv, s->count, s->first, mul, add, seed);
    case BENCH_ALLGATHER:
        for (int q = 0; q < nranks; q++)
            bad += bench_dtype_wrong(t, r + (size_t)q * s->count * t->size, s->count, 0, 1, q, seed);
        return bad;
    default:
        return 0;
    }
}
