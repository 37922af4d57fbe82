/* Kernels of two communicators enqueued in opposite orders; see cycle.h. */
#define _GNU_SOURCE
#include <stdio.h>
#include <time.h>
#include <unistd.h>
#include "cycle.h"
#include "devbuf.h"
#include "prep.h"
#include "report.h"
#include "setup.h"

#define CYCLE_ROUNDS 8

/* Blocks per kernel such that every block of both communicators' kernels of every rank sharing
 * this GPU fits at once, one block per multiprocessor (a block of 512 threads at 64 to 114
 * registers each takes a whole one): agreed, the smallest of any rank. */
static int blocks_that_fit(void)
{
    MPI_Comm node;
    int device = 0, sms = 0, gpus = 1, node_size = 1, per_gpu, mine, all = 1;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    cudaGetDeviceCount(&gpus);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &node_size);
    MPI_Comm_free(&node);
    per_gpu = gpus > 0 ? (node_size + gpus - 1) / gpus : node_size;
    mine = sms / (2 * per_gpu);
    if (mine > 32) mine = 32;
    if (mine < 1) mine = 1;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    say("cycle: %d multiprocessors, %d ranks per GPU: %d blocks per kernel fit both communicators", sms, per_gpu, all);
    return all;
}

/* 1 when both streams have run dry within the bound. */
static int wait_bounded(cudaStream_t a, cudaStream_t b, double bound)
{
    struct timespec nap = {0, 1000000};
    double start = wall_seconds();
    while (wall_seconds() - start < bound) {
        cudaError_t ra = cudaStreamQuery(a), rb = cudaStreamQuery(b);
        if (ra != cudaErrorNotReady && rb != cudaErrorNotReady) {
            cuda_check(ra, "cudaStreamQuery (A)");
            cuda_check(rb, "cudaStreamQuery (B)");
            return 1;
        }
        nanosleep(&nap, NULL);
    }
    return 0;
}

static void cycle_run(const char *name, mcoll_comm *const mc[2], MPI_Comm const comm[2],
                      cudaStream_t const stream[2], size_t count)
{
    coll_case c = {COLL_ALLREDUCE, type_get(TT_INT32), op_get(OP_SUM), count, 0, 0, 0, 0, MEM_DEVICE, 0};
    coll_prep p[2];
    coll_call call[2];
    int first = report_rank() % 2, ok = 1, stuck = 0, r, k, rank;

    if (!case_begin("%s/n=%zu/rounds=%d", name, count, CYCLE_ROUNDS)) return;
    for (k = 0; k < 2; k++) {
        MPI_Comm_rank(comm[k], &rank);
        ok = prep_alloc(&p[k], &c, rank, report_size()) == 0 && prep_load(&p[k], case_seed() + (uint64_t)k) == 0 && ok;
        prep_call(&p[k], &call[k]);
    }
    if (case_agree(ok)) {
        /* Even ranks: A, B, A, B, ...; odd ranks: B, A, B, A, ... */
        for (r = 0; r < CYCLE_ROUNDS && ok; r++)
            for (k = 0; k < 2 && ok; k++) {
                int j = k ^ first;
                mcoll_result rc = native_enqueue(mc[j], stream[j], &call[j]);
                if (rc != MCOLL_SUCCESS) {
                    case_fail("mcoll_allreduce on communicator %c returned %s", 'A' + j, mcoll_strerror(rc));
                    ok = 0;
                }
            }
        stuck = !wait_bounded(stream[0], stream[1], CYCLE_BOUND_S);
        if (stuck)
            case_fail("not done after %.0f s: the kernels of the two communicators wait on each other", CYCLE_BOUND_S);
        else if (ok)
            for (k = 0; k < 2; k++) prep_check(&p[k], k ? "communicator B: " : "communicator A: ");
    }
    if (!stuck) {
        prep_free(&p[0]);
        prep_free(&p[1]);
    }
    case_end();
    if (case_agree(!stuck)) return;
    /* Kernels that never end hold the GPU: only the end of the process frees it. */
    say("cycle: ending the program: kernels are still waiting on each other");
    fflush(stdout);
    _exit(1);
}

void cycle_cases(const char *name, MPI_Comm comm_a, MPI_Comm comm_b, cudaStream_t stream_a, cudaStream_t stream_b)
{
    MPI_Comm comm[2] = {comm_a, comm_b};
    cudaStream_t stream[2] = {stream_a, stream_b};
    mcoll_comm *mc[2];
    mcoll_config config;
    char label[160];

    mcoll_config_init(&config);
    config.max_blocks = blocks_that_fit();
    /* Default blocks, one-block calls. */
    snprintf(label, sizeof label, "%s/comm_create", name);
    mc[0] = setup_comm(label, comm_a, NULL);
    mc[1] = mc[0] ? setup_comm(label, comm_b, NULL) : NULL;
    snprintf(label, sizeof label, "%s/small", name);
    if (mc[1]) cycle_run(label, mc, comm, stream, 1023);
    snprintf(label, sizeof label, "%s/comm_destroy", name);
    teardown_comm(label, mc[1]);
    teardown_comm(label, mc[0]);
    /* Every block in use, as many as fit. */
    snprintf(label, sizeof label, "%s/comm_create(max_blocks=%d)", name, config.max_blocks);
    mc[0] = setup_comm(label, comm_a, &config);
    mc[1] = mc[0] ? setup_comm(label, comm_b, &config) : NULL;
    snprintf(label, sizeof label, "%s/large/max_blocks=%d", name, config.max_blocks);
    if (mc[1]) cycle_run(label, mc, comm, stream, (size_t)4 << 20);
    snprintf(label, sizeof label, "%s/comm_destroy", name);
    teardown_comm(label, mc[1]);
    teardown_comm(label, mc[0]);
}
