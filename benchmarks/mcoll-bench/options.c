/* mcoll-bench options; see options.h. */
#include "options.h"

#include <stdio.h>
#include <string.h>

#include "bench_cli.h"
#include "bench_env.h"

enum {
    O_COLL = 'c', O_PEERS = 'p', O_MIN = 'b', O_MAX = 'e', O_STEP = 'f', O_DTYPE = 'd',
    O_ITERS = 'n', O_WARMUP = 'w', O_REPS = 'r', O_BATCH = 't', O_OUT = 'o', O_QUICK = 'q',
    O_HELP = 'h', O_NCCL = BENCH_LONG_ONLY, O_NOCHECK, O_NOPLOT, O_COUNT
};

/* Short names follow nccl-tests where it has the option (-b -e -f -d -n -w). */
static const bench_opt table[] = {
    { O_COLL, "collectives", BENCH_REQUIRED_ARG }, { O_PEERS, "peers", BENCH_REQUIRED_ARG },
    { O_MIN, "min-bytes", BENCH_REQUIRED_ARG },    { O_MAX, "max-bytes", BENCH_REQUIRED_ARG },
    { O_STEP, "step-factor", BENCH_REQUIRED_ARG }, { O_DTYPE, "datatype", BENCH_REQUIRED_ARG },
    { O_ITERS, "iters", BENCH_REQUIRED_ARG },      { O_WARMUP, "warmup", BENCH_REQUIRED_ARG },
    { O_REPS, "reps", BENCH_REQUIRED_ARG },        { O_BATCH, "batch-ms", BENCH_REQUIRED_ARG },
    { O_OUT, "output", BENCH_REQUIRED_ARG },       { O_NCCL, "nccl-lib", BENCH_REQUIRED_ARG },
    { O_NOCHECK, "no-check", BENCH_NO_ARG },       { O_NOPLOT, "no-plot", BENCH_NO_ARG },
    { O_QUICK, "quick", BENCH_NO_ARG },            { O_HELP, "help", BENCH_NO_ARG },
    { 0, NULL, 0 }
};

static void usage(const char *prog)
{
    printf("Usage: mpirun -np <GPUs> %s [options]\n"
           "Times MPI collectives on GPU buffers through mcoll (native stream API, CUDA graphs, MPI\n"
           "calls), NCCL and staged MPI (copy to pinned host memory, MPI, copy back), in one run on\n"
           "the same buffers, one process per GPU. Prints a table, writes a CSV and PNG plots.\n\n"
           "  -c, --collectives LIST  allreduce,bcast,reduce,reduce_scatter,allgather [all]\n"
           "  -p, --peers LIST        mcoll,mcoll-graph,mcoll-mpi,nccl,nccl-graph,staged [all]\n"
           "  -b, --min-bytes SIZE    smallest size, K/M/G suffixes [8]\n"
           "  -e, --max-bytes SIZE    largest size [1G]\n"
           "  -f, --step-factor F     size multiplier between rows [2]\n"
           "  -d, --datatype TYPE     float [default], double, int, unsigned, long, int64, uint64,\n"
           "                          char (mpi_float etc. also accepted)\n"
           "  -n, --iters N           most calls in one timed batch [100]\n"
           "  -w, --warmup N          untimed calls before timing [10]\n"
           "  -r, --reps N            timed batches per size and peer; the median is shown [5]\n"
           "  -t, --batch-ms MS       batches of large sizes hold fewer calls, about MS ms [50]\n"
           "  -o, --output DIR        results.csv, plot data and PNGs [mcoll-bench-<date>-<time>]\n"
           "      --nccl-lib PATH     NCCL library to load [libnccl.so.2]\n"
           "      --no-check          skip the correctness check after timing\n"
           "      --no-plot           do not run gnuplot (its script is written anyway)\n"
           "  -q, --quick             smoke run: 8 B..64 MiB by x4, 3 batches of at most 20 calls\n"
           "  -h, --help              this text\n\n"
           "Sizes count the whole vector (nccl-tests): the buffer for allreduce, bcast and reduce,\n"
           "the send buffer of reduce_scatter and the receive buffer of allgather. Op MPI_SUM,\n"
           "root 0. Exit status: 0; 1 if any result was wrong; %d on a command-line or output\n"
           "error; %d when no GPU is visible.\n",
           prog, BENCH_EXIT_USAGE, BENCH_EXIT_NO_GPU);
}

static int complain(const char *what, const char *value)
{
    if (bench_env_is_printer())
        fprintf(stderr, "mcoll-bench: invalid %s '%s' (see --help)\n", what, value ? value : "");
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
    o->nccl_lib = "libnccl.so.2";
    o->check = 1;
    o->plot = 1;
}

/* --quick changes the defaults only: options given on the command line still win. */
static void quick(mb_options *o, const int *given)
{
    if (!given[O_MAX]) o->max_bytes = (size_t)64 << 20;
    if (!given[O_STEP]) o->step = 4;
    if (!given[O_ITERS]) o->iters = 20;
    if (!given[O_WARMUP]) o->warmup = 2;
    if (!given[O_REPS]) o->reps = 3;
    if (!given[O_BATCH]) o->batch_ms = 10;
}

int mb_options_parse(int argc, char **argv, mb_options *o)
{
    bench_cli cli;
    const char *arg;
    int i, given[O_COUNT] = { 0 };
    long v;

    defaults(o);
    if (bench_cli_init(&cli, argc, argv, table, !bench_env_is_printer()) != 0)
        return -1;
    while ((i = bench_cli_next(&cli, &arg)) >= 0) {
        given[i] = 1;
        switch (i) {
        case O_COLL:
            if (parse_list(arg, o->coll, BENCH_NCOLLS, bench_coll_find) != 0)
                return complain("collective list", arg);
            break;
        case O_PEERS:
            if (parse_list(arg, o->peer, MB_NPEERS, mb_peer_find) != 0)
                return complain("peer list", arg);
            break;
        case O_MIN:
            if (bench_parse_bytes(arg, &o->min_bytes) != 0 || o->min_bytes == 0)
                return complain("minimum size", arg);
            break;
        case O_MAX:
            if (bench_parse_bytes(arg, &o->max_bytes) != 0 || o->max_bytes == 0)
                return complain("maximum size", arg);
            break;
        case O_STEP:
            if (bench_parse_double(arg, 1.01, 1024, &o->step) != 0)
                return complain("step factor (want 1.01 to 1024)", arg);
            break;
        case O_DTYPE:
            if (!(o->dtype = bench_dtype_find(arg)))
                return complain("datatype", arg);
            break;
        case O_ITERS:
            if (bench_parse_long(arg, 1, 1000000, &v) != 0)
                return complain("iteration count", arg);
            o->iters = (int)v;
            break;
        case O_WARMUP:
            if (bench_parse_long(arg, 0, 1000000, &v) != 0)
                return complain("warm-up count", arg);
            o->warmup = (int)v;
            break;
        case O_REPS:
            if (bench_parse_long(arg, 1, 1000, &v) != 0)
                return complain("batch count", arg);
            o->reps = (int)v;
            break;
        case O_BATCH:
            if (bench_parse_double(arg, 0.001, 1e6, &o->batch_ms) != 0)
                return complain("batch time", arg);
            break;
        case O_OUT: o->outdir = arg; break;
        case O_NCCL: o->nccl_lib = arg; break;
        case O_NOCHECK: o->check = 0; break;
        case O_NOPLOT: o->plot = 0; break;
        case O_QUICK: o->quick = 1; break;
        case O_HELP:
            if (bench_env_is_printer())
                usage(argv[0]);
            bench_cli_fini(&cli);
            return 1;
        }
    }
    bench_cli_fini(&cli);
    if (i == -2)
        return -1;
    if (o->quick)
        quick(o, given);
    if (o->min_bytes > o->max_bytes) {
        if (bench_env_is_printer())
            fprintf(stderr, "mcoll-bench: the minimum size (-b) is above the maximum (-e%s)\n",
                    o->quick && !given[O_MAX] ? ", 64M with --quick" : "");
        return -1;
    }
    return 0;
}
