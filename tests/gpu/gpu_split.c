/* Sub-communicators of two ranks running side by side: MPI_Comm_split of MPI_COMM_WORLD into
 * pairs of neighbours ({0,1}, {2,3}, ...) and then into pairs far apart ({0,2}, {1,3} with 4
 * ranks), each pair with its own mcoll communicator, all pairs busy at the same time, native
 * API and MPI_* on the sub-communicator, and calls interleaved with ones on MPI_COMM_WORLD.
 * Needs an even number of ranks, at least 4 (run at -np 4); otherwise every case is skipped.
 *   mpirun -np 4 gpu_split [-q] [-f FILTER] [-s SEED]           (NCCL_NVLS_ENABLE=0 required) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>
#include <mpi.h>
#include "common/api.h"
#include "common/devbuf.h"
#include "common/harness.h"
#include "common/info.h"
#include "common/loops.h"
#include "common/prep.h"
#include "common/report.h"
#include "common/setup.h"
#include "common/suite.h"
#include "mcoll.h"

/* World and pair calls alternating on one stream, all enqueued before one wait. */
static void interleave_world(const char *prefix, coll_api *world, coll_api *pair, int pairs)
{
    int n = 2 * pairs, i, ok = 1;
    coll_prep *preps = calloc((size_t)n, sizeof *preps);
    coll_call call = {0};
    char label[160], name[128];

    if (!case_begin("%s/interleave-with-world/x%d", prefix, n)) {
        free(preps);
        return;
    }
    for (i = 0; i < n && preps && ok; i++) {
        coll_api *api = i % 2 ? pair : world;
        coll_case c = suite_mixed(i, api->size);
        ok = prep_alloc(&preps[i], &c, api->rank, api->size) == 0 && prep_load(&preps[i], case_seed() + (uint64_t)i) == 0;
    }
    if (case_agree(preps && ok)) {
        for (i = 0; i < n; i++) {
            coll_api *api = i % 2 ? pair : world;
            mcoll_result rc;
            prep_call(&preps[i], &call);
            rc = native_enqueue(api->mc, api->stream, &call);
            if (rc != MCOLL_SUCCESS) {
                case_fail("call %d: mcoll_%s returned %d", i, coll_name(call.kind), (int)rc);
                break;
            }
        }
        if (world->wait(world) == 0 && pair->wait(pair) == 0)
            for (i = 0; i < n; i++) {
                case_name(i % 2 ? "pair" : "world", &preps[i].c, name, sizeof name);
                snprintf(label, sizeof label, "call %d (%s): ", i, name);
                prep_check(&preps[i], label);
            }
    }
    for (i = 0; preps && i < n; i++) prep_free(&preps[i]);
    free(preps);
    case_end();
}

/* Everything on one way of splitting the world into pairs. */
static void run_split(const char *prefix, int color, mcoll_comm *world_mc, cudaStream_t stream)
{
    MPI_Comm pair;
    mcoll_comm *mc;
    coll_api native, mpi, world;
    char name[96], native_name[96], mpi_name[96];
    int rank;

    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_split(MPI_COMM_WORLD, color, rank, &pair);
    snprintf(name, sizeof name, "%s/comm_create", prefix);
    mc = setup_comm(name, pair, NULL);
    if (mc) {
        snprintf(name, sizeof name, "%s/info", prefix);
        check_comm_info(name, mc, pair);
        snprintf(native_name, sizeof native_name, "%s/native", prefix);
        snprintf(mpi_name, sizeof mpi_name, "%s/mpi", prefix);
        api_native(&native, native_name, pair, mc, stream);
        api_mpi(&mpi, mpi_name, pair);
        suite_subset(&native);
        suite_subset(&mpi);
        loop_distinct(&native, type_get(TT_INT32), 1023, report_quick() ? 50 : 200);
        loop_distinct(&mpi, type_get(TT_FLOAT), 4099, report_quick() ? 20 : 100);
        if (world_mc) {
            api_native(&world, "world", MPI_COMM_WORLD, world_mc, stream);
            interleave_world(prefix, &world, &native, report_quick() ? 4 : 12);
        }
        snprintf(name, sizeof name, "%s/comm_destroy", prefix);
        teardown_comm(name, mc);
    }
    MPI_Comm_free(&pair);
}

int main(int argc, char **argv)
{
    gpu_opts opts;
    cudaStream_t stream = NULL;
    mcoll_comm *world_mc;
    int rank, size, rc = harness_start(&argc, &argv, "gpu_split", "two-rank sub-communicators side by side", &opts);
    if (rc >= 0) return rc;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    if (size < 4 || size % 2) {
        if (case_begin("split")) {
            case_skip("needs an even number of ranks, at least 4");
            case_end();
        }
        return harness_finish();
    }
    if (setup_begin("split/stream")) {
        cuda_check(cudaStreamCreate(&stream), "cudaStreamCreate");
        case_end();
    }
    world_mc = setup_comm("split/world/comm_create", MPI_COMM_WORLD, NULL);
    /* Neighbours: {0,1}, {2,3}, ...; far apart: rank r with rank r + size/2. */
    run_split("split/neighbours", rank / 2, world_mc, stream);
    run_split("split/far-apart", rank % (size / 2), world_mc, stream);
    teardown_comm("split/world/comm_destroy", world_mc);
    if (stream) cudaStreamDestroy(stream);
    return harness_finish();
}
