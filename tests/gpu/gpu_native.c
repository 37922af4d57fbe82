/* The native, stream-ordered API on device buffers: every collective, datatype and op against
 * the host reference (see common/suite.h for the matrix), >= 1 GiB allreduces, the
 * communicator report, the 16-bit datatype handles, a small-buffer configuration that forces
 * chunking (every collective of API 0.3 one element past a chunk; the reductions at one, two
 * and three chunks and one element more), communicator create/destroy cycles, and barriers.
 *   mpirun -np N gpu_native [-q] [-f FILTER] [-s SEED]          (NCCL_NVLS_ENABLE=0 required) */
#include <stdio.h>
#include <cuda_runtime_api.h>
#include <mpi.h>
#include "common/api.h"
#include "common/devbuf.h"
#include "common/harness.h"
#include "common/info.h"
#include "common/prep.h"
#include "common/report.h"
#include "common/setup.h"
#include "common/suite.h"
#include "mcoll.h"

/* MCOLL_FLOAT16 and MCOLL_BFLOAT16 are real 2-byte MPI datatypes after MPI_Init. */
static void check_half_types(void)
{
    MPI_Datatype types[2];
    const char *names[2] = {"MCOLL_FLOAT16", "MCOLL_BFLOAT16"};
    int i, size = 0;
    if (!case_begin("native/datatypes/16-bit-handles")) return;
    types[0] = MCOLL_FLOAT16;
    types[1] = MCOLL_BFLOAT16;
    for (i = 0; i < 2; i++) {
        if (types[i] == MPI_DATATYPE_NULL) {
            case_fail("%s is MPI_DATATYPE_NULL after MPI_Init", names[i]);
            continue;
        }
        if (MPI_Type_size(types[i], &size) != MPI_SUCCESS || size != 2) case_fail("%s has size %d, want 2", names[i], size);
    }
    if (types[0] == types[1] && types[0] != MPI_DATATYPE_NULL) case_fail("MCOLL_FLOAT16 and MCOLL_BFLOAT16 are the same handle");
    case_end();
}

/* Many barriers back to back, then one collective: the barrier's epochs must not disturb it. */
static void check_barriers(coll_api *api, int count)
{
    coll_case c = {COLL_ALLREDUCE, NULL, NULL, 1023, 0, 0, 0, 0, MEM_DEVICE, 0};
    mcoll_result rc = MCOLL_SUCCESS;
    int i;
    if (case_begin("native/barrier/x%d", count)) {
        for (i = 0; i < count && rc == MCOLL_SUCCESS; i++) rc = mcoll_barrier(api->mc, api->stream);
        if (rc != MCOLL_SUCCESS) case_fail("mcoll_barrier call %d returned %d", i - 1, (int)rc);
        cuda_check(cudaStreamSynchronize(api->stream), "cudaStreamSynchronize after the barriers");
        case_end();
    }
    c.type = type_get(TT_FLOAT);
    c.op = op_get(OP_SUM);
    case_run(api, &c);
}

/* Counts one element past a chunk for the block collectives and scans, on a communicator with
 * one thread block: collectives/exchange_run.cuh and schedule.cuh cut the data area (the
 * symmetric memory less 64 KiB of signals) into two halves; an exchange's half starts with 512
 * bytes of flags, then a slot per rank (scatter: one slot); a two-shot scan's half holds a
 * slot per rank. */
static void past_chunk(coll_api *api, mcoll_comm *mc)
{
    static const coll_kind kinds[] = {COLL_ALLGATHERV, COLL_ALLTOALL, COLL_ALLTOALLV, COLL_GATHER,
                                      COLL_GATHERV, COLL_SCATTER, COLL_SCATTERV, COLL_SCAN, COLL_EXSCAN};
    coll_case c = {COLL_ALLREDUCE, NULL, NULL, 0, 0, 0, 0, 0, MEM_DEVICE, 0};
    mcoll_comm_info_t info;
    size_t half, slot, k;

    if (mcoll_comm_info(mc, &info) != MCOLL_SUCCESS || info.symmetric_bytes <= ((size_t)64 << 10)) return;
    half = ((info.symmetric_bytes - ((size_t)64 << 10)) & ~(size_t)31) / 2;
    for (k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        c.kind = kinds[k];
        c.type = type_get(TT_FLOAT);
        c.op = op_get(OP_SUM);
        c.root = (int)k % api->size;
        if (c.kind == COLL_SCAN || c.kind == COLL_EXSCAN) slot = half;  /* over all slots: two-shot */
        else if (c.kind == COLL_SCATTER || c.kind == COLL_SCATTERV) slot = (half - 512) & ~(size_t)15;
        else slot = ((half - 512) / (size_t)api->size) & ~(size_t)15;
        c.count = slot / c.type->size + 1;
        c.in_place = c.misalign = 0;
        case_run(api, &c);
        c.in_place = c.misalign = 1;
        case_run(api, &c);
    }
}

/* The pipelined reduction loop (collectives/pipeline.cuh) on a communicator with one thread
 * block: counts whose slots hold exactly one, two and three chunks, and one element more (a last
 * chunk of one element), so that phases run one, two and three jobs side by side and the last
 * ones run without a copy-in. A two-shot allreduce half holds a chunk's inputs and another's
 * results (a slot per rank each), reduce's a slot per non-root rank each (roots first and last,
 * in place at the root and not), reduce_scatter's a slot per rank. */
static void pipeline_chunks(coll_api *api, mcoll_comm *mc)
{
    static const coll_kind kinds[] = {COLL_ALLREDUCE, COLL_REDUCE, COLL_REDUCE_SCATTER};
    coll_case c = {COLL_ALLREDUCE, NULL, NULL, 0, 0, 0, 0, 0, MEM_DEVICE, 0};
    mcoll_comm_info_t info;
    const size_t n = (size_t)api->size;
    size_t half, k, chunks, extra;

    if (n < 2 || mcoll_comm_info(mc, &info) != MCOLL_SUCCESS || info.symmetric_bytes <= ((size_t)64 << 10)) return;
    half = ((info.symmetric_bytes - ((size_t)64 << 10)) & ~(size_t)31) / 2;
    c.type = type_get(TT_FLOAT);
    c.op = op_get(OP_SUM);
    for (k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
        for (chunks = 1; chunks <= 3; chunks++)
            for (extra = 0; extra <= 1; extra++) {
                const size_t slices = kinds[k] == COLL_REDUCE ? n - 1 : n;
                const size_t chunk = kinds[k] == COLL_REDUCE_SCATTER ? (half / n) & ~(size_t)15
                                                                     : (half / (2 * slices)) & ~(size_t)15;
                c.kind = kinds[k];
                /* reduce_scatter counts per rank; the others the whole message */
                c.count = (kinds[k] == COLL_REDUCE_SCATTER ? chunks * chunk : slices * chunks * chunk) / c.type->size + extra;
                c.root = chunks % 2 ? 0 : api->size - 1;
                c.in_place = (int)extra;
                case_run(api, &c);
            }
}

/* A 1 MiB symmetric buffer and one thread block: large messages go through in many chunks. */
static void check_small_config(cudaStream_t stream)
{
    static const size_t counts[] = {1023, ((size_t)1 << 20) + 3};
    mcoll_config config;
    mcoll_comm *mc;
    coll_api api;
    coll_case c = {COLL_ALLREDUCE, NULL, NULL, 0, 0, 0, 1, 0, MEM_DEVICE, 0};
    size_t i;

    mcoll_config_init(&config);
    config.buffer_size = (size_t)1 << 20;
    config.max_blocks = 1;
    mc = setup_comm("native/config/1MiB-1block/create", MPI_COMM_WORLD, &config);
    if (!mc) return;
    api_native(&api, "native/config/1MiB-1block", MPI_COMM_WORLD, mc, stream);
    for (i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        c.count = report_quick() ? counts[i] / 16 + 3 : counts[i];
        c.type = type_get(TT_FLOAT);
        c.op = op_get(OP_SUM);
        case_run(&api, &c);
        c.type = type_get(TT_UINT64);
        c.op = op_get(OP_BXOR);
        case_run(&api, &c);
        c.kind = COLL_REDUCE;
        c.root = api.size - 1;
        case_run(&api, &c);
        c.root = 0;
        c.kind = COLL_REDUCE_SCATTER;
        c.count /= (size_t)api.size;
        case_run(&api, &c);
        c.kind = COLL_ALLREDUCE;
    }
    past_chunk(&api, mc);
    pipeline_chunks(&api, mc);
    teardown_comm("native/config/1MiB-1block/destroy", mc);
}

/* Create, use and destroy communicators over a duplicate of MPI_COMM_WORLD several times. */
static void check_lifecycle(cudaStream_t stream, int cycles)
{
    coll_case c = {COLL_ALLREDUCE, NULL, NULL, 4099, 0, 0, 0, 0, MEM_DEVICE, 0};
    char name[64];
    MPI_Comm dup;
    mcoll_comm *mc;
    coll_api api;
    int i;

    c.type = type_get(TT_BFLOAT16);
    c.op = op_get(OP_SUM);
    for (i = 0; i < cycles; i++) {
        MPI_Comm_dup(MPI_COMM_WORLD, &dup);
        snprintf(name, sizeof name, "native/lifecycle/%d/create", i);
        mc = setup_comm(name, dup, NULL);
        if (mc) {
            snprintf(name, sizeof name, "native/lifecycle/%d", i);
            api_native(&api, name, dup, mc, stream);
            case_run(&api, &c);
            snprintf(name, sizeof name, "native/lifecycle/%d/destroy", i);
            teardown_comm(name, mc);
        }
        MPI_Comm_free(&dup);
    }
}

int main(int argc, char **argv)
{
    gpu_opts opts;
    cudaStream_t stream = NULL;
    mcoll_comm *mc;
    coll_api api;
    int rc = harness_start(&argc, &argv, "gpu_native", "native mcoll API on device buffers", &opts);
    if (rc >= 0) return rc;

    if (setup_begin("native/stream")) {
        cuda_check(cudaStreamCreate(&stream), "cudaStreamCreate");
        case_end();
    }
    mc = setup_comm("native/comm_create", MPI_COMM_WORLD, NULL);
    if (mc) {
        check_comm_info("native/info", mc, MPI_COMM_WORLD);
        check_half_types();
        api_native(&api, "native", MPI_COMM_WORLD, mc, stream);
        suite_matrix(&api);
        check_barriers(&api, report_quick() ? 10 : 100);
        suite_large(&api, 1);
        teardown_comm("native/comm_destroy", mc);
    }
    if (!report_stopped()) {
        check_small_config(stream);
        check_lifecycle(stream, report_quick() ? 2 : 4);
    }
    if (stream) cudaStreamDestroy(stream);
    return harness_finish();
}
