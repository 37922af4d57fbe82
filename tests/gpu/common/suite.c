/* The correctness matrices; see suite.h. */
#include <stddef.h>
#include "prep.h"
#include "report.h"
#include "suite.h"

#define LEN(a) (sizeof(a) / sizeof((a)[0]))

static const size_t counts_full[] = {0, 1, 2, 3, 7, 1023, ((size_t)1 << 20) + 3};
/* Quick runs keep one count above every LL threshold (8 KiB of payload on two GPUs), so that the
 * launched and zero-copy kernels run for every datatype too. */
static const size_t counts_quick[] = {0, 1, 7, 1023, ((size_t)1 << 14) + 3};
static const size_t blocks_full[] = {0, 1, 2, 3, 7, 1023, ((size_t)1 << 18) + 3};

/* in_place, misalign */
static const int variants_full[][2] = {{0, 0}, {0, 1}, {1, 0}, {1, 1}};
static const int variants_quick[][2] = {{0, 0}, {1, 1}};

typedef struct {
    const size_t *counts;
    size_t ncounts;
    const int (*variants)[2];
    size_t nvariants;
} sweep;

static sweep sweep_of(int blocks)
{
    sweep s;
    if (report_quick()) {
        s.counts = counts_quick;
        s.ncounts = LEN(counts_quick);
        s.variants = variants_quick;
        s.nvariants = LEN(variants_quick);
    } else {
        s.counts = blocks ? blocks_full : counts_full;
        s.ncounts = blocks ? LEN(blocks_full) : LEN(counts_full);
        s.variants = variants_full;
        s.nvariants = LEN(variants_full);
    }
    return s;
}

static coll_case make(coll_kind kind, const test_type *type, const test_op *op, size_t count, int root,
                      int in_place, int misalign)
{
    coll_case c;
    c.kind = kind;
    c.type = type;
    c.op = op;
    c.count = count;
    c.root = root;
    c.in_place = in_place;
    c.misalign = misalign;
    c.null_recv = 0;
    c.mem = MEM_DEVICE;
    c.linear = 0;
    return c;
}

/* From this count on a case costs tens of milliseconds (mostly the host reference). */
#define LARGE_COUNT ((size_t)1 << 16)

/* Every count x variant of one collective, datatype and op. Large counts run two variants
 * (out of place aligned, in place unaligned: both dimensions still covered) and no alias
 * handles (the same kernels as int64/uint64), which keeps a full run within minutes. */
static void run_sweep(coll_api *api, const sweep *s, coll_kind kind, const test_type *type, const test_op *op, int root)
{
    size_t i, v;
    coll_case c;
    for (i = 0; i < s->ncounts; i++) {
        int large = s->counts[i] >= LARGE_COUNT;
        if (large && type->alias) continue;
        for (v = 0; v < s->nvariants; v++) {
            if (large && s->variants[v][0] != s->variants[v][1]) continue;
            c = make(kind, type, op, s->counts[i], root, s->variants[v][0], s->variants[v][1]);
            case_run(api, &c);
        }
    }
}

/* Quick mode's ops of a reduction: one of each kind (arithmetic, ordering, bitwise, logical,
 * pairs; products of complex numbers, whose kernels differ from their sums). */
static int quick_op(const test_op *op, const test_type *type)
{
    return op->id == OP_SUM || op->id == OP_MIN || op->id == OP_BXOR || op->id == OP_LXOR || op->id == OP_MINLOC ||
           (op->id == OP_PROD && type->format >= FMT_CF32);
}

/* Elements of `type` just past the default one-shot limit (256 KiB), so that quick mode also
 * runs the two-shot algorithms. */
static size_t past_oneshot(const test_type *type) { return ((size_t)256 << 10) / type->size + 3; }

void suite_allreduce(coll_api *api)
{
    sweep s = sweep_of(0);
    size_t t, o;
    coll_case c;
    static const struct { type_id type; op_id op; } two_shot[] = {
        {TT_FLOAT, OP_SUM}, {TT_BFLOAT16, OP_SUM}, {TT_INT64, OP_SUM}, {TT_INT8, OP_SUM}, {TT_BOOL, OP_LOR},
        {TT_CFLOAT, OP_PROD}, {TT_DOUBLE_INT, OP_MINLOC}, {TT_SHORT_INT, OP_MAXLOC}};

    /* Aliases too, even in quick mode: the MPI below may treat a handle differently (Open MPI
     * 4.1.2-4.1.4 compares MPI_UNSIGNED_LONG as signed in MIN/MAX), which the staged path inherits. */
    for (t = 0; t < num_reducible_types; t++) {
        const test_type *type = &reducible_types[t];
        for (o = 0; o < num_test_ops; o++)
            if (op_applies(&test_ops[o], type)) run_sweep(api, &s, COLL_ALLREDUCE, type, &test_ops[o], 0);
    }
    if (!report_quick()) return;
    for (t = 0; t < LEN(two_shot); t++) {
        const test_type *type = type_get(two_shot[t].type);
        c = make(COLL_ALLREDUCE, type, op_get(two_shot[t].op), past_oneshot(type), 0, 0, 0);
        case_run(api, &c);
    }
}

void suite_reduce(coll_api *api)
{
    static const struct { type_id type; op_id op; } every_root[] = {
        {TT_FLOAT, OP_SUM}, {TT_BFLOAT16, OP_SUM}, {TT_INT32, OP_BXOR}, {TT_UINT64, OP_MAX}, {TT_DOUBLE_INT, OP_MAXLOC}};
    static const size_t quick_counts[] = {1, 1023};
    sweep s = sweep_of(0);
    size_t t, o, k;
    int root, rotating = 0;
    coll_case c;

    /* The whole matrix, with the root moving on at each datatype x op. */
    for (t = 0; t < num_reducible_types; t++) {
        const test_type *type = &reducible_types[t];
        if (type->alias && report_quick()) continue;
        for (o = 0; o < num_test_ops; o++) {
            if (!op_applies(&test_ops[o], type)) continue;
            root = rotating++ % api->size;
            if (report_quick()) {
                c = make(COLL_REDUCE, type, &test_ops[o], 1023, root, 0, 0);
                case_run(api, &c);
            } else {
                run_sweep(api, &s, COLL_REDUCE, type, &test_ops[o], root);
            }
        }
    }
    /* Every root for a few datatypes and ops. */
    for (k = 0; k < LEN(every_root); k++)
        for (root = 0; root < api->size; root++) {
            const test_type *type = type_get(every_root[k].type);
            const test_op *op = op_get(every_root[k].op);
            if (report_quick()) {
                sweep q = s;
                q.counts = quick_counts;
                q.ncounts = LEN(quick_counts);
                run_sweep(api, &q, COLL_REDUCE, type, op, root);
            } else {
                run_sweep(api, &s, COLL_REDUCE, type, op, root);
            }
            c = make(COLL_REDUCE, type, op, 1023, root, 0, 0);
            c.null_recv = 1;
            case_run(api, &c);
        }
}

void suite_bcast(coll_api *api)
{
    static const type_id full_types[] = {TT_BYTE, TT_FLOAT16, TT_FLOAT, TT_DOUBLE, TT_UINT64};
    static const type_id quick_types[] = {TT_BYTE, TT_FLOAT16, TT_DOUBLE};
    static const size_t quick_counts[] = {1, 3, 1023, ((size_t)1 << 14) + 3};
    const type_id *types = report_quick() ? quick_types : full_types;
    size_t ntypes = report_quick() ? LEN(quick_types) : LEN(full_types);
    const size_t *counts = report_quick() ? quick_counts : counts_full;
    size_t ncounts = report_quick() ? LEN(quick_counts) : LEN(counts_full);
    size_t t, i;
    int root, misalign;
    coll_case c;

    for (t = 0; t < ntypes; t++)
        for (root = 0; root < api->size; root++)
            for (i = 0; i < ncounts; i++)
                for (misalign = 0; misalign < 2; misalign++) {
                    c = make(COLL_BCAST, type_get(types[t]), NULL, counts[i], root, 0, misalign);
                    case_run(api, &c);
                }
}

void suite_reduce_scatter(coll_api *api)
{
    sweep s = sweep_of(1);
    size_t t, o;

    for (t = 0; t < num_reducible_types; t++) {
        const test_type *type = &reducible_types[t];
        if (type->alias && report_quick()) continue;
        for (o = 0; o < num_test_ops; o++) {
            const test_op *op = &test_ops[o];
            if (!op_applies(op, type)) continue;
            if (report_quick() && !quick_op(op, type)) continue;
            run_sweep(api, &s, COLL_REDUCE_SCATTER, type, op, 0);
        }
    }
}

void suite_allgather(coll_api *api)
{
    static const type_id types[] = {TT_BYTE, TT_FLOAT16, TT_FLOAT, TT_INT64};
    sweep s = sweep_of(1);
    size_t t;
    for (t = 0; t < LEN(types); t++) run_sweep(api, &s, COLL_ALLGATHER, type_get(types[t]), NULL, 0);
}

void suite_blocks(coll_api *api)
{
    static const coll_kind unrooted[] = {COLL_ALLGATHERV, COLL_ALLTOALL, COLL_ALLTOALLV};
    static const coll_kind rooted[] = {COLL_GATHER, COLL_GATHERV, COLL_SCATTER, COLL_SCATTERV};
    static const type_id types[] = {TT_BYTE, TT_FLOAT16, TT_FLOAT, TT_INT64, TT_CDOUBLE};
    static const type_id every_root[] = {TT_BYTE, TT_FLOAT};
    static const size_t root_counts[] = {1, 7, 1023};
    sweep s = sweep_of(1), q = s;
    size_t k, t;
    int root, rotating = 0;
    coll_case c;

    q.counts = root_counts;
    q.ncounts = LEN(root_counts);
    for (k = 0; k < LEN(unrooted); k++)
        for (t = 0; t < LEN(types); t++) run_sweep(api, &s, unrooted[k], type_get(types[t]), NULL, 0);
    for (k = 0; k < LEN(rooted); k++) {
        for (t = 0; t < LEN(types); t++) run_sweep(api, &s, rooted[k], type_get(types[t]), NULL, rotating++ % api->size);
        for (t = 0; t < LEN(every_root); t++)
            for (root = 0; root < api->size; root++) run_sweep(api, &q, rooted[k], type_get(every_root[t]), NULL, root);
        if (rooted[k] != COLL_GATHER && rooted[k] != COLL_GATHERV) continue;
        for (root = 0; root < api->size; root++) {
            c = make(rooted[k], type_get(TT_FLOAT), NULL, 1023, root, 0, 0);
            c.null_recv = 1;
            case_run(api, &c);
        }
    }
}

void suite_scan(coll_api *api)
{
    static const coll_kind kinds[] = {COLL_SCAN, COLL_EXSCAN};
    static const size_t full_counts[] = {1, 7, 1023};
    static const size_t quick_counts[] = {1, 1023};
    static const struct { type_id type; op_id op; } two_shot[] = {
        {TT_FLOAT, OP_SUM}, {TT_BFLOAT16, OP_SUM}, {TT_INT64, OP_SUM}, {TT_INT8, OP_PROD}, {TT_BOOL, OP_LXOR},
        {TT_CFLOAT, OP_PROD}, {TT_DOUBLE_INT, OP_MINLOC}, {TT_SHORT_INT, OP_MAXLOC}};
    sweep s = sweep_of(0);
    size_t k, t, o;
    coll_case c;

    s.counts = report_quick() ? quick_counts : full_counts;
    s.ncounts = report_quick() ? LEN(quick_counts) : LEN(full_counts);
    for (k = 0; k < LEN(kinds); k++) {
        /* Exscan: out of place aligned and in place unaligned (both dimensions) keep the full
         * matrix within a minute at 4 ranks. */
        if (kinds[k] == COLL_EXSCAN) {
            s.variants = variants_quick;
            s.nvariants = LEN(variants_quick);
        }
        c = make(kinds[k], type_get(TT_FLOAT), op_get(OP_SUM), 0, 0, 0, 0);
        case_run(api, &c);
        for (t = 0; t < num_reducible_types; t++) {
            const test_type *type = &reducible_types[t];
            if (type->alias && report_quick()) continue;
            for (o = 0; o < num_test_ops; o++) {
                const test_op *op = &test_ops[o];
                if (!op_applies(op, type)) continue;
                if (report_quick() && !quick_op(op, type)) continue;
                run_sweep(api, &s, kinds[k], type, op, 0);
            }
        }
        /* Two-shot: every rank computes every rank's prefix of its slice. */
        for (t = 0; t < LEN(two_shot); t++) {
            const test_type *type = type_get(two_shot[t].type);
            c = make(kinds[k], type, op_get(two_shot[t].op), past_oneshot(type), 0, 0, 0);
            case_run(api, &c);
            c.in_place = c.misalign = 1;
            case_run(api, &c);
        }
    }
}

void suite_matrix(coll_api *api)
{
    suite_allreduce(api);
    suite_reduce(api);
    suite_bcast(api);
    suite_reduce_scatter(api);
    suite_allgather(api);
    suite_blocks(api);
    suite_scan(api);
}

void suite_large(coll_api *api, int with_int)
{
    /* 2^28 + 3 four-byte elements: just over 1 GiB, and not a multiple of any vector width. */
    size_t count = ((size_t)1 << 28) + 3;
    coll_case c;
    if (report_quick()) return;
    c = make(COLL_ALLREDUCE, type_get(TT_FLOAT), op_get(OP_SUM), count, 0, 0, 0);
    c.linear = 1; /* a reference in closed form: checking every element stays cheap */
    case_run(api, &c);
    if (!with_int) return;
    c = make(COLL_ALLREDUCE, type_get(TT_INT32), op_get(OP_SUM), count, 0, 0, 0);
    c.linear = 1;
    case_run(api, &c);
}

void suite_subset(coll_api *api)
{
    static const struct { type_id type; op_id op; } reductions[] = {
        {TT_FLOAT, OP_SUM}, {TT_BFLOAT16, OP_SUM}, {TT_INT32, OP_BXOR}, {TT_UINT64, OP_MAX}, {TT_DOUBLE, OP_PROD}};
    static const size_t full_counts[] = {1, 1023, ((size_t)1 << 20) + 3};
    static const size_t full_blocks[] = {1023, ((size_t)1 << 18) + 3};
    static const size_t quick_counts[] = {1, 1023};
    const size_t *counts = report_quick() ? quick_counts : full_counts;
    const size_t *blocks = report_quick() ? quick_counts : full_blocks;
    size_t ncounts = report_quick() ? LEN(quick_counts) : LEN(full_counts);
    size_t nblocks = report_quick() ? LEN(quick_counts) : LEN(full_blocks);
    size_t k, i, v;
    int root;
    coll_case c;

    for (k = 0; k < LEN(reductions); k++)
        for (i = 0; i < ncounts; i++)
            for (v = 0; v < LEN(variants_quick); v++) {
                c = make(COLL_ALLREDUCE, type_get(reductions[k].type), op_get(reductions[k].op), counts[i], 0,
                         variants_quick[v][0], variants_quick[v][1]);
                case_run(api, &c);
            }
    for (root = 0; root < api->size; root++)
        for (i = 0; i < ncounts; i++) {
            c = make(COLL_BCAST, type_get(TT_BYTE), NULL, counts[i] + 6, root, 0, (int)i & 1);
            case_run(api, &c);
            c = make(COLL_REDUCE, type_get(TT_FLOAT), op_get(OP_SUM), counts[i], root, root & 1, 0);
            case_run(api, &c);
        }
    for (i = 0; i < nblocks; i++)
        for (v = 0; v < LEN(variants_quick); v++) {
            c = make(COLL_REDUCE_SCATTER, type_get(TT_FLOAT), op_get(OP_SUM), blocks[i], 0, 0, variants_quick[v][1]);
            case_run(api, &c);
            c = make(COLL_REDUCE_SCATTER, type_get(TT_INT64), op_get(OP_MIN), blocks[i], 0, 0, variants_quick[v][1]);
            case_run(api, &c);
            c = make(COLL_ALLGATHER, type_get(TT_FLOAT), NULL, blocks[i], 0, variants_quick[v][0], variants_quick[v][1]);
            case_run(api, &c);
        }
}

coll_case suite_mixed_native(int i, int size)
{
    static const coll_kind kinds[] = {COLL_ALLGATHERV, COLL_SCAN, COLL_ALLTOALLV, COLL_GATHERV, COLL_EXSCAN,
                                      COLL_SCATTERV, COLL_ALLTOALL, COLL_GATHER, COLL_SCATTER};
    static const struct { type_id type; op_id op; } reductions[] = {
        {TT_FLOAT, OP_SUM}, {TT_INT32, OP_BXOR}, {TT_DOUBLE, OP_MAX}, {TT_UINT16, OP_PROD}, {TT_FLOAT_INT, OP_MINLOC}};
    static const type_id types[] = {TT_FLOAT, TT_BYTE, TT_INT64, TT_FLOAT16};
    static const size_t counts[] = {1023, 65539, 7, 1};
    coll_kind kind = kinds[i % (int)LEN(kinds)];
    int scan = kind == COLL_SCAN || kind == COLL_EXSCAN;
    coll_case c = make(kind, scan ? type_get(reductions[i % (int)LEN(reductions)].type) : type_get(types[i % (int)LEN(types)]),
                       scan ? op_get(reductions[i % (int)LEN(reductions)].op) : NULL, counts[(i / 2) % (int)LEN(counts)],
                       i % size, i % 3 == 0, i % 2);
    return c;
}

coll_case suite_mixed(int i, int size)
{
    static const coll_kind kinds[] = {COLL_ALLREDUCE, COLL_BCAST, COLL_REDUCE_SCATTER, COLL_ALLGATHER, COLL_REDUCE};
    static const struct { type_id type; op_id op; } reductions[] = {
        {TT_FLOAT, OP_SUM}, {TT_BFLOAT16, OP_MAX}, {TT_INT32, OP_BXOR}, {TT_UINT64, OP_PROD},
        {TT_DOUBLE, OP_MIN}, {TT_FLOAT16, OP_SUM}, {TT_INT64, OP_BAND}, {TT_UINT32, OP_BOR}};
    static const size_t counts[] = {1023, 65539, 7, 1};
    coll_case c;
    c = make(kinds[i % (int)LEN(kinds)], type_get(reductions[i % (int)LEN(reductions)].type),
             op_get(reductions[i % (int)LEN(reductions)].op), counts[(i / 2) % (int)LEN(counts)], i % size, 0, i % 2);
    /* In place where MPI allows it; reduce_scatter in place is not what these sequences are about. */
    c.in_place = i % 3 == 0 && c.kind != COLL_BCAST && c.kind != COLL_REDUCE_SCATTER;
    if (c.kind == COLL_REDUCE_SCATTER || c.kind == COLL_ALLGATHER) c.count = c.count / (size_t)size + 1;
    return c;
}
