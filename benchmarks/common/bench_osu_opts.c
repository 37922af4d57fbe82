/* OSU look-alike options and header; see bench_osu_opts.h. OSU 7.4's collective tests take
 * -h -v -f -m -i -x -M -a -d -c[log[:DIR]] -u -G -T -I -l -k -z[P,...] (and -D, -P in some
 * builds); the non-blocking ones add -t, the point-to-point ones -b. */
#include "bench_osu_opts.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "bench_cli.h"
#include "bench_env.h"
#include "bench_osu_nbc.h"

#define OSU_DEFAULT_MAX_SIZE ((size_t)1 << 20)       /* OSU's MAX_MSG_SIZE_COLL */
#define OSU_DEFAULT_MEM_LIMIT ((size_t)512 << 20)    /* OSU's MAX_MEM_LIMIT */
#define OSU_MIN_MEM_LIMIT ((size_t)1 << 20)          /* OSU raises smaller -M values to this */
#define OSU_VALIDATION_WARMUP 5
#define OSU_VALIDATION_WARMUP_MAX 10

enum { O_DRY_RUN = BENCH_LONG_ONLY };

static const bench_opt options[] = {
    { 'h', "help", BENCH_NO_ARG },          { 'v', "version", BENCH_NO_ARG },
    { 'f', "full", BENCH_NO_ARG },          { 'm', "message-size", BENCH_REQUIRED_ARG },
    { 'i', "iterations", BENCH_REQUIRED_ARG }, { 'x', "warmup", BENCH_REQUIRED_ARG },
    { 'M', "mem-limit", BENCH_REQUIRED_ARG }, { 'a', "array-size", BENCH_REQUIRED_ARG },
    { 'd', "accelerator", BENCH_REQUIRED_ARG }, { 'c', "validation", BENCH_OPTIONAL_ARG },
    { 'u', "validation-warmup", BENCH_REQUIRED_ARG }, { 'G', "graph", BENCH_REQUIRED_ARG },
    { 'T', "type", BENCH_REQUIRED_ARG },    { 'l', "in-place", BENCH_NO_ARG },
    { 'k', "root-rank", BENCH_REQUIRED_ARG }, { 'z', "tail-lat", BENCH_OPTIONAL_ARG },
    { 'b', "buffer-num", BENCH_REQUIRED_ARG }, { 't', "num-test-calls", BENCH_REQUIRED_ARG },
    { 'I', NULL, BENCH_NO_ARG },            { 'D', "ddt", BENCH_REQUIRED_ARG },
    { 'P', "papi", BENCH_REQUIRED_ARG },    { O_DRY_RUN, "dry-run", BENCH_NO_ARG },
    { 0, NULL, 0 }
};

static const char *mem_word(bench_mem m)
{
    switch (m) {
    case BENCH_MEM_CUDA: return "cuda";
    case BENCH_MEM_MANAGED: return "managed";
    default: return "host";
    }
}

/* OSU 7.4 names CUDA device buffers in the title and nothing else (managed memory included);
 * the second line says which program this is and what its buffers are. */
static void print_title(const bench_osu *b, const osu_options *o)
{
    printf("# OSU MPI%s %s%s Latency Test v%s\n", o->mem == BENCH_MEM_CUDA ? "-CUDA" : "",
           b->icall ? "Non-blocking " : "", b->title, BENCH_OSU_VERSION);
    printf("# mcoll look-alike of OSU %s's %s: %s through libmcoll, %s buffers\n", BENCH_OSU_VERSION,
           b->osu_name, b->mpi_call, mem_word(o->mem));
    if (b->icall)
        printf("# Overall = Coll. Init + Compute + MPI_Test + MPI_Wait\n");
    fflush(stdout);
}

static void usage(const char *prog, const bench_osu *b)
{
    int rooted = bench_coll_has_root(b->coll);
    printf("Usage: %s [options]\n"
           "The latency of %s%s, as OSU Micro-Benchmarks %s's %s measures it:\n"
           "mcoll's look-alike, with OSU's options, defaults and output. Every call is a plain\n"
           "MPI call (through libmcoll).\n"
           "Options:\n"
           "  -d, --accelerator TYPE   buffers in cuda (device) or managed (CUDA unified) memory;\n"
           "                           without -d, host memory, as in OSU (-d host says so)\n"
           "  -m, --message-size [MIN:]MAX\n"
           "                           sizes in bytes, doubling from MIN to MAX [1:%zu];\n"
           "                           -m MAX, -m MIN: and -m :MAX too; K, M, G suffixes\n"
           "  -i, --iterations N       timed calls per size [1000; 100 above %d bytes]\n"
           "  -x, --warmup N           untimed calls per size before them [100; 10 above %d bytes]\n"
           "  -f, --full               also print Min Latency, Max Latency and Iterations\n"
           "  -T, --type TYPE          datatype, repeatable [mpi_char]; all = mpi_char, mpi_int,\n"
           "                           mpi_float, as in OSU; also, by name or MPI name\n"
           "                           (double, mpi_double, mpi_int8_t):\n"
           "                           %s\n"
           "  -c, --validation         check every element after the timed calls of each size:\n"
           "                           Validation column (Pass/Fail), exit status 1 on a Fail\n"
           "  -u, --validation-warmup N  untimed calls before the checked one, 0 to %d [%d]\n"
           "  -l, --in-place           MPI_IN_PLACE as the send buffer%s\n"
           "  -k, --root-rank fixed:N|rotate\n"
           "                           %s\n"
           "  -z, --tail-lat[=P,...]   percentile columns of the per-call latency [50,90,99]\n"
           "  -M, --mem-limit BYTES    largest buffer per process [%zu]; a larger -m MAX is\n"
           "                           lowered to fit, with a warning\n"
           "  -v, --version            print the header lines and exit\n"
           "  -h, --help               this text\n"
           "      --dry-run            print the settings and the header, measure nothing\n"
           "                           (no MPI, no GPU)\n"
           "Accepted and ignored, said once on stderr: -G (graphs of per-call values), -a (device\n"
           "array of non-blocking tests), -b (point-to-point buffers), -t (MPI_Test calls of\n"
           "non-blocking tests), -I (MPI-4 start-up without MPI_Init), -c log[:DIR] (log files).\n"
           "Refused: -D (derived datatypes), -P (PAPI counters).\n\n"
           "Size is %s, in bytes; sizes below one element%s are skipped.\n"
           "Exit status: 0; 1 if a validation failed; %d on a command-line error; %d when -d cuda\n"
           "or -d managed finds no GPU.\n",
           prog, b->mpi_call, bench_coll_reduces(b->coll) ? " (MPI_SUM)" : "", BENCH_OSU_VERSION, b->osu_name,
           OSU_DEFAULT_MAX_SIZE, OSU_LARGE_MESSAGE, OSU_LARGE_MESSAGE, bench_dtype_names(),
           OSU_VALIDATION_WARMUP_MAX, OSU_VALIDATION_WARMUP, b->coll == BENCH_BCAST ? " (not for broadcast)" : "",
           rooted ? "the root, or rotate: call i has root i % ranks [fixed:0]"
                  : "accepted and ignored: this collective has no root",
           OSU_DEFAULT_MEM_LIMIT,
           b->coll == BENCH_REDUCE_SCATTER ? "the whole send buffer; each rank receives its share"
           : b->per_rank_size ? "what each rank sends" : "the buffer",
           b->per_rank_size || (b->coll == BENCH_REDUCE_SCATTER && !b->uneven) ? " per rank" : "",
           BENCH_EXIT_USAGE, BENCH_EXIT_NO_GPU);
    if (b->icall)
        printf("\nNon-blocking: each row times the call started and waited for at once (Pure Comm.),\n"
               "then started, followed by CPU computation as long as that, then waited for\n"
               "(Overall); Overlap is the share of Pure Comm. the computation hid. Here -t N is\n"
               "used: MPI_Test calls spread through the computation [1]; -k rotate and -z are not.\n");
}

typedef struct {
    const bench_cli *cli;
    int quiet;
    char said[128]; /* ids of the ignored options already reported */
} osu_parser;

static int bad_value(const osu_parser *p, int id, const char *what, const char *value)
{
    if (!p->quiet)
        fprintf(stderr, "%s: %s %s: invalid %s (see --help)\n", bench_prog_name(p->cli->argv[0]),
                bench_cli_name(p->cli, id), value ? value : "", what);
    return -1;
}

/* OSU options whose results these programs cannot give. */
static int refused(const osu_parser *p, int id, const char *value, const char *why)
{
    if (!p->quiet)
        fprintf(stderr, "%s: %s %s: not supported: %s\n", bench_prog_name(p->cli->argv[0]),
                bench_cli_name(p->cli, id), value ? value : "", why);
    return -1;
}

/* Once per option: OSU scripts pass these, and what they ask for does not apply here. */
static void ignored(osu_parser *p, int id, const char *value, const char *why)
{
    size_t n = strlen(p->said);
    if (p->quiet || strchr(p->said, id) || n + 1 >= sizeof p->said)
        return;
    p->said[n] = (char)id;
    p->said[n + 1] = '\0';
    fprintf(stderr, "%s: ignored: %s%s%s: %s\n", bench_prog_name(p->cli->argv[0]), bench_cli_name(p->cli, id),
            value ? " " : "", value ? value : "", why);
}

/* -m: MAX, MIN:MAX, MIN: and :MAX as OSU reads them. */
static int parse_sizes(const char *text, osu_options *o)
{
    char lo[64], *colon;
    size_t min = o->min_size, max = o->max_size;
    if (strlen(text) >= sizeof lo)
        return -1;
    strcpy(lo, text);
    colon = strchr(lo, ':');
    if (!colon) {
        if (bench_parse_bytes(lo, &max) != 0)
            return -1;
    } else {
        *colon = '\0';
        if (lo[0] != '\0' && bench_parse_bytes(lo, &min) != 0)
            return -1;
        if (colon[1] != '\0' && bench_parse_bytes(colon + 1, &max) != 0)
            return -1;
        if (lo[0] == '\0' && colon[1] == '\0')
            return -1;
    }
    if (min == 0)
        return -1;
    o->min_size = min;
    o->max_size = max;
    return 0;
}

static int add_type(osu_options *o, const char *name)
{
    static const char *const all[] = { "char", "int", "float" }; /* OSU 7.4's -T all */
    if (strcasecmp(name, "all") == 0) {
        for (int i = 0; i < 3; i++)
            if (add_type(o, all[i]) != 0)
                return -1;
        return 0;
    }
    const bench_dtype *t = bench_dtype_find(name);
    if (!t || o->ntypes == OSU_MAX_TYPES)
        return -1;
    o->types[o->ntypes++] = t;
    return 0;
}

/* -k fixed:N, rotate, or a bare N. */
static int parse_root(const char *text, int *root)
{
    long v;
    if (strcasecmp(text, "rotate") == 0) {
        *root = OSU_ROOT_ROTATE;
        return 0;
    }
    if (strncasecmp(text, "fixed:", 6) == 0)
        text += 6;
    if (bench_parse_long(text, 0, INT_MAX, &v) != 0)
        return -1;
    *root = (int)v;
    return 0;
}

/* -z: P[,P...], each 0..100, at most OSU_MAX_TAIL; no value: 50, 90, 99 as in OSU. */
static int parse_tail(const char *text, osu_options *o)
{
    char buf[64], *tok, *save = NULL;
    long v;
    o->ntail = 0;
    if (!text) {
        o->tail[0] = 50, o->tail[1] = 90, o->tail[2] = 99, o->ntail = 3;
        return 0;
    }
    if (strlen(text) >= sizeof buf)
        return -1;
    strcpy(buf, text);
    for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (o->ntail == OSU_MAX_TAIL || bench_parse_long(tok, 0, 100, &v) != 0)
            return -1;
        o->tail[o->ntail++] = (int)v;
    }
    return o->ntail > 0 ? 0 : -1;
}

/* -G tty,png,pdf: checked as OSU checks it, then ignored. */
static int graph_ok(const char *text)
{
    char buf[64], *tok, *save = NULL;
    if (strlen(text) >= sizeof buf)
        return 0;
    strcpy(buf, text);
    tok = strtok_r(buf, ",", &save);
    if (!tok)
        return 0;
    for (; tok; tok = strtok_r(NULL, ",", &save))
        if (strcasecmp(tok, "tty") != 0 && strcasecmp(tok, "png") != 0 && strcasecmp(tok, "pdf") != 0)
            return 0;
    return 1;
}

static void defaults(osu_options *o)
{
    memset(o, 0, sizeof *o);
    o->mem = BENCH_MEM_HOST;
    o->min_size = 1;
    o->max_size = OSU_DEFAULT_MAX_SIZE;
    o->mem_limit = OSU_DEFAULT_MEM_LIMIT;
    o->iters = 1000, o->iters_large = 100;   /* OSU's COLL_LOOP_SMALL, COLL_LOOP_LARGE */
    o->warmup = 100, o->warmup_large = 10;   /* COLL_SKIP_SMALL, COLL_SKIP_LARGE */
    o->validation_warmup = OSU_VALIDATION_WARMUP;
    o->root = BENCH_ROOT;
    o->num_tests = 1;
}

/* One option. 0: go on; 1: help or version printed; -1: error printed. */
static int apply(osu_parser *p, const bench_osu *b, osu_options *o, int id, const char *arg)
{
    long v;
    switch (id) {
    case 'd':
        if (strcasecmp(arg, "cuda") == 0)
            o->mem = BENCH_MEM_CUDA;
        else if (strcasecmp(arg, "managed") == 0)
            o->mem = BENCH_MEM_MANAGED;
        else if (strcasecmp(arg, "host") == 0 || strcasecmp(arg, "cpu") == 0)
            o->mem = BENCH_MEM_HOST;
        else if (strcasecmp(arg, "openacc") == 0 || strcasecmp(arg, "rocm") == 0 || strcasecmp(arg, "cxl") == 0)
            return bad_value(p, id, "accelerator: mcoll runs on CUDA (cuda, managed, host)", arg);
        else
            return bad_value(p, id, "accelerator (cuda, managed, host)", arg);
        break;
    case 'm':
        if (parse_sizes(arg, o) != 0)
            return bad_value(p, id, "message size ([MIN:]MAX, MIN > 0)", arg);
        break;
    case 'i':
        if (bench_parse_long(arg, 1, INT_MAX, &v) != 0)
            return bad_value(p, id, "iteration count", arg);
        o->iters = o->iters_large = v;
        break;
    case 'x':
        if (bench_parse_long(arg, 0, INT_MAX, &v) != 0)
            return bad_value(p, id, "warm-up count", arg);
        o->warmup = o->warmup_large = v;
        break;
    case 'f': o->full = 1; break;
    case 'l': o->in_place = 1; break;
    case 'c':
        o->validate = 1;
        if (arg && strncasecmp(arg, "log", 3) == 0 && (arg[3] == '\0' || arg[3] == ':'))
            ignored(p, id, arg, "validation log files are not written; the Validation column says Pass or Fail");
        else if (arg)
            return bad_value(p, id, "validation option (-c or -clog[:DIR])", arg);
        break;
    case 'u':
        if (bench_parse_long(arg, 0, OSU_VALIDATION_WARMUP_MAX, &v) != 0)
            return bad_value(p, id, "validation warm-up count (0 to 10)", arg);
        o->validation_warmup = (int)v;
        break;
    case 'T':
        if (add_type(o, arg) != 0)
            return bad_value(p, id, "datatype", arg);
        break;
    case 'k':
        if (parse_root(arg, &o->root) != 0)
            return bad_value(p, id, "root (fixed:N or rotate)", arg);
        if (!bench_coll_has_root(b->coll))
            ignored(p, id, arg, "this collective has no root");
        else if (b->icall && o->root == OSU_ROOT_ROTATE)
            return refused(p, id, arg, "the overlap of a non-blocking call is measured with one root");
        break;
    case 'z':
        if (parse_tail(arg, o) != 0)
            return bad_value(p, id, "percentile list (up to 5 of 0..100)", arg);
        if (b->icall) {
            o->ntail = 0;
            ignored(p, id, arg, "non-blocking rows have no per-call latency percentiles");
        }
        break;
    case 'M':
        if (bench_parse_bytes(arg, &o->mem_limit) != 0)
            return bad_value(p, id, "memory limit", arg);
        if (o->mem_limit < OSU_MIN_MEM_LIMIT) {
            if (!p->quiet)
                fprintf(stderr, "%s: -M %s is below 1 MiB: using %zu\n", bench_prog_name(p->cli->argv[0]),
                        arg, OSU_MIN_MEM_LIMIT);
            o->mem_limit = OSU_MIN_MEM_LIMIT;
        }
        break;
    case 'G':
        if (!graph_ok(arg))
            return bad_value(p, id, "graph type (tty, png, pdf)", arg);
        ignored(p, id, arg, "graphs of per-call latencies are not drawn (-z prints tail latencies)");
        break;
    case 'a':
        if (bench_parse_long(arg, 1, INT_MAX, &v) != 0)
            return bad_value(p, id, "array size", arg);
        ignored(p, id, arg, "it sizes the dummy computation of non-blocking tests; these calls block");
        break;
    case 'b':
        if (strcasecmp(arg, "single") != 0 && strcasecmp(arg, "multiple") != 0)
            return bad_value(p, id, "buffer number (single or multiple)", arg);
        ignored(p, id, arg, "it chooses point-to-point buffers; a collective here uses one send and one receive buffer");
        break;
    case 't':
        if (bench_parse_long(arg, 0, INT_MAX, &v) != 0)
            return bad_value(p, id, "test call count", arg);
        o->num_tests = (int)v;
        if (!b->icall)
            ignored(p, id, arg, "it counts MPI_Test calls of non-blocking tests; these calls block");
        break;
    case 'I':
        ignored(p, id, NULL, "these programs start with MPI_Init and use MPI_COMM_WORLD, as without -I");
        break;
    case 'D':
        return refused(p, id, arg, "derived datatypes are not measured by these programs");
    case 'P':
        return refused(p, id, arg, "PAPI counters are not read by these programs");
    case O_DRY_RUN: o->dry_run = 1; break;
    case 'v':
        if (!p->quiet)
            print_title(b, o);
        return 1;
    case 'h':
        if (!p->quiet)
            usage(bench_prog_name(p->cli->argv[0]), b);
        return 1;
    }
    return 0;
}

static void print_dry_run(const bench_osu *b, const osu_options *o)
{
    osu_print_preamble(b, o);
    printf("# dry run: the settings below, nothing measured\n");
    printf("#   buffers          %s\n", mem_word(o->mem));
    printf("#   sizes            %zu .. %zu bytes, doubling (memory limit %zu bytes)\n", o->min_size, o->max_size,
           o->mem_limit);
    printf("#   iterations       %ld (%ld above %d bytes)\n", o->iters, o->iters_large, OSU_LARGE_MESSAGE);
    printf("#   warm-up          %ld (%ld above %d bytes)\n", o->warmup, o->warmup_large, OSU_LARGE_MESSAGE);
    if (o->validate)
        printf("#   validation       on, %d untimed calls before each checked one\n", o->validation_warmup);
    else
        printf("#   validation       off\n");
    printf("#   in place         %s\n", o->in_place ? "on" : "off");
    if (b->icall)
        printf("#   MPI_Test calls   %d during each computation\n", o->num_tests);
    if (!bench_coll_has_root(b->coll))
        printf("#   root             none (%s)\n", b->mpi_call);
    else if (o->root == OSU_ROOT_ROTATE)
        printf("#   root             rotate\n");
    else
        printf("#   root             %d\n", o->root);
    for (int i = 0; i < o->ntypes; i++)
        osu_print_columns(b, o, o->types[i]);
    fflush(stdout);
}

int osu_parse_options(int argc, char **argv, const bench_osu *b, osu_options *o)
{
    bench_cli cli;
    osu_parser p;
    const char *arg;
    int id, rc = 0;

    defaults(o);
    memset(&p, 0, sizeof p);
    p.quiet = !bench_env_is_printer();
    p.cli = &cli;
    if (bench_cli_init(&cli, argc, argv, options, p.quiet) != 0)
        return -1;
    while (rc == 0 && (id = bench_cli_next(&cli, &arg)) >= 0)
        rc = apply(&p, b, o, id, arg);
    bench_cli_fini(&cli);
    if (rc != 0)
        return rc;
    if (id == -2)
        return -1;
    if (o->ntypes == 0)
        add_type(o, "char"); /* OSU 7.4's default: MPI_CHAR */
    if (o->min_size > o->max_size) {
        if (!p.quiet)
            fprintf(stderr, "%s: -m: the smallest size %zu is above the largest %zu\n", bench_prog_name(argv[0]),
                    o->min_size, o->max_size);
        return -1;
    }
    if (o->in_place && b->coll == BENCH_BCAST) {
        if (!p.quiet)
            fprintf(stderr, "%s: -l: MPI_Bcast has no in-place form\n", bench_prog_name(argv[0]));
        return -1;
    }
    if (o->dry_run) {
        if (!p.quiet)
            print_dry_run(b, o);
        return 1;
    }
    return 0;
}

void osu_print_preamble(const bench_osu *b, const osu_options *o)
{
    printf("\n");
    print_title(b, o);
}

#define FIELD_WIDTH 20

void osu_print_columns(const bench_osu *b, const osu_options *o, const bench_dtype *t)
{
    printf("# Datatype: %s.\n", t->mpi_name);
    if (b->icall) {
        osu_nbc_print_columns(o);
        return;
    }
    printf("%-*s%*s", 10, "# Size", FIELD_WIDTH, "Avg Latency(us)");
    if (o->full)
        printf("%*s%*s%*s", FIELD_WIDTH, "Min Latency(us)", FIELD_WIDTH, "Max Latency(us)", 12, "Iterations");
    if (o->validate)
        printf("%*s", FIELD_WIDTH, "Validation");
    for (int i = 0; i < o->ntail; i++) {
        char label[32];
        snprintf(label, sizeof label, "P%d Tail Lat(us)", o->tail[i]);
        printf("%*s", FIELD_WIDTH, label);
    }
    printf("\n");
    fflush(stdout);
}
