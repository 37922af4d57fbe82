/* Stream ordering of the native API:
 *   - 1000 calls back to back on one stream (distinct buffers, reused buffers with stream-ordered
 *     copies, broadcasts with a moving root), each call's data unlike any other's;
 *   - a burst of different collectives enqueued without waiting, checked after one sync;
 *   - CUDA graph capture of several calls, replayed with new inputs each time;
 *   (both also over the calls of API 0.3: gathers, scatters, all-to-all, scans);
 *   - two communicators interleaved (a duplicate of MPI_COMM_WORLD; on one stream and on two;
 *     and two mcoll communicators over MPI_COMM_WORLD itself);
 *   - the legacy default stream, the per-thread stream and a non-blocking stream;
 *   - a call returns before its stream reaches it (the stream is held by a host function).
 *   mpirun -np N gpu_stream [-q] [-f FILTER] [-s SEED]          (NCCL_NVLS_ENABLE=0 required) */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cuda_runtime_api.h>
#include <mpi.h>
#include "common/api.h"
#include "common/cycle.h"
#include "common/devbuf.h"
#include "common/harness.h"
#include "common/loops.h"
#include "common/prep.h"
#include "common/report.h"
#include "common/setup.h"
#include "common/suite.h"
#include "mcoll.h"

#define LEN(a) (sizeof(a) / sizeof((a)[0]))

/* Allocate every prepared call; collective agreement. */
static int alloc_all(coll_prep *preps, const coll_case *cases, coll_api *const *apis, int n)
{
    int i, ok = 1;
    for (i = 0; i < n; i++)
        if (ok && prep_alloc(&preps[i], &cases[i], apis[i]->rank, apis[i]->size)) ok = 0;
    return case_agree(ok);
}

static int load_all(coll_prep *preps, int n, uint64_t seed)
{
    int i, ok = 1;
    for (i = 0; i < n && ok; i++) ok = prep_load(&preps[i], seed + (uint64_t)i) == 0;
    return case_agree(ok);
}

static void check_all(coll_prep *preps, int n, const char *what)
{
    char label[160], name[128];
    int i;
    for (i = 0; i < n; i++) {
        case_name("", &preps[i].c, name, sizeof name);
        snprintf(label, sizeof label, "%scall %d (%s): ", what, i, name + 1);
        prep_check(&preps[i], label);
    }
}

/* Enqueue every call on its own api's stream; 0 when all were accepted. */
static int enqueue_all(coll_prep *preps, coll_api *const *apis, int n)
{
    char text[200];
    coll_call call = {0};
    int i;
    for (i = 0; i < n; i++) {
        mcoll_result rc;
        prep_call(&preps[i], &call);
        rc = native_enqueue(apis[i]->mc, apis[i]->stream, &call);
        if (rc != MCOLL_SUCCESS) {
            native_describe(rc, text, sizeof text);
            case_fail("call %d: mcoll_%s returned %d: %s", i, coll_name(call.kind), (int)rc, text);
            return -1;
        }
    }
    return 0;
}

static void free_all(coll_prep *preps, int n)
{
    int i;
    for (i = 0; i < n; i++) prep_free(&preps[i]);
}

/* Call i of a varied sequence: suite_mixed, or suite_mixed_native (the calls of API 0.3). */
typedef coll_case (*case_maker)(int i, int size);

/* `ncalls` different collectives enqueued back to back, checked after one synchronize; `rounds`
 * times with new inputs. */
static void burst(coll_api *api, const char *set, case_maker mixed, int ncalls, int rounds)
{
    coll_prep *preps;
    coll_case *cases;
    coll_api **apis;
    char what[32];
    uint64_t seed;
    int i, r;

    if (!case_begin("%s/burst%s/x%d/rounds=%d", api->name, set, ncalls, rounds)) return;
    seed = case_seed();
    preps = calloc((size_t)ncalls, sizeof *preps);
    cases = calloc((size_t)ncalls, sizeof *cases);
    apis = calloc((size_t)ncalls, sizeof *apis);
    if (preps && cases && apis) {
        for (i = 0; i < ncalls; i++) {
            cases[i] = mixed(i, api->size);
            apis[i] = api;
        }
        if (alloc_all(preps, cases, apis, ncalls))
            for (r = 0; r < rounds; r++) {
                int ok;
                if (!load_all(preps, ncalls, seed + (uint64_t)r * 1000u)) break;
                ok = enqueue_all(preps, apis, ncalls) == 0;
                ok = api->wait(api) == 0 && ok; /* wait even for a partial burst */
                snprintf(what, sizeof what, "round %d, ", r);
                if (ok) check_all(preps, ncalls, what);
                if (!case_agree(ok && !case_failed())) break;
            }
        free_all(preps, ncalls);
    } else {
        case_fail("out of host memory");
    }
    free(preps);
    free(cases);
    free(apis);
    case_end();
}

/* Capture several calls (and a barrier) in a CUDA graph; replay it `replays` times, each time
 * with new inputs and twice in a row, checking the results after each replay. */
static void graph_replay(coll_api *api, const char *set, case_maker mixed, int replays)
{
    enum { CALLS = 6 };
    coll_prep preps[CALLS];
    coll_case cases[CALLS];
    coll_api *apis[CALLS];
    cudaGraph_t graph = NULL;
    cudaGraphExec_t exec = NULL;
    size_t nodes = 0;
    char what[32];
    uint64_t seed;
    int i, j, ok;

    if (!case_begin("%s/graph%s/calls=%d/replays=%d", api->name, set, CALLS, replays)) return;
    seed = case_seed();
    for (i = 0; i < CALLS; i++) {
        cases[i] = mixed(i, api->size);
        cases[i].in_place = 0; /* a replay must not feed on its own output */
        apis[i] = api;
    }
    cases[1].count = ((size_t)1 << 20) + 3; /* one call past the one-shot limit (a reduction) */
    if (mixed == suite_mixed) cases[1].kind = COLL_ALLREDUCE;
    memset(preps, 0, sizeof preps);
    ok = alloc_all(preps, cases, apis, CALLS) && load_all(preps, CALLS, seed);
    if (ok) {
        ok = !cuda_check(cudaStreamBeginCapture(api->stream, cudaStreamCaptureModeGlobal), "cudaStreamBeginCapture");
        if (ok) {
            ok = enqueue_all(preps, apis, 3) == 0;
            if (ok && mcoll_barrier(api->mc, api->stream) != MCOLL_SUCCESS) {
                case_fail("mcoll_barrier failed during capture");
                ok = 0;
            }
            ok = ok && enqueue_all(preps + 3, apis + 3, CALLS - 3) == 0;
            /* End the capture whatever happened, or the stream stays unusable. */
            if (cuda_check(cudaStreamEndCapture(api->stream, &graph), "cudaStreamEndCapture")) ok = 0;
        }
        if (ok && !cuda_check(cudaGraphGetNodes(graph, NULL, &nodes), "cudaGraphGetNodes")) {
            if (nodes < 1) case_fail("the captured graph is empty");
            say("graph: %zu nodes for %d collectives and a barrier", nodes, CALLS);
        }
        ok = case_agree(ok && !case_failed() && !cuda_check(cudaGraphInstantiate(&exec, graph, 0), "cudaGraphInstantiate"));
        for (j = 0; ok && j < replays; j++) {
            if (!load_all(preps, CALLS, seed + 100u * (uint64_t)(j + 1))) break;
            ok = !cuda_check(cudaGraphLaunch(exec, api->stream), "cudaGraphLaunch") &&
                 !cuda_check(cudaGraphLaunch(exec, api->stream), "cudaGraphLaunch (again)");
            ok = api->wait(api) == 0 && ok;
            snprintf(what, sizeof what, "replay %d, ", j);
            if (ok) check_all(preps, CALLS, what);
            ok = case_agree(ok && !case_failed());
        }
    }
    if (exec) cudaGraphExecDestroy(exec);
    if (graph) cudaGraphDestroy(graph);
    free_all(preps, CALLS);
    case_end();
}

/* Calls alternating between two communicators, all enqueued before one wait. */
static void interleaved(const char *name, coll_api *a, coll_api *b, int pairs)
{
    coll_prep *preps = calloc((size_t)pairs * 2, sizeof *preps);
    coll_case *cases = calloc((size_t)pairs * 2, sizeof *cases);
    coll_api **apis = calloc((size_t)pairs * 2, sizeof *apis);
    int i, n = 2 * pairs;

    if (!case_begin("%s/x%d", name, n)) {
        free(preps);
        free(cases);
        free(apis);
        return;
    }
    if (preps && cases && apis) {
        for (i = 0; i < n; i++) {
            cases[i] = suite_mixed(i / 2 + (i % 2) * 3, a->size);
            apis[i] = i % 2 ? b : a;
        }
        if (alloc_all(preps, cases, apis, n) && load_all(preps, n, case_seed())) {
            if (enqueue_all(preps, apis, n) == 0 && a->wait(a) == 0 && b->wait(b) == 0) check_all(preps, n, "");
        }
        free_all(preps, n);
    } else {
        case_fail("out of host memory");
    }
    free(preps);
    free(cases);
    free(apis);
    case_end();
}

/* Host function that holds the stream until the main thread opens the gate (20 s at most). */
typedef struct {
    atomic_int open;
    atomic_int timed_out;
} gate;

static void CUDART_CB hold_stream(void *arg)
{
    gate *g = arg;
    time_t start = time(NULL);
    while (!atomic_load(&g->open))
        if (time(NULL) - start > 20) {
            atomic_store(&g->timed_out, 1);
            return;
        }
}

/* Stream-ordered means enqueue and return: with the stream held, calls must come back at once. */
static void returns_at_once(coll_api *api)
{
    coll_case c = suite_mixed(0, api->size);
    coll_api *apis[1];
    coll_prep p;
    gate g;
    double seconds = 0;
    int ok;

    if (!case_begin("%s/enqueue-returns-at-once", api->name)) return;
    atomic_init(&g.open, 0);
    atomic_init(&g.timed_out, 0);
    c.count = 65539;
    c.in_place = 0;
    apis[0] = api;
    memset(&p, 0, sizeof p);
    ok = alloc_all(&p, &c, apis, 1) && load_all(&p, 1, case_seed());
    if (ok && !cuda_check(cudaLaunchHostFunc(api->stream, hold_stream, &g), "cudaLaunchHostFunc")) {
        double start = wall_seconds();
        ok = enqueue_all(&p, apis, 1) == 0;
        if (ok && mcoll_barrier(api->mc, api->stream) != MCOLL_SUCCESS) case_fail("mcoll_barrier failed");
        seconds = wall_seconds() - start;
        atomic_store(&g.open, 1);
        if (api->wait(api) == 0) {
            if (atomic_load(&g.timed_out))
                case_fail("the calls did not return until their stream ran (held 20 s; returned after %.1f s)", seconds);
            else if (seconds > 5)
                case_fail("enqueueing on a held stream took %.1f s", seconds);
            if (ok) prep_check(&p, "");
        }
    }
    prep_free(&p);
    case_end();
}

/* The same calls on streams other than the one created with cudaStreamCreate. */
static void other_streams(mcoll_comm *mc)
{
    cudaStream_t nonblocking = NULL;
    coll_api api;
    coll_case c;
    struct { const char *name; cudaStream_t stream; } streams[3];
    int i, k;

    streams[0].name = "stream/legacy-default";
    streams[0].stream = NULL;
    streams[1].name = "stream/per-thread";
    streams[1].stream = cudaStreamPerThread;
    streams[2].name = "stream/non-blocking";
    streams[2].stream = NULL;
    if (setup_begin("stream/non-blocking/create")) {
        cuda_check(cudaStreamCreateWithFlags(&nonblocking, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
        case_end();
    }
    streams[2].stream = nonblocking;
    for (i = 0; i < 3; i++) {
        if (i == 2 && !nonblocking) break;
        api_native(&api, streams[i].name, MPI_COMM_WORLD, mc, streams[i].stream);
        for (k = 0; k < 3; k++) {
            c = suite_mixed(k, api.size);
            case_run(&api, &c);
        }
    }
    if (nonblocking) cudaStreamDestroy(nonblocking);
}

int main(int argc, char **argv)
{
    gpu_opts opts;
    cudaStream_t stream = NULL, stream2 = NULL;
    mcoll_comm *mc, *mc_dup, *mc_again;
    MPI_Comm dup;
    coll_api api, api_dup, api_dup2, api_again;
    int iters, rc = harness_start(&argc, &argv, "gpu_stream", "stream ordering of the native mcoll API", &opts);
    if (rc >= 0) return rc;
    iters = opts.quick ? 100 : 1000;

    if (setup_begin("stream/streams")) {
        if (!cuda_check(cudaStreamCreate(&stream), "cudaStreamCreate")) cuda_check(cudaStreamCreate(&stream2), "cudaStreamCreate");
        case_end();
    }
    mc = setup_comm("stream/comm_create", MPI_COMM_WORLD, NULL);
    if (mc) {
        api_native(&api, "stream", MPI_COMM_WORLD, mc, stream);
        loop_distinct(&api, type_get(TT_INT32), 1023, iters);
        loop_distinct(&api, type_get(TT_FLOAT), 65539, iters);
        loop_reused(&api, type_get(TT_FLOAT), 65539, iters);
        loop_reused(&api, type_get(TT_INT32), 3, iters);
        loop_bcast(&api, 257, iters);
        burst(&api, "", suite_mixed, opts.quick ? 10 : 40, opts.quick ? 2 : 5);
        graph_replay(&api, "", suite_mixed, opts.quick ? 2 : 5);
        burst(&api, "/api-0.3", suite_mixed_native, opts.quick ? 10 : 40, opts.quick ? 2 : 5);
        graph_replay(&api, "/api-0.3", suite_mixed_native, opts.quick ? 2 : 5);
        other_streams(mc);
        returns_at_once(&api);

        MPI_Comm_dup(MPI_COMM_WORLD, &dup);
        mc_dup = setup_comm("stream/twocomm/comm_create(dup)", dup, NULL);
        if (mc_dup) {
            api_native(&api_dup, "dup", dup, mc_dup, stream);
            api_native(&api_dup2, "dup", dup, mc_dup, stream2);
            interleaved("stream/twocomm/world+dup/same-stream", &api, &api_dup, opts.quick ? 6 : 20);
            interleaved("stream/twocomm/world+dup/two-streams", &api, &api_dup2, opts.quick ? 6 : 20);
        }
        mc_again = setup_comm("stream/twocomm/comm_create(world again)", MPI_COMM_WORLD, NULL);
        if (mc_again) {
            api_native(&api_again, "again", MPI_COMM_WORLD, mc_again, stream);
            interleaved("stream/twocomm/world+world/same-stream", &api, &api_again, opts.quick ? 6 : 20);
        }
        teardown_comm("stream/twocomm/comm_destroy(world again)", mc_again);
        teardown_comm("stream/twocomm/comm_destroy(dup)", mc_dup);
        cycle_cases("stream/cycle/world+dup/opposite-orders", MPI_COMM_WORLD, dup, stream, stream2);
        MPI_Comm_free(&dup);
        teardown_comm("stream/comm_destroy", mc);
    }
    if (stream) cudaStreamDestroy(stream);
    if (stream2) cudaStreamDestroy(stream2);
    return harness_finish();
}
