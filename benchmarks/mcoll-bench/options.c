/* mcoll-bench options; see options.h. */
#include "options.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "bench_cli.h"
#include "bench_env.h"

enum {
    O_COLL = BENCH_LONG_ONLY, O_PEERS, O_REPS, O_BATCH, O_OUT, O_NCCL, O_NOCHECK, O_NOPLOT,
    O_PLACE, O_DRY_RUN, O_LAST
};

/* nccl-tests' letters and long names first (its README, "Arguments"), then mcoll-bench's own.
 * The second long name of a letter is mcoll-bench's earlier spelling, still accepted. */
static const bench_opt table[] = {
    { 'b', "minbytes", BENCH_REQUIRED_ARG },      { 'b', "min-bytes", BENCH_REQUIRED_ARG },
    { 'e', "maxbytes", BENCH_REQUIRED_ARG },      { 'e', "max-bytes", BENCH_REQUIRED_ARG },
    { 'f', "stepfactor", BENCH_REQUIRED_ARG },    { 'f', "step-factor", BENCH_REQUIRED_ARG },
    { 'i', "stepbytes", BENCH_REQUIRED_ARG },     { 'd', "datatype", BENCH_REQUIRED_ARG },
    { 'o', "op", BENCH_REQUIRED_ARG },            { 'r', "root", BENCH_REQUIRED_ARG },
    { 'n', "iters", BENCH_REQUIRED_ARG },         { 'w', "warmup_iters", BENCH_REQUIRED_ARG },
    { 'w', "warmup", BENCH_REQUIRED_ARG },        { 'c', "check", BENCH_REQUIRED_ARG },
    { 'z', "blocking", BENCH_REQUIRED_ARG },      { 'G', "cudagraph", BENCH_REQUIRED_ARG },
    { 'a', "average", BENCH_REQUIRED_ARG },       { 'g', "ngpus", BENCH_REQUIRED_ARG },
    { 't', "nthreads", BENCH_REQUIRED_ARG },      { 'm', "agg_iters", BENCH_REQUIRED_ARG },
    { 'N', "run_cycles", BENCH_REQUIRED_ARG },    { 'p', "parallel_init", BENCH_REQUIRED_ARG },
    { 'y', "stream_null", BENCH_REQUIRED_ARG },   { 'T', "timeout", BENCH_REQUIRED_ARG },
    { 'C', "report_cputime", BENCH_REQUIRED_ARG }, { 'S', "report_timestamps", BENCH_REQUIRED_ARG },
    { 'J', "output_file", BENCH_REQUIRED_ARG },   { 'R', "local_register", BENCH_REQUIRED_ARG },
    { 'x', "cta_policy", BENCH_REQUIRED_ARG },    { 'D', "device_implementation", BENCH_REQUIRED_ARG },
    { 'V', "device_cta_count", BENCH_REQUIRED_ARG }, { 'M', "memory", BENCH_REQUIRED_ARG },
    { 'u', "unalign", BENCH_REQUIRED_ARG },       { 'I', "per_iter_timing", BENCH_REQUIRED_ARG },
    { 'K', "per_iter_skip", BENCH_REQUIRED_ARG }, { 'h', "help", BENCH_NO_ARG },
    { 'q', "quick", BENCH_NO_ARG },               { O_COLL, "collectives", BENCH_REQUIRED_ARG },
    { O_PEERS, "peers", BENCH_REQUIRED_ARG },     { O_REPS, "reps", BENCH_REQUIRED_ARG },
    { O_BATCH, "batch-time", BENCH_REQUIRED_ARG }, { O_BATCH, "batch-ms", BENCH_REQUIRED_ARG },
    { O_OUT, "output", BENCH_REQUIRED_ARG },      { O_NCCL, "nccl-lib", BENCH_REQUIRED_ARG },
    { O_NOCHECK, "no-check", BENCH_NO_ARG },      { O_NOPLOT, "no-plot", BENCH_NO_ARG },
    { O_PLACE, "place", BENCH_REQUIRED_ARG },     { O_DRY_RUN, "dry-run", BENCH_NO_ARG },
    { 0, NULL, 0 }
};

/* nccl-tests options whose one value mcoll-bench has: that value is accepted (scripts pass it),
 * any other is refused with what mcoll-bench does instead. */
typedef struct {
    int letter;
    const char *value; /* the accepted value, or NULL: none */
    const char *why;
} fixed_opt;

static const fixed_opt fixed[] = {
    { 'g', "1", "one GPU per process, -np GPUs" },
    { 't', "1", "one thread per process; the batch time is --batch-time" },
    { 'm', "1", "every call is its own operation (no aggregation)" },
    { 'N', "1", "one sweep per run" },
    { 'z', "0", "stream peers are timed non-blocking; the blocking MPI calls are peer mcoll-mpi" },
    { 'p', "0", "one thread per process; the peers are chosen with --peers" },
    { 'y', "0", "calls go to one created stream" },
    { 'T', "0", "no timeout" },
    { 'C', "0", "times are latencies" },
    { 'S', "0", "no timestamps" },
    { 'J', NULL, "the outputs are the table, results.csv and table.txt (--output)" },
    { 'R', "0", "buffers are not registered with NCCL" },
    { 'x', NULL, "NCCL's CTA policy is not set" },
    { 'D', "0", "NCCL's host implementation only" },
    { 'V', "16", "NCCL's host implementation only" },
    { 'M', "0", "no memory report" },
    { 'u', "0", "buffers are aligned" },
    { 'I', "0", "batches are timed as a whole (the CSV keeps their minimum and maximum)" },
    { 'K', "0", "batches are timed as a whole" },
    { 0, NULL, NULL }
};

static void usage(const char *prog)
{
    printf("Usage: mpirun -np <GPUs> %s [options]\n"
           "Times MPI collectives on GPU buffers through mcoll (native stream API, on window memory,\n"
           "CUDA graphs, MPI calls), NCCL and staged MPI (copy to pinned host memory, MPI, copy\n"
           "back), in one run at the same sizes, one process per GPU, out of place and in place.\n"
           "Prints nccl-tests' table with a row per peer and the bytes each call moves through GPU\n"
           "memory, writes a CSV and PNG plots.\n\n"
           "nccl-tests' options:\n"
           "  -b, --minbytes SIZE     smallest size, K/M/G suffixes [8]\n"
           "  -e, --maxbytes SIZE     largest size [1G]\n"
           "  -f, --stepfactor F      size multiplier between rows [2]\n"
           "  -i, --stepbytes SIZE    fixed size increment between rows instead of -f\n"
           "  -d, --datatype TYPE     float [default], double, int32 (int), uint32 (unsigned),\n"
           "                          int64, uint64, int8, uint8, char, long (mpi_float etc. too)\n"
           "  -o, --op OP             sum [default], min, max\n"
           "  -r, --root N            root of bcast and reduce [0]\n"
           "  -n, --iters N           most calls in one timed batch [100]\n"
           "  -w, --warmup_iters N    untimed calls before timing [10]\n"
           "  -c, --check N           checked calls after timing, 0 for none [1]\n"
           "  -G, --cudagraph N       graph replays per timed batch of the graph peers;\n"
           "                          0 leaves mcoll-graph and nccl-graph out [1]\n"
           "  -a, --average 0|1|2|3   a batch's time is rank 0's, the mean, min or max over\n"
           "                          ranks [3: the slowest rank]\n"
           "  -g 1, -t 1, -m 1, -N 1, -z 0, and nccl-tests' other options at their defaults,\n"
           "                          are accepted; other values are refused with the reason\n"
           "mcoll-bench's options:\n"
           "      --collectives LIST  allreduce,bcast,reduce,reduce_scatter,allgather [all]\n"
           "      --peers LIST        mcoll,mcoll-window,mcoll-graph,mcoll-mpi,mcoll-persistent,\n"
           "                          nccl,nccl-graph,staged [all]; mcoll-window: the native\n"
           "                          calls on mcoll_mem_alloc memory (zero-copy)\n"
           "      --place WHERE       out (of place), in (place) or both [both]\n"
           "      --reps N            timed batches per size and peer; the median is shown [5]\n"
           "      --batch-time MS     batches of large sizes hold fewer calls, about MS ms [50]\n"
           "      --output DIR        results.csv, table.txt, plot data and PNGs\n"
           "                          [mcoll-bench-<date>-<time>]\n"
           "      --nccl-lib PATH     NCCL library to load [libnccl.so.2]\n"
           "      --no-check          the same as -c 0\n"
           "      --no-plot           draw no PNGs (the data and gnuplot script are written anyway)\n"
           "  -q, --quick             smoke run: 8 B..64 MiB by x4, 3 batches of at most 20 calls\n"
           "      --dry-run           print the settings and the table header, measure nothing\n"
           "                          (no MPI, no GPU)\n"
           "  -h, --help              this text\n\n"
           "Sizes count the whole vector (nccl-tests): the buffer for allreduce, bcast and reduce,\n"
           "the send buffer of reduce_scatter and the receive buffer of allgather. Exit status: 0;\n"
           "1 if any result was wrong; %d on a command-line or output error; %d when no GPU is\n"
           "visible.\n",
           prog, BENCH_EXIT_USAGE, BENCH_EXIT_NO_GPU);
}

typedef struct {
    const bench_cli *cli;
    int quiet;
} parser;

static int complain(const parser *p, int id, const char *value, const char *what)
{
    if (!p->quiet)
        fprintf(stderr, "mcoll-bench: %s %s: %s (see --help)\n", bench_cli_name(p->cli, id), value ? value : "",
                what);
    return -1;
}

/* A comma-separated list of names into flags; "all" selects everything. */
static int parse_list(const char *text, int *flags, int n, int (*find)(const char *))
{
    char word[64];
    const char *p = text;
    for (int i = 0; i < n; i++)
        flags[i] = 0;
    while (*p) {
        size_t len = strcspn(p, ",");
        if (len == 0 || len >= sizeof word)
            return -1;
        memcpy(word, p, len);
        word[len] = '\0';
        if (strcmp(word, "all") == 0) {
            for (int i = 0; i < n; i++)
                flags[i] = 1;
        } else {
            int id = find(word);
            if (id < 0)
                return -1;
            flags[id] = 1;
        }
        p += len;
        if (*p == ',')
            p++;
    }
    return 0;
}

static void defaults(mb_options *o)
{
    memset(o, 0, sizeof *o);
    for (int c = 0; c < BENCH_NCOLLS; c++)
        o->coll[c] = 1;
    for (int p = 0; p < MB_NPEERS; p++)
        o->peer[p] = 1;
    o->min_bytes = 8;
    o->max_bytes = (size_t)1 << 30;
    o->step = 2;
    o->iters = 100;
    o->warmup = 10;
    o->reps = 5;
    o->batch_ms = 50;
    o->dtype = bench_dtype_find("float");
    o->op = BENCH_OP_SUM;
    o->root = BENCH_ROOT;
    o->check = 1;
    o->graph_launches = 1;
    o->average = 3;
    o->places = MB_OUT_OF_PLACE | MB_IN_PLACE;
    o->nccl_lib = "libnccl.so.2";
    o->plot = 1;
}

/* --quick changes the defaults only: options given on the command line still win. */
static void quick(mb_options *o, const int *given)
{
    if (!given['e']) o->max_bytes = (size_t)64 << 20;
    if (!given['f'] && !given['i']) o->step = 4;
    if (!given['n']) o->iters = 20;
    if (!given['w']) o->warmup = 2;
    if (!given[O_REPS]) o->reps = 3;
    if (!given[O_BATCH]) o->batch_ms = 10;
}

static int fixed_value(const parser *p, int id, const char *arg)
{
    for (const fixed_opt *f = fixed; f->letter; f++) {
        if (f->letter != id)
            continue;
        if (f->value && strcmp(arg, f->value) == 0)
            return 0;
        char what[256];
        if (f->value)
            snprintf(what, sizeof what, "not supported, only %s %s: %s", bench_cli_name(p->cli, id), f->value, f->why);
        else
            snprintf(what, sizeof what, "not supported: %s", f->why);
        return complain(p, id, arg, what);
    }
    return 1;
}

static int apply(const parser *p, mb_options *o, int id, const char *arg)
{
    long v;
    int k;
    switch (id) {
    case 'b':
        if (bench_parse_bytes(arg, &o->min_bytes) != 0 || o->min_bytes == 0)
            return complain(p, id, arg, "invalid minimum size");
        break;
    case 'e':
        if (bench_parse_bytes(arg, &o->max_bytes) != 0 || o->max_bytes == 0)
            return complain(p, id, arg, "invalid maximum size");
        break;
    case 'f':
        if (bench_parse_double(arg, 1.01, 1024, &o->step) != 0)
            return complain(p, id, arg, "invalid step factor (want 1.01 to 1024)");
        o->step_bytes = 0;
        break;
    case 'i':
        if (bench_parse_bytes(arg, &o->step_bytes) != 0 || o->step_bytes == 0)
            return complain(p, id, arg, "invalid step in bytes");
        o->step = 0;
        break;
    case 'd':
        if (strcasecmp(arg, "all") == 0)
            return complain(p, id, arg, "not supported: one datatype per run");
        if (strcasecmp(arg, "half") == 0 || strcasecmp(arg, "bfloat16") == 0 || strncasecmp(arg, "f8", 2) == 0)
            return complain(p, id, arg, "not supported: MPI has no such datatype for the MPI and staged peers");
        if (!(o->dtype = bench_dtype_find(arg)))
            return complain(p, id, arg, "invalid datatype");
        break;
    case 'o':
        if ((k = bench_op_find(arg)) < 0)
            return complain(p, id, arg,
                            strcasecmp(arg, "prod") == 0 || strcasecmp(arg, "avg") == 0 || strcasecmp(arg, "mulsum") == 0 ||
                                    strcasecmp(arg, "all") == 0
                                ? "not supported: sum, min or max (their results are checked exactly)"
                                : "invalid reduction op: sum, min or max (the output directory is --output)");
        o->op = (bench_op)k;
        break;
    case 'r':
        if (bench_parse_long(arg, 0, INT_MAX, &v) != 0)
            return complain(p, id, arg, "invalid root rank (the number of timed batches is --reps)");
        o->root = (int)v;
        break;
    case 'n':
        if (bench_parse_long(arg, 1, 1000000, &v) != 0)
            return complain(p, id, arg, "invalid iteration count");
        o->iters = (int)v;
        break;
    case 'w':
        if (bench_parse_long(arg, 0, 1000000, &v) != 0)
            return complain(p, id, arg, "invalid warm-up count");
        o->warmup = (int)v;
        break;
    case 'c':
        if (bench_parse_long(arg, 0, 1000, &v) != 0)
            return complain(p, id, arg, "invalid check count (the collectives are chosen with --collectives)");
        o->check = (int)v;
        break;
    case 'G':
        if (bench_parse_long(arg, 0, 1000000, &v) != 0)
            return complain(p, id, arg, "invalid number of graph launches");
        o->graph_launches = (int)v;
        break;
    case 'a':
        if (bench_parse_long(arg, 0, 3, &v) != 0)
            return complain(p, id, arg, "invalid average mode: 0 rank 0, 1 mean, 2 min, 3 max");
        o->average = (int)v;
        break;
    case O_COLL:
        if (parse_list(arg, o->coll, BENCH_NCOLLS, bench_coll_find) != 0)
            return complain(p, id, arg, "invalid collective list");
        break;
    case O_PEERS:
        if (parse_list(arg, o->peer, MB_NPEERS, mb_peer_find) != 0)
            return complain(p, id, arg, "invalid peer list");
        break;
    case O_PLACE:
        if (strcmp(arg, "out") == 0)
            o->places = MB_OUT_OF_PLACE;
        else if (strcmp(arg, "in") == 0)
            o->places = MB_IN_PLACE;
        else if (strcmp(arg, "both") == 0)
            o->places = MB_OUT_OF_PLACE | MB_IN_PLACE;
        else
            return complain(p, id, arg, "want out, in or both");
        break;
    case O_REPS:
        if (bench_parse_long(arg, 1, 1000, &v) != 0)
            return complain(p, id, arg, "invalid batch count");
        o->reps = (int)v;
        break;
    case O_BATCH:
        if (bench_parse_double(arg, 0.001, 1e6, &o->batch_ms) != 0)
            return complain(p, id, arg, "invalid batch time (milliseconds)");
        break;
    case O_OUT: o->outdir = arg; break;
    case O_NCCL: o->nccl_lib = arg; break;
    case O_NOCHECK: o->check = 0; break;
    case O_NOPLOT: o->plot = 0; break;
    case 'q': o->quick = 1; break;
    case O_DRY_RUN: o->dry_run = 1; break;
    case 'h':
        if (!p->quiet)
            usage(bench_prog_name(p->cli->argv[0]));
        return 1;
    default:
        return fixed_value(p, id, arg) < 0 ? -1 : 0;
    }
    return 0;
}

int mb_options_parse(int argc, char **argv, mb_options *o)
{
    bench_cli cli;
    parser p;
    const char *arg;
    int id, rc = 0, given[O_LAST] = { 0 };

    defaults(o);
    p.quiet = !bench_env_is_printer();
    p.cli = &cli;
    if (bench_cli_init(&cli, argc, argv, table, p.quiet) != 0)
        return -1;
    while (rc == 0 && (id = bench_cli_next(&cli, &arg)) >= 0) {
        given[id] = 1;
        rc = apply(&p, o, id, arg);
    }
    bench_cli_fini(&cli);
    if (rc != 0)
        return rc;
    if (id == -2)
        return -1;
    if (given['f'] && given['i']) {
        if (!p.quiet)
            fprintf(stderr, "mcoll-bench: -f and -i both set the step between sizes: give one\n");
        return -1;
    }
    if (o->quick)
        quick(o, given);
    if (o->graph_launches == 0)
        o->peer[MB_MCOLL_GRAPH] = o->peer[MB_NCCL_GRAPH] = 0;
    if (o->min_bytes > o->max_bytes) {
        if (!p.quiet)
            fprintf(stderr, "mcoll-bench: the minimum size (-b) is above the maximum (-e%s)\n",
                    o->quick && !given['e'] ? ", 64M with --quick" : "");
        return -1;
    }
    return 0;
}
