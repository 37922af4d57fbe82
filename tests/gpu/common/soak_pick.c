/* The soak's random calls; see soak_pick.h. */
#include <math.h>
#include <string.h>
#include "blocks.h"
#include "soak_pick.h"

const char *soak_path_name(soak_path path)
{
    switch (path) {
    case SOAK_NATIVE: return "native";
    case SOAK_GRAPH: return "graph";
    case SOAK_MPI: return "mpi";
    case SOAK_MPI_NONBLOCKING: return "mpi-nonblocking";
    case SOAK_PATHS: break;
    }
    return "?";
}

void soak_rng_seed(soak_rng *rng, uint64_t seed) { rng->state = seed; }

/* splitmix64: cheap, and every seed gives a full-period sequence. */
uint64_t soak_rng_next(soak_rng *rng)
{
    uint64_t x = rng->state += 0x9E3779B97F4A7C15u;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9u;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBu;
    return x ^ (x >> 31);
}

static double uniform(soak_rng *rng) { return (double)(soak_rng_next(rng) >> 11) * 0x1p-53; }

static size_t below(soak_rng *rng, size_t n) { return n ? (size_t)(soak_rng_next(rng) % n) : 0; }

/* Log-uniform in [lo, hi]. */
static size_t log_uniform(soak_rng *rng, size_t lo, size_t hi)
{
    if (lo < 1) lo = 1;
    if (hi <= lo) return lo;
    return (size_t)exp(log((double)lo) + uniform(rng) * (log((double)hi) - log((double)lo)));
}

static size_t draw_bytes(soak_rng *rng, size_t max)
{
    double u = uniform(rng);
    if (u < 0.03) return 0;
    if (u < 0.92) return log_uniform(rng, 1, max / 1024);
    if (u < 0.999) return log_uniform(rng, max / 1024, max / 16);
    return log_uniform(rng, max / 16, max);
}

static int is_reduction(coll_kind k)
{
    return k == COLL_ALLREDUCE || k == COLL_REDUCE || k == COLL_REDUCE_SCATTER || k == COLL_SCAN || k == COLL_EXSCAN;
}

/* Elements per call (or per block) that keep the largest buffer within `bytes`. */
static size_t count_for(coll_kind k, size_t bytes, size_t el, int size)
{
    size_t n = (size_t)size;
    switch (k) {
    case COLL_ALLREDUCE: case COLL_REDUCE: case COLL_BCAST: case COLL_SCAN: case COLL_EXSCAN: return bytes / el;
    case COLL_REDUCE_SCATTER: case COLL_ALLGATHER: case COLL_ALLTOALL: case COLL_GATHER: case COLL_SCATTER:
        return bytes / (n * el);
    default: return bytes / (3 * n * el); /* variable blocks: up to 2n + 2 elements, gaps of up to 3 */
    }
}

static int may_be_in_place(coll_kind k) { return k != COLL_BCAST; }

static int may_pass_null_recv(coll_kind k) { return k == COLL_REDUCE || k == COLL_GATHER || k == COLL_GATHERV; }

static int is_logical(const test_op *op) { return op->id == OP_LAND || op->id == OP_LOR || op->id == OP_LXOR; }

static int through_mpi(soak_path path) { return path == SOAK_MPI || path == SOAK_MPI_NONBLOCKING; }

static soak_path draw_path(soak_rng *rng, int host_only)
{
    size_t p = below(rng, 10);
    if (host_only) return p < 6 ? SOAK_MPI : SOAK_MPI_NONBLOCKING;
    /* native 40%, graph 10%, MPI 30%, nonblocking MPI 20% */
    return p < 4 ? SOAK_NATIVE : p < 5 ? SOAK_GRAPH : p < 8 ? SOAK_MPI : SOAK_MPI_NONBLOCKING;
}

/* Every collective of coll_kind, blocking or not (the plug-in has an MPI_I* form of each). */
#define NUM_KINDS ((int)COLL_EXSCAN + 1)

static coll_kind draw_kind(soak_rng *rng)
{
    return (coll_kind)below(rng, (size_t)NUM_KINDS);
}

static int has_padding(const test_type *t) { return t->format == FMT_PAIR && t->value_size + 4 < t->size; }

/* Where MPI's rules differ from the native API's, the calls that would be judged by the wrong
 * rule are not drawn: MPI moves only the data of a pair, not its padding (block calls compare
 * whole receive buffers), and a prefix of one rank is that rank's input as it was, not
 * normalized to 0 or 1 by a logical op. Nor is what the MPI below gets wrong: Open MPI 4.1.4
 * takes MPI_UNSIGNED_LONG as signed in MPI_MIN and MPI_MAX (plain MPI_Allreduce, no mcoll),
 * and the staged path reduces with the MPI's ops. */
static int mpi_judges_alike(coll_kind k, const test_type *t, const test_op *op)
{
    if (blocks_kind(k) && has_padding(t)) return 0;
    if (op && (k == COLL_SCAN || k == COLL_EXSCAN) && is_logical(op)) return 0;
    if (op && t->id == TT_ULONG && (op->id == OP_MIN || op->id == OP_MAX)) return 0;
    return 1;
}

/* The native calls that only move data take contiguous datatypes (include/mcoll.h): a pair
 * with padding after its index is refused with MCOLL_ERR_UNSUPPORTED, by design. */
static int native_takes(coll_kind k, const test_type *t) { return is_reduction(k) || !has_padding(t); }

void soak_pick(soak_rng *rng, const soak_limits *lim, soak_call *out)
{
    coll_case *c = &out->c;
    const test_op *ops[16];
    size_t nops, i;

    memset(out, 0, sizeof *out);
    out->path = draw_path(rng, lim->host_only);
    c->kind = draw_kind(rng);
    do {
        c->type = &reducible_types[below(rng, num_reducible_types)];
        c->op = NULL;
        if (is_reduction(c->kind)) {
            for (i = nops = 0; i < num_test_ops; i++)
                if (op_applies(&test_ops[i], c->type)) ops[nops++] = &test_ops[i];
            c->op = ops[below(rng, nops)];
        }
    } while (through_mpi(out->path) ? !mpi_judges_alike(c->kind, c->type, c->op) : !native_takes(c->kind, c->type));
    out->bytes = draw_bytes(rng, lim->max_bytes);
    c->count = count_for(c->kind, out->bytes, c->type->size, lim->world_size);
    c->root = (int)below(rng, 1024);
    c->in_place = may_be_in_place(c->kind) && below(rng, 3) == 0;
    c->misalign = below(rng, 4) == 0;
    c->null_recv = may_pass_null_recv(c->kind) && below(rng, 4) == 0;
    c->mem = lim->host_only ? MEM_HOST : MEM_DEVICE;
    /* Open MPI 4.1's in-place MPI_Ialltoallv is wrong with uneven counts (without mcoll too);
     * host buffers go to it untouched, device buffers are staged out of place (operation.c). */
    if (c->mem == MEM_HOST && out->path == SOAK_MPI_NONBLOCKING && c->kind == COLL_ALLTOALLV) c->in_place = 0;
    /* A call that moves nothing may enqueue nothing: no graph to capture. */
    if (out->path == SOAK_GRAPH && c->count == 0) out->path = SOAK_NATIVE;
    /* World half the time, the others share the rest. */
    out->comm = lim->ncomms > 1 && below(rng, 2) ? 1 + (int)below(rng, (size_t)lim->ncomms - 1) : 0;
    out->barrier = below(rng, 100) == 0;
}

#define LADDER_FIRST ((size_t)64 << 10) /* the request pool's smallest block */

static int ladder_sizes(size_t max)
{
    int n = 1;
    size_t b;
    for (b = LADDER_FIRST; b < max; b *= 2) n++;
    return n;
}

int soak_ladder_length(const soak_limits *lim)
{
    return NUM_KINDS + NUM_KINDS * ladder_sizes(lim->max_bytes);
}

void soak_ladder(const soak_limits *lim, int i, soak_call *out)
{
    coll_case *c = &out->c;
    int blocking = NUM_KINDS, k;
    memset(out, 0, sizeof *out);
    out->comm = 0;
    out->path = i < blocking ? SOAK_MPI : SOAK_MPI_NONBLOCKING;
    if (i < blocking) {
        c->kind = (coll_kind)i;
        out->bytes = lim->max_bytes;
    } else {
        i -= blocking;
        c->kind = (coll_kind)(i % NUM_KINDS);
        out->bytes = LADDER_FIRST;
        for (k = 0; k < i / NUM_KINDS; k++) out->bytes *= 2;
        if (out->bytes > lim->max_bytes) out->bytes = lim->max_bytes;
    }
    /* A padded pair is staged by every engine; the block calls (staged anyway) move doubles. */
    c->type = type_get(blocks_kind(c->kind) ? TT_DOUBLE : TT_DOUBLE_INT);
    c->op = is_reduction(c->kind) ? op_get(OP_MINLOC) : NULL;
    c->count = count_for(c->kind, out->bytes, c->type->size, lim->world_size);
    c->mem = lim->host_only ? MEM_HOST : MEM_DEVICE;
    /* Open MPI 4.1's in-place MPI_Ialltoallv is wrong with uneven counts (without mcoll too);
     * host buffers go to it untouched, device buffers are staged out of place (operation.c). */
    if (c->mem == MEM_HOST && out->path == SOAK_MPI_NONBLOCKING && c->kind == COLL_ALLTOALLV) c->in_place = 0;
}
