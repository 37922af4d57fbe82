/* OSU look-alike driver: buffers, size loop, timing and rows; see bench_osu.h. The options and
 * header lines are in bench_osu_opts.c. */
#include "bench_osu.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_cli.h"
#include "bench_cuda.h"
#include "bench_env.h"
#include "bench_mem.h"
#include "bench_osu_nbc.h"
#include "bench_osu_opts.h"
#include "bench_osu_run.h"

static size_t total_bytes(const osu_run *r, size_t size)
{
    return r->b->per_rank_size ? size * (size_t)r->nranks : size;
}

/* Shape of this rank's call at `size` in type t, with `root`. -1: no element to move. */
static int shape_of(const osu_run *r, const bench_dtype *t, size_t size, int root, bench_shape *s)
{
    int rc = r->b->uneven ? bench_shape_reduce_scatter_v(size, t->size, r->nranks, r->rank, s)
                          : bench_shape_for(r->b->coll, total_bytes(r, size), t->size, r->nranks, r->rank, s);
    s->root = root;
    return rc;
}

int osu_is_rotating(const osu_run *r)
{
    return r->o->root == OSU_ROOT_ROTATE && bench_coll_has_root(r->b->coll);
}

void osu_make_args(const osu_run *r, const bench_shape *s, bench_osu_args *a)
{
    int in_place = r->o->in_place && (r->b->coll != BENCH_REDUCE || r->rank == s->root);
    a->send = in_place ? MPI_IN_PLACE : r->send;
    a->recv = r->recv;
    a->count = (int)s->count;
    a->counts = r->counts;
    a->dtype = bench_dtype_mpi(r->t);
    a->op = MPI_SUM;
    a->root = s->root;
    a->comm = MPI_COMM_WORLD;
}

/* Put fresh inputs for `seed` into the buffers. */
static void load_inputs(const osu_run *r, const bench_shape *s, int seed)
{
    size_t recv_elems = bench_recv_buffer_elems(r->b->coll, s, r->o->in_place);
    bench_check_inputs(r->b->coll, r->t, s, r->rank, r->o->in_place, seed, r->hsend, r->hrecv);
    bench_mem_put(r->o->mem, r->send, r->hsend, s->send_elems * r->t->size);
    bench_mem_put(r->o->mem, r->recv, r->hrecv, recv_elems * r->t->size);
}

static void check(int rc)
{
    if (rc != MPI_SUCCESS) {
        char msg[MPI_MAX_ERROR_STRING + 64];
        int len = 0;
        strcpy(msg, "MPI call failed: ");
        MPI_Error_string(rc, msg + strlen(msg), &len);
        bench_fatal(__FILE__, __LINE__, msg);
    }
}

void osu_start(const osu_run *r, const bench_osu_args *a, MPI_Request *req)
{
    check(r->b->icall(a, req));
}

void osu_wait(MPI_Request *req)
{
    check(MPI_Wait(req, MPI_STATUS_IGNORE));
}

void osu_call(const osu_run *r, const bench_osu_args *a)
{
    MPI_Request req;
    if (!r->b->icall) {
        check(r->b->call(a));
        return;
    }
    osu_start(r, a, &req);
    osu_wait(&req);
}

/* Mean latency in microseconds of this rank's timed calls; with -z, each one in r->lat. With
 * -k rotate, call i (warm-up calls counted) has root i % ranks, as in OSU. */
static double time_size(const osu_run *r, bench_shape *s, long warmup, long iters)
{
    bench_osu_args a;
    double total = 0;
    osu_make_args(r, s, &a);
    MPI_Barrier(MPI_COMM_WORLD);
    for (long i = 0; i < warmup + iters; i++) {
        if (osu_is_rotating(r)) {
            s->root = (int)(i % r->nranks);
            osu_make_args(r, s, &a);
        }
        double t0 = MPI_Wtime();
        osu_call(r, &a);
        double t1 = MPI_Wtime();
        if (i >= warmup) {
            total += t1 - t0;
            if (r->lat)
                r->lat[i - warmup] = (t1 - t0) * 1e6;
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    return total * 1e6 / (double)iters;
}

/* Elements wrong over all ranks after one call on fresh input, preceded by -u untimed calls.
 * With -k rotate the checked call's root is seed % ranks, so the sizes check different roots. */
static long long validate(const osu_run *r, bench_shape *s, int seed)
{
    bench_osu_args a;
    size_t recv_elems = bench_recv_buffer_elems(r->b->coll, s, r->o->in_place);
    long long bad, total = 0;
    if (osu_is_rotating(r))
        s->root = seed % r->nranks;
    osu_make_args(r, s, &a);
    if (r->o->validation_warmup > 0) {
        load_inputs(r, s, seed);
        for (int i = 0; i < r->o->validation_warmup; i++) {
            MPI_Barrier(MPI_COMM_WORLD);
            osu_call(r, &a);
        }
    }
    load_inputs(r, s, seed);
    MPI_Barrier(MPI_COMM_WORLD);
    osu_call(r, &a);
    bench_mem_get(r->o->mem, r->hrecv, r->recv, recv_elems * r->t->size);
    bad = (long long)bench_check_result(r->b->coll, r->t, s, r->rank, r->nranks, r->o->in_place, seed, r->hrecv);
    MPI_Allreduce(&bad, &total, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    return total;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Rank 0: the -z columns, nearest-rank percentiles of the per-call latency averaged over ranks. */
static void print_tail(const osu_run *r, long iters)
{
    qsort(r->lat_sum, (size_t)iters, sizeof *r->lat_sum, by_value);
    for (int i = 0; i < r->o->ntail; i++) {
        long k = (long)ceil((double)iters * r->o->tail[i] / 100.0) - 1;
        k = k < 0 ? 0 : k >= iters ? iters - 1 : k;
        printf("%*.*f", OSU_FIELD_WIDTH, OSU_PRECISION, r->lat_sum[k] / r->nranks);
    }
}

/* One row. Returns -1 when the size holds no element (no row), else 1 if the validation
 * failed and 0 if not. */
static int run_size(const osu_run *r, size_t size, int seed)
{
    const osu_options *o = r->o;
    bench_shape s;
    double lat, lo, hi, sum;
    int large = size > OSU_LARGE_MESSAGE;
    long iters = large ? o->iters_large : o->iters;
    long long wrong = 0;

    if (shape_of(r, r->t, size, bench_coll_has_root(r->b->coll) && !osu_is_rotating(r) ? o->root : BENCH_ROOT, &s) != 0)
        return -1;
    if (r->counts) {
        size_t elems = size / r->t->size;
        for (int q = 0; q < r->nranks; q++)
            r->counts[q] = (int)bench_reduce_scatter_v_count(elems, r->nranks, q);
    }
    if (r->b->icall) {
        osu_nbc_times t;
        osu_nbc_time(r, &s, large ? o->warmup_large : o->warmup, iters, &t);
        if (o->validate)
            wrong = validate(r, &s, seed);
        osu_nbc_print_row(r, size, &t, wrong);
        return wrong != 0;
    }
    lat = time_size(r, &s, large ? o->warmup_large : o->warmup, iters);
    MPI_Reduce(&lat, &lo, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
    MPI_Reduce(&lat, &hi, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&lat, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (r->lat)
        MPI_Reduce(r->lat, r->lat_sum, (int)iters, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (o->validate)
        wrong = validate(r, &s, seed);
    if (r->rank == 0) {
        printf("%-*zu%*.*f", 10, size, OSU_FIELD_WIDTH, OSU_PRECISION, sum / r->nranks);
        if (o->full)
            printf("%*.*f%*.*f%*ld", OSU_FIELD_WIDTH, OSU_PRECISION, lo, OSU_FIELD_WIDTH, OSU_PRECISION, hi, 12, iters);
        if (o->validate)
            printf("%*s", OSU_FIELD_WIDTH, wrong ? "Fail" : "Pass");
        if (r->lat)
            print_tail(r, iters);
        printf("\n");
        fflush(stdout);
    }
    return wrong != 0;
}

/* Every size of one datatype, after its header lines. */
static int run_type(osu_run *r, const bench_dtype *t)
{
    bench_shape max;
    int failed = 0, seed = 0;
    r->t = t;
    if (r->rank == 0)
        osu_print_columns(r->b, r->o, t);
    /* Timed calls work on numbers of this type, never on uninitialised memory. */
    if (shape_of(r, t, r->max_size, 0, &max) == 0)
        load_inputs(r, &max, 0);
    for (size_t size = r->o->min_size; size <= r->max_size; size *= 2) {
        failed |= run_size(r, size, ++seed) > 0;
        if (size > r->max_size / 2)
            break; /* the next doubling would pass MAX (or wrap) */
    }
    return failed;
}

/* OSU's -M: a buffer larger than the limit lowers the largest size, with a warning. */
static void apply_mem_limit(osu_run *r)
{
    size_t limit = r->o->mem_limit, n = (size_t)r->nranks;
    r->max_size = r->o->max_size;
    if (r->b->per_rank_size && r->max_size > limit / n)
        r->max_size = limit / n;
    else if (!r->b->per_rank_size && r->max_size > limit)
        r->max_size = limit;
    if (r->max_size != r->o->max_size && r->rank == 0)
        fprintf(stderr, "%s: warning: largest size lowered to %zu bytes by the memory limit (-M %zu); "
                        "raise -M for larger sizes\n", r->prog, r->max_size, limit);
}

/* Buffers for the largest size of every datatype. Returns 0, or BENCH_EXIT_USAGE after rank 0
 * said why. */
static int allocate(osu_run *r)
{
    const osu_options *o = r->o;
    size_t send_bytes = 1, recv_bytes = 1, any = 0;
    long most = o->iters > o->iters_large ? o->iters : o->iters_large;
    for (int i = 0; i < o->ntypes; i++) {
        bench_shape s;
        const bench_dtype *t = o->types[i];
        if (shape_of(r, t, r->max_size, 0, &s) != 0)
            continue;
        any = 1;
        if (s.count > INT_MAX) {
            if (r->rank == 0)
                fprintf(stderr, "%s: -m: %zu bytes of %s need a count above INT_MAX\n", r->prog, r->max_size,
                        t->mpi_name);
            return BENCH_EXIT_USAGE;
        }
        if (s.send_elems * t->size > send_bytes)
            send_bytes = s.send_elems * t->size;
        if (bench_recv_buffer_elems(r->b->coll, &s, o->in_place) * t->size > recv_bytes)
            recv_bytes = bench_recv_buffer_elems(r->b->coll, &s, o->in_place) * t->size;
    }
    if (!any && r->rank == 0)
        fprintf(stderr, "%s: -m: %zu bytes hold no element%s of the chosen datatypes: nothing to measure\n",
                r->prog, r->max_size, r->b->per_rank_size || r->b->uneven ? "" : " per rank");
    r->send = bench_mem_alloc(o->mem, send_bytes);
    r->recv = bench_mem_alloc(o->mem, recv_bytes);
    r->hsend = o->mem == BENCH_MEM_HOST ? r->send : bench_mem_alloc(BENCH_MEM_HOST, send_bytes);
    r->hrecv = o->mem == BENCH_MEM_HOST ? r->recv : bench_mem_alloc(BENCH_MEM_HOST, recv_bytes);
    if (r->b->uneven && !(r->counts = calloc((size_t)r->nranks, sizeof *r->counts)))
        bench_fatal(__FILE__, __LINE__, "out of host memory");
    if (o->ntail > 0) {
        r->lat = calloc((size_t)most, sizeof *r->lat);
        r->lat_sum = calloc((size_t)most, sizeof *r->lat_sum);
        if (!r->lat || !r->lat_sum)
            bench_fatal(__FILE__, __LINE__, "out of host memory for -z");
    }
    return 0;
}

static void release(osu_run *r)
{
    if (r->o->mem != BENCH_MEM_HOST) {
        bench_mem_free(BENCH_MEM_HOST, r->hsend);
        bench_mem_free(BENCH_MEM_HOST, r->hrecv);
    }
    bench_mem_free(r->o->mem, r->send);
    bench_mem_free(r->o->mem, r->recv);
    free(r->counts);
    free(r->lat);
    free(r->lat_sum);
}

int bench_osu_main(int argc, char **argv, const bench_osu *b)
{
    osu_options o;
    osu_run r;
    char why[256];
    int rc = osu_parse_options(argc, argv, b, &o), failed = 0;
    if (rc != 0)
        return rc > 0 ? 0 : BENCH_EXIT_USAGE;
    /* The GPU is chosen before MPI_Init; host runs never touch CUDA. */
    if (o.mem != BENCH_MEM_HOST && bench_select_device(why, sizeof why) < 0) {
        if (bench_env_is_printer())
            fprintf(stderr, "%s: -d %s: %s; nothing to measure (without -d the buffers are in host memory)\n",
                    bench_prog_name(argv[0]), o.mem == BENCH_MEM_CUDA ? "cuda" : "managed", why);
        return BENCH_EXIT_NO_GPU;
    }
    MPI_Init(&argc, &argv);
    memset(&r, 0, sizeof r);
    r.b = b;
    r.o = &o;
    r.prog = bench_prog_name(argv[0]);
    MPI_Comm_rank(MPI_COMM_WORLD, &r.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &r.nranks);
    if (bench_coll_has_root(b->coll) && o.root != OSU_ROOT_ROTATE && o.root >= r.nranks) {
        if (r.rank == 0)
            fprintf(stderr, "%s: -k: root %d is not below the %d ranks\n", r.prog, o.root, r.nranks);
        MPI_Finalize();
        return BENCH_EXIT_USAGE;
    }
    apply_mem_limit(&r);
    rc = allocate(&r);
    if (rc != 0) {
        MPI_Finalize();
        return rc;
    }
    if (r.rank == 0)
        osu_print_preamble(b, &o);
    for (int i = 0; i < o.ntypes; i++)
        failed |= run_type(&r, o.types[i]);
    release(&r);
    MPI_Finalize();
    return failed ? 1 : 0;
}
