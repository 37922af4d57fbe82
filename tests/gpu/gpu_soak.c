/* Soak: a long run of randomly mixed collectives, every result checked, and the process's
 * memory and descriptors watched for growth.
 *
 *   mpirun -np N gpu_soak [-n CALLS] [-t SECONDS] [--max-bytes B] [--rss-bound MIB] [--host]
 *                         [-s SEED] [--leak-fds]
 *
 * Each call is drawn from one generator seeded alike on every rank (common/soak_pick.h): any of
 * the 14 collectives of coll_kind or a barrier, any datatype and op the engines reduce, any root, 0 to
 * --max-bytes (64 MiB) weighted to small sizes, in place or not, aligned or not, on
 * MPI_COMM_WORLD, a dup of it or a split of it (ranks reversed; halves at 4 ranks and more),
 * natively on a stream, natively captured into a CUDA graph, or through MPI_* and MPI_I* on
 * device buffers (the plug-in). Every output is checked against the host reference
 * (common/prep.h: exact for integers, a stated tolerance for floats). --host runs the MPI
 * calls on host buffers without a GPU (what make check runs).
 *
 * Usage samples (common/usage.h) are taken at the start, after the warm-up (a tenth of
 * the calls, at most 1000, and at least the ladder of large calls that fills the plug-in's
 * bounded caches, soak_pick.h), half-way and at the end. The run fails when any call was wrong,
 * when a rank holds more descriptors at the end than after the warm-up, or when its resident
 * memory grew by more than --rss-bound MiB (default 32) since the warm-up; the device memory
 * in use is printed (other processes on the GPU count in it, so it is not judged).
 * -t ends the run early, agreed by every rank, once the time is spent; the calls not made are
 * reported. --leak-fds leaks a descriptor every 100 calls after the warm-up, to prove the check.
 * The last line before the summary reads
 *   soak: calls C/N, wrong W, rss +K KiB (bound B MiB), fds +F, device +D MiB, S s, seed X */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>
#include <cuda_runtime_api.h>
#include <mpi.h>
#include "common/harness.h"
#include "common/prep.h"
#include "common/report.h"
#include "common/setup.h"
#include "common/soak_pick.h"
#include "common/usage.h"
#include "mcoll.h"

#define NCOMMS 3
#define WRONG_STOP 100 /* so many wrong calls end the run: the fault is shown by then */

typedef struct {
    long calls;
    double seconds;     /* 0: no time limit */
    size_t max_bytes;   /* 0: the default of the mode */
    long rss_bound_mib;
    int host, leak_fds;
} soak_opts;

static void print_help(void)
{
    printf("usage: mpirun -np N gpu_soak [-n CALLS] [-t SECONDS] [--max-bytes B] [--rss-bound MIB] [--host]\n"
           "                             [-s SEED] [--leak-fds]\n"
           "  -n CALLS         calls to make (default 100000)\n"
           "  -t SECONDS       stop once this much time is spent (default: no limit)\n"
           "  --max-bytes B    largest buffer of a call (default 64 MiB; --host: 256 KiB)\n"
           "  --rss-bound MIB  resident memory may grow this much after the warm-up (default 32)\n"
           "  --host           host buffers and MPI calls only (no GPU)\n"
           "  -s SEED          the sequence of calls and inputs (0: rank 0 picks one)\n"
           "  --leak-fds       leak a descriptor every 100 calls (the check must fail)\n");
}

/* Takes the soak's own options out of argv; the rest goes to the common parser. -1 to go on. */
static int soak_parse(int *argc, char **argv, soak_opts *o)
{
    int i, kept = 1;
    char *end;
    o->calls = 100000;
    o->seconds = 0;
    o->max_bytes = 0;
    o->rss_bound_mib = 32;
    o->host = o->leak_fds = 0;
    for (i = 1; i < *argc; i++) {
        const char *a = argv[i];
        int has_value = !strcmp(a, "-n") || !strcmp(a, "-t") || !strcmp(a, "--max-bytes") || !strcmp(a, "--rss-bound");
        if (has_value && i + 1 >= *argc) goto bad;
        if (!strcmp(a, "-n")) o->calls = strtol(argv[++i], &end, 10);
        else if (!strcmp(a, "-t")) o->seconds = strtod(argv[++i], &end);
        else if (!strcmp(a, "--max-bytes")) o->max_bytes = strtoull(argv[++i], &end, 10);
        else if (!strcmp(a, "--rss-bound")) o->rss_bound_mib = strtol(argv[++i], &end, 10);
        else if (!strcmp(a, "--host")) o->host = 1;
        else if (!strcmp(a, "--leak-fds")) o->leak_fds = 1;
        else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            print_help();
            return 0;
        } else {
            argv[kept++] = argv[i];
            continue;
        }
        if (has_value && *end) goto bad;
    }
    *argc = kept;
    argv[kept] = NULL;
    if (o->calls < 1 || o->seconds < 0 || o->rss_bound_mib < 0 || (o->max_bytes && o->max_bytes < 1024)) goto bad;
    if (!o->max_bytes) o->max_bytes = o->host ? 256u << 10 : 64u << 20;
    return -1;
bad:
    fprintf(stderr, "gpu_soak: bad arguments (see --help)\n");
    return 2;
}

/* The communicators, and each one's way of making a call on every path. */
typedef struct {
    MPI_Comm comm[NCOMMS];
    mcoll_comm *mc[NCOMMS];
    cudaStream_t stream[NCOMMS];
    coll_api api[NCOMMS][SOAK_PATHS];
    char names[NCOMMS][SOAK_PATHS][32]; /* "<path>@<communicator>", the first part of call names */
} soak_world;

static const char *const comm_names[NCOMMS] = {"world", "dup", "split"};

static int open_comms(soak_world *w, int host)
{
    int rank = report_rank(), size = report_size(), c, p;
    char name[64], *n;
    /* Halves where they can be pairs; always in reversed rank order, so that rank numbers differ. */
    int color = size >= 4 && size % 2 == 0 ? rank % 2 : 0;
    memset(w, 0, sizeof *w);
    w->comm[0] = MPI_COMM_WORLD;
    MPI_Comm_dup(MPI_COMM_WORLD, &w->comm[1]);
    MPI_Comm_split(MPI_COMM_WORLD, color, size - rank, &w->comm[2]);
    for (c = 0; c < NCOMMS; c++) {
        if (!host) {
            snprintf(name, sizeof name, "soak/setup/%s", comm_names[c]);
            w->mc[c] = setup_comm(name, w->comm[c], NULL);
            if (!w->mc[c]) return 0;
            /* A blocking stream: the checks' copies and fills on the legacy stream order with it. */
            if (cudaStreamCreate(&w->stream[c]) != cudaSuccess) return 0;
        }
        for (p = 0; p < SOAK_PATHS; p++) {
            n = w->names[c][p];
            snprintf(n, sizeof w->names[c][p], "%s@%s", soak_path_name((soak_path)p), comm_names[c]);
            if (p == SOAK_NATIVE && !host) api_native(&w->api[c][p], n, w->comm[c], w->mc[c], w->stream[c]);
            else if (p == SOAK_GRAPH && !host) api_graph(&w->api[c][p], n, w->comm[c], w->mc[c], w->stream[c]);
            else if (p == SOAK_MPI_NONBLOCKING) api_mpi_nonblocking(&w->api[c][p], n, w->comm[c]);
            else api_mpi(&w->api[c][p], n, w->comm[c]);
        }
    }
    return 1;
}

static void close_comms(soak_world *w)
{
    int c;
    char name[64];
    for (c = 0; c < NCOMMS; c++) {
        snprintf(name, sizeof name, "soak/teardown/%s", comm_names[c]);
        teardown_comm(name, w->mc[c]);
        if (w->stream[c]) cudaStreamDestroy(w->stream[c]);
        if (c > 0) MPI_Comm_free(&w->comm[c]);
    }
}

/* A barrier by the call's path: it must return success (there is nothing else to check). */
static int soak_barrier(soak_world *w, const soak_call *sc, long index)
{
    coll_api *api = &w->api[sc->comm][sc->path];
    MPI_Request req;
    int ok;
    switch (sc->path) {
    case SOAK_NATIVE:
    case SOAK_GRAPH:
        ok = mcoll_barrier(api->mc, api->stream) == MCOLL_SUCCESS && cudaStreamSynchronize(api->stream) == cudaSuccess;
        break;
    case SOAK_MPI: ok = MPI_Barrier(api->comm) == MPI_SUCCESS; break;
    default: ok = MPI_Ibarrier(api->comm, &req) == MPI_SUCCESS && MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS; break;
    }
    if (!ok) case_fail("%s barrier (call %ld) failed", api->name, index);
    return ok;
}

/* One call: prepare, agree that every rank is ready, call, check. 1 when this rank saw it
 * right; -1 when some rank could not prepare it (the run stops). */
static int soak_one(soak_world *w, const soak_call *sc, long index, uint64_t seed)
{
    coll_api *api = &w->api[sc->comm][sc->path];
    coll_case c = sc->c;
    coll_prep p;
    coll_call call = {0};
    char label[224];
    int ready, right = 0;

    c.root %= api->size;
    case_name(api->name, &c, label, sizeof label - 32);
    snprintf(label + strlen(label), 32, " (call %ld): ", index);
    ready = prep_alloc(&p, &c, api->rank, api->size) == 0 && prep_load(&p, seed) == 0;
    p.exscan_rank0_undefined = sc->path == SOAK_MPI || sc->path == SOAK_MPI_NONBLOCKING;
    if (case_agree(ready)) {
        prep_call(&p, &call);
        right = api_run(api, &call) == 0 && prep_check(&p, label) == 0;
        /* Every wrong call is named where it happened: the run goes on past it. */
        if (!right) fprintf(stderr, "# rank %d: wrong: %s%s\n", api->rank, label, case_detail());
    } else {
        right = -1;
    }
    prep_free(&p);
    return right;
}

static uint64_t agreed_seed(unsigned long asked)
{
    unsigned long seed = asked ? asked : (unsigned long)time(NULL) ^ ((unsigned long)getpid() << 16);
    MPI_Bcast(&seed, 1, MPI_UNSIGNED_LONG, 0, MPI_COMM_WORLD);
    return seed;
}

/* What the ranks agree on before each call: rank 0's clock decides stop and half-way. */
enum { FLAG_STOP, FLAG_HALF_WAY, FLAG_WRONG, NFLAGS };

/* Every rank between two barriers: nobody holds test buffers, so device memory reads alike. */
static void sample(usage_sample *s, int with_device, const char *label, long calls)
{
    MPI_Barrier(MPI_COMM_WORLD);
    usage_take(s, with_device);
    MPI_Barrier(MPI_COMM_WORLD);
    usage_print(s, label, calls);
}

static void soak(const soak_opts *o, soak_world *w, uint64_t seed)
{
    soak_limits lim = {o->max_bytes, o->host, NCOMMS, report_size()};
    soak_rng rng;
    soak_call sc;
    usage_sample at_start, at_warm, at_mid, at_end, grew;
    long warmup = o->calls / 10 < 1000 ? o->calls / 10 : 1000, ladder = soak_ladder_length(&lim), done = 0, wrong = 0, i;
    int last_wrong = 0, flags[NFLAGS], all[NFLAGS], mid_taken = 0;
    double t0 = wall_seconds(), took;

    if (warmup < ladder) warmup = ladder;
    soak_rng_seed(&rng, seed);
    sample(&at_start, !o->host, "start", 0);
    at_warm = at_mid = at_start;
    for (i = 0; i < o->calls; i++) {
        /* One agreement per call: stop (time or faults), half-way, and whether the last call was
         * wrong anywhere. */
        double spent = wall_seconds() - t0;
        flags[FLAG_STOP] = report_rank() == 0 && ((o->seconds > 0 && spent >= o->seconds) || wrong >= WRONG_STOP);
        flags[FLAG_HALF_WAY] = report_rank() == 0 && !mid_taken && i > warmup &&
                               (i >= o->calls / 2 || (o->seconds > 0 && spent >= o->seconds / 2));
        flags[FLAG_WRONG] = last_wrong;
        MPI_Allreduce(flags, all, NFLAGS, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        wrong += all[FLAG_WRONG];
        last_wrong = 0;
        if (all[FLAG_STOP]) break;
        if (i == warmup) sample(&at_warm, !o->host, "after warm-up", i);
        /* Half-way: by calls, or by time when the limit will end the run first. */
        if (all[FLAG_HALF_WAY]) {
            sample(&at_mid, !o->host, "half-way", i);
            mid_taken = 1;
        }
        if (o->leak_fds && i > warmup && i % 100 == 0 && open("/dev/null", O_RDONLY) < 0) case_fail("cannot open /dev/null");
        if (i < ladder) soak_ladder(&lim, (int)i, &sc);
        else soak_pick(&rng, &lim, &sc);
        switch (sc.barrier ? soak_barrier(w, &sc, i) : soak_one(w, &sc, i, soak_rng_next(&rng))) {
        case 1: break;
        case 0: last_wrong = 1; break;
        default: i = o->calls; break; /* some rank could not prepare a call: stop */
        }
        done++;
    }
    MPI_Allreduce(&last_wrong, flags, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    wrong += flags[0];
    took = wall_seconds() - t0;
    sample(&at_end, !o->host, "end", done);
    grew = usage_growth(&at_warm, &at_end);
    say("soak: calls %ld/%ld, wrong %ld, rss %+ld KiB (bound %ld MiB), fds %+ld, device %+ld MiB, %.0f s, seed %lu",
        done, o->calls, wrong, grew.rss_kib, o->rss_bound_mib, grew.fds, o->host ? 0 : grew.device_mib, took,
        (unsigned long)seed);
    if (at_mid.rss_kib > 0)
        say("rss growth: warm-up to half-way %+ld KiB, half-way to end %+ld KiB (rank 0)", at_mid.rss_kib - at_warm.rss_kib,
            at_end.rss_kib - at_mid.rss_kib);
    if (wrong) case_fail("%ld of %ld calls wrong", wrong, done);
    if (done < warmup + 1) case_fail("only %ld calls made: no warm-up to measure growth from", done);
    if (grew.fds > 0) case_fail("open descriptors grew by %ld after the warm-up", grew.fds);
    if (grew.rss_kib > o->rss_bound_mib * 1024)
        case_fail("resident memory grew by %ld KiB after the warm-up (bound %ld MiB)", grew.rss_kib, o->rss_bound_mib);
}

int main(int argc, char **argv)
{
    soak_opts o;
    gpu_opts opts;
    soak_world w;
    uint64_t seed;
    int rc = soak_parse(&argc, argv, &o);
    if (rc >= 0) return rc;
    if (o.host) rc = harness_start_host(&argc, &argv, "gpu_soak", "randomly mixed collectives, checked", &opts);
    else rc = harness_start(&argc, &argv, "gpu_soak", "randomly mixed collectives, checked", &opts);
    if (rc >= 0) return rc;
    seed = agreed_seed(opts.seed);
    if (open_comms(&w, o.host) && case_begin("soak/%s/np=%d/calls=%ld", o.host ? "host" : "gpu", report_size(), o.calls)) {
        soak(&o, &w, seed);
        case_end();
    }
    close_comms(&w);
    return harness_finish();
}
