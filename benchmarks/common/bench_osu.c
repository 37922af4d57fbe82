/* OSU-format driver; see bench_osu.h. */
#include "bench_osu.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_cli.h"
#include "bench_cuda.h"
#include "bench_env.h"
#include "bench_mem.h"

#define FIELD_WIDTH 20
#define PRECISION 2
#define LARGE_MESSAGE 8192 /* above this, OSU's smaller default iteration counts apply */

typedef struct {
    bench_mem mem;
    size_t min_size, max_size;
    long iters, iters_large, warmup, warmup_large;
    int full, validate, in_place;
    const bench_dtype *dtype;
} osu_options;

static const bench_opt options[] = {
    { 'd', "accelerator", BENCH_REQUIRED_ARG }, { 'm', "message-size", BENCH_REQUIRED_ARG },
    { 'i', "iterations", BENCH_REQUIRED_ARG },  { 'x', "warmup", BENCH_REQUIRED_ARG },
    { 'f', "full", BENCH_NO_ARG },              { 'c', "validation", BENCH_NO_ARG },
    { 'T', "type", BENCH_REQUIRED_ARG },        { 'l', "in-place", BENCH_NO_ARG },
    { 'h', "help", BENCH_NO_ARG },              { 0, NULL, 0 }
};

static const char *size_meaning(const bench_osu *b)
{
    switch (b->coll) {
    case BENCH_REDUCE_SCATTER: return "the whole send buffer; each rank receives Size / ranks";
    case BENCH_ALLGATHER: return "what each rank sends";
    default: return "the buffer";
    }
}

static void usage(const char *prog, const bench_osu *b)
{
    printf("Usage: %s [options]\n"
           "OSU-format %s latency test; every call is an ordinary MPI call.\n\n"
           "  -d, --accelerator TYPE   buffers in 'cuda' (GPU) or 'host' memory [cuda]\n"
           "  -m, --message-size [MIN:]MAX\n"
           "                           message sizes in bytes, doubling from MIN to MAX [1:1048576]\n"
           "                           (K, M, G suffixes; sizes below one element%s are skipped)\n"
           "  -i, --iterations N       timed calls per size [1000; 100 above %d bytes]\n"
           "  -x, --warmup N           untimed calls per size first [200; 10 above %d bytes]\n"
           "  -f, --full               also print Min, Max latency and Iterations\n"
           "  -c, --validation         check every element after the timed calls: Validation column\n"
           "  -T, --type TYPE          datatype [mpi_float]: %s\n"
           "  -l, --in-place           MPI_IN_PLACE as the send buffer%s\n"
           "  -h, --help               this text\n\n"
           "Size is %s, in bytes.\n"
           "Exit status: 0; 1 if a validation failed; %d on a command-line error; %d when -d cuda\n"
           "finds no GPU.\n",
           prog, b->title, b->per_rank_size ? "" : " per rank", LARGE_MESSAGE, LARGE_MESSAGE,
           bench_dtype_names(), b->coll == BENCH_BCAST ? " (not for broadcast)" : "",
           size_meaning(b), BENCH_EXIT_USAGE, BENCH_EXIT_NO_GPU);
}

static int bad_value(const char *what, const char *value)
{
    if (bench_env_is_printer())
        fprintf(stderr, "invalid %s '%s' (see -h)\n", what, value ? value : "");
    return -1;
}

/* -m accepts MAX, MIN:MAX and MIN: as OSU does. */
static int parse_sizes(const char *text, osu_options *o)
{
    char lo[64], *colon;
    if (strlen(text) >= sizeof lo)
        return -1;
    strcpy(lo, text);
    colon = strchr(lo, ':');
    if (!colon)
        return bench_parse_bytes(lo, &o->max_size);
    *colon = '\0';
    if (bench_parse_bytes(lo, &o->min_size) != 0)
        return -1;
    if (colon[1] != '\0' && bench_parse_bytes(colon + 1, &o->max_size) != 0)
        return -1;
    return 0;
}

/* 0: run; 1: help printed; -1: error printed. */
static int parse_options(int argc, char **argv, const bench_osu *b, osu_options *o)
{
    bench_cli cli;
    const char *arg;
    int i, quiet = !bench_env_is_printer();
    long v;

    o->mem = BENCH_MEM_CUDA;
    o->min_size = 1;
    o->max_size = 1 << 20;
    o->iters = 1000, o->iters_large = 100;
    o->warmup = 200, o->warmup_large = 10;
    o->full = o->validate = o->in_place = 0;
    o->dtype = bench_dtype_find("float");

    if (bench_cli_init(&cli, argc, argv, options, quiet) != 0)
        return -1;
    while ((i = bench_cli_next(&cli, &arg)) >= 0) {
        switch (i) {
        case 'd':
            if (strcmp(arg, "cuda") == 0)
                o->mem = BENCH_MEM_CUDA;
            else if (strcmp(arg, "host") == 0 || strcmp(arg, "cpu") == 0)
                o->mem = BENCH_MEM_HOST;
            else
                return bad_value("accelerator (want cuda or host)", arg);
            break;
        case 'm':
            if (parse_sizes(arg, o) != 0 || o->min_size == 0 || o->min_size > o->max_size)
                return bad_value("message sizes", arg);
            break;
        case 'i':
            if (bench_parse_long(arg, 1, INT_MAX, &v) != 0)
                return bad_value("iteration count", arg);
            o->iters = o->iters_large = v;
            break;
        case 'x':
            if (bench_parse_long(arg, 0, INT_MAX, &v) != 0)
                return bad_value("warm-up count", arg);
            o->warmup = o->warmup_large = v;
            break;
        case 'f': o->full = 1; break;
        case 'c': o->validate = 1; break;
        case 'l': o->in_place = 1; break;
        case 'T':
            if (!(o->dtype = bench_dtype_find(arg)))
                return bad_value("datatype", arg);
            break;
        case 'h':
            if (!quiet)
                usage(argv[0], b);
            bench_cli_fini(&cli);
            return 1;
        }
    }
    bench_cli_fini(&cli);
    if (i == -2)
        return -1;
    if (o->in_place && b->coll == BENCH_BCAST) {
        if (!quiet)
            fprintf(stderr, "-l: MPI_Bcast has no in-place form\n");
        return -1;
    }
    return 0;
}

typedef struct {
    const bench_osu *b;
    const osu_options *o;
    int rank, nranks;
    void *send, *recv;     /* the buffers the calls use */
    void *hsend, *hrecv;   /* host images (the buffers themselves with -d host) */
} osu_run;

static size_t total_bytes(const osu_run *r, size_t size)
{
    return r->b->per_rank_size ? size * (size_t)r->nranks : size;
}

static void make_args(const osu_run *r, const bench_shape *s, bench_osu_args *a)
{
    int in_place = r->o->in_place && (r->b->coll != BENCH_REDUCE || r->rank == BENCH_ROOT);
    a->send = in_place ? MPI_IN_PLACE : r->send;
    a->recv = r->recv;
    a->count = (int)s->count;
    a->dtype = bench_dtype_mpi(r->o->dtype);
    a->root = BENCH_ROOT;
    a->comm = MPI_COMM_WORLD;
}

/* Put fresh inputs for `seed` into the buffers. */
static void load_inputs(const osu_run *r, const bench_shape *s, int seed)
{
    const bench_dtype *t = r->o->dtype;
    size_t recv_elems = bench_recv_buffer_elems(r->b->coll, s, r->o->in_place);
    bench_check_inputs(r->b->coll, t, s, r->rank, r->o->in_place, seed, r->hsend, r->hrecv);
    bench_mem_put(r->o->mem, r->send, r->hsend, s->send_elems * t->size);
    bench_mem_put(r->o->mem, r->recv, r->hrecv, recv_elems * t->size);
}

static void call(const osu_run *r, const bench_osu_args *a)
{
    int rc = r->b->call(a);
    if (rc != MPI_SUCCESS) {
        char msg[MPI_MAX_ERROR_STRING + 64];
        int len = 0;
        strcpy(msg, "MPI call failed: ");
        MPI_Error_string(rc, msg + strlen(msg), &len);
        bench_fatal(__FILE__, __LINE__, msg);
    }
}

/* Mean latency in microseconds of this rank's timed calls. */
static double time_size(const osu_run *r, const bench_osu_args *a, long warmup, long iters)
{
    double total = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    for (long i = 0; i < warmup + iters; i++) {
        double t0 = MPI_Wtime();
        call(r, a);
        double t1 = MPI_Wtime();
        if (i >= warmup)
            total += t1 - t0;
        MPI_Barrier(MPI_COMM_WORLD);
    }
    return total * 1e6 / (double)iters;
}

/* Elements wrong over all ranks after one call on fresh input. */
static long long validate(const osu_run *r, const bench_shape *s, const bench_osu_args *a, int seed)
{
    const bench_dtype *t = r->o->dtype;
    size_t recv_elems = bench_recv_buffer_elems(r->b->coll, s, r->o->in_place);
    long long bad, total = 0;
    load_inputs(r, s, seed);
    MPI_Barrier(MPI_COMM_WORLD);
    call(r, a);
    bench_mem_get(r->o->mem, r->hrecv, r->recv, recv_elems * t->size);
    bad = (long long)bench_check_result(r->b->coll, t, s, r->rank, r->nranks, r->o->in_place, seed, r->hrecv);
    MPI_Allreduce(&bad, &total, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    return total;
}

static void print_header(const osu_run *r)
{
    const osu_options *o = r->o;
    printf("# OSU MPI%s %s Latency Test\n", o->mem == BENCH_MEM_CUDA ? "-CUDA" : "", r->b->title);
    printf("# Datatype: %s.\n", o->dtype->mpi_name);
    printf("%-*s%*s", 10, "# Size", FIELD_WIDTH, "Avg Latency(us)");
    if (o->full)
        printf("%*s%*s%*s", FIELD_WIDTH, "Min Latency(us)", FIELD_WIDTH, "Max Latency(us)", 12, "Iterations");
    if (o->validate)
        printf("%*s", FIELD_WIDTH, "Validation");
    printf("\n");
    fflush(stdout);
}

/* One row. Returns -1 when the size holds less than one element (no row), else 1 if the
 * validation failed and 0 if not. */
static int run_size(const osu_run *r, size_t size, int seed)
{
    const osu_options *o = r->o;
    bench_shape s;
    bench_osu_args a;
    double lat, lo, hi, sum;
    int large = size > LARGE_MESSAGE;
    long iters = large ? o->iters_large : o->iters;
    long long wrong = 0;

    if (bench_shape_for(r->b->coll, total_bytes(r, size), o->dtype->size, r->nranks, &s) != 0)
        return -1;
    make_args(r, &s, &a);
    lat = time_size(r, &a, large ? o->warmup_large : o->warmup, iters);
    MPI_Reduce(&lat, &lo, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
    MPI_Reduce(&lat, &hi, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&lat, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (o->validate)
        wrong = validate(r, &s, &a, seed);
    if (r->rank == 0) {
        printf("%-*zu%*.*f", 10, size, FIELD_WIDTH, PRECISION, sum / r->nranks);
        if (o->full)
            printf("%*.*f%*.*f%*ld", FIELD_WIDTH, PRECISION, lo, FIELD_WIDTH, PRECISION, hi, 12, iters);
        if (o->validate)
            printf("%*s", FIELD_WIDTH, wrong ? "Fail" : "Pass");
        printf("\n");
        fflush(stdout);
    }
    return wrong != 0;
}

static int run_sizes(const osu_run *r)
{
    int failed = 0, seed = 0;
    for (size_t size = r->o->min_size; size <= r->o->max_size; size *= 2) {
        failed |= run_size(r, size, ++seed) > 0;
        if (size > r->o->max_size / 2)
            break; /* the next doubling would pass MAX (or wrap) */
    }
    return failed;
}

int bench_osu_main(int argc, char **argv, const bench_osu *b)
{
    osu_options o;
    osu_run r;
    bench_shape max;
    char why[256];
    int rc = parse_options(argc, argv, b, &o);
    if (rc != 0)
        return rc > 0 ? 0 : BENCH_EXIT_USAGE;
    /* The GPU is chosen before MPI_Init; host runs never touch CUDA. */
    if (o.mem == BENCH_MEM_CUDA && bench_select_device(why, sizeof why) < 0) {
        if (bench_env_is_printer())
            fprintf(stderr, "%s: -d cuda: %s; nothing to measure (use -d host for host buffers)\n",
                    argv[0], why);
        return BENCH_EXIT_NO_GPU;
    }
    MPI_Init(&argc, &argv);
    memset(&r, 0, sizeof r);
    r.b = b;
    r.o = &o;
    MPI_Comm_rank(MPI_COMM_WORLD, &r.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &r.nranks);

    /* Buffers for the largest size, used by every size. */
    if (bench_shape_for(b->coll, total_bytes(&r, o.max_size), o.dtype->size, r.nranks, &max) != 0) {
        if (r.rank == 0)
            fprintf(stderr, "%s: -m: %zu bytes hold less than one %s%s\n", argv[0], o.max_size,
                    o.dtype->name, b->per_rank_size ? "" : " per rank");
        MPI_Finalize();
        return BENCH_EXIT_USAGE;
    }
    if (max.count > INT_MAX) {
        if (r.rank == 0)
            fprintf(stderr, "%s: -m: %zu bytes need a count above INT_MAX\n", argv[0], o.max_size);
        MPI_Finalize();
        return BENCH_EXIT_USAGE;
    }
    size_t send_bytes = max.send_elems * o.dtype->size;
    size_t recv_bytes = bench_recv_buffer_elems(b->coll, &max, o.in_place) * o.dtype->size;
    r.send = bench_mem_alloc(o.mem, send_bytes);
    r.recv = bench_mem_alloc(o.mem, recv_bytes);
    r.hsend = o.mem == BENCH_MEM_HOST ? r.send : bench_mem_alloc(BENCH_MEM_HOST, send_bytes);
    r.hrecv = o.mem == BENCH_MEM_HOST ? r.recv : bench_mem_alloc(BENCH_MEM_HOST, recv_bytes);
    load_inputs(&r, &max, 0); /* timed calls work on numbers, never on uninitialised memory */

    if (r.rank == 0)
        print_header(&r);
    int failed = run_sizes(&r);

    if (o.mem != BENCH_MEM_HOST) {
        bench_mem_free(BENCH_MEM_HOST, r.hsend);
        bench_mem_free(BENCH_MEM_HOST, r.hrecv);
    }
    bench_mem_free(o.mem, r.send);
    bench_mem_free(o.mem, r.recv);
    MPI_Finalize();
    return failed ? 1 : 0;
}
