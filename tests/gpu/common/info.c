/* The communicator report; see info.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>
#include "env.h"
#include "info.h"
#include "report.h"

static const char *engine_name(mcoll_engine e)
{
    switch (e) {
    case MCOLL_ENGINE_AUTO: return "auto";
    case MCOLL_ENGINE_UNICAST: return "unicast";
    case MCOLL_ENGINE_NVLS: return "nvls";
    case MCOLL_ENGINE_STAGED: return "staged";
    }
    return "?";
}

/* What the team reports of its GPUs is the truth: each rank's GPU UUID and MPS state, gathered
 * here through the runtime, give the GPU count, the most ranks on one GPU and this rank's
 * sharers. Ranks may share a GPU (under MPS); mcoll must say so, not assume one GPU per rank. */
typedef struct {
    char uuid[16];
    int mps;
} gpu_id;

static void check_devices(const mcoll_comm_info_t *info, MPI_Comm comm, int rank, int size)
{
    gpu_id mine, *all = malloc((size_t)size * sizeof *all);
    struct cudaDeviceProp prop;
    int device = -1, r, q, gpus = 0, most = 0, sharers = 0;
    char line[256];
    size_t used = 0;
    if (!all) return;
    memset(&mine, 0, sizeof mine);
    if (cudaGetDevice(&device) == cudaSuccess && cudaGetDeviceProperties(&prop, device) == cudaSuccess)
        memcpy(mine.uuid, prop.uuid.bytes, sizeof mine.uuid);
    cudaDeviceGetAttribute(&mine.mps, cudaDevAttrMpsEnabled, device);
    MPI_Allgather(&mine, (int)sizeof mine, MPI_BYTE, all, (int)sizeof mine, MPI_BYTE, comm);
    for (r = 0; r < size; r++) {
        int on_gpu = 0, first = r;
        for (q = 0; q < size; q++) {
            if (memcmp(all[q].uuid, all[r].uuid, sizeof all[r].uuid)) continue;
            on_gpu++;
            if (q < first) first = q;
        }
        if (first == r) gpus++;
        if (on_gpu > most) most = on_gpu;
        if (r == rank) sharers = on_gpu;
        if (used < sizeof line) used += (size_t)snprintf(line + used, sizeof line - used, " %d->gpu%d", r, first);
    }
    say("team rank -> GPU (named by its lowest rank):%s; MPS %s", line, mine.mps ? "on" : "off");
    if (info->gpus != gpus) case_fail("gpus %d, but the ranks use %d distinct GPUs", info->gpus, gpus);
    if (info->ranks_per_gpu != most) case_fail("ranks_per_gpu %d, want %d", info->ranks_per_gpu, most);
    if (info->gpu_sharers != sharers) case_fail("gpu_sharers %d, want %d", info->gpu_sharers, sharers);
    if (info->mps != (mine.mps != 0)) case_fail("mps %d, but the device attribute reads %d", info->mps, mine.mps);
    if (most > 1 && !mine.mps) case_fail("a team was built on a GPU shared without MPS");
    free(all);
}

/* mcoll_comm_describe must stay within a short buffer and terminate it. */
static void check_describe(mcoll_comm *mc)
{
    char line[512], small[16];
    mcoll_result rc = mcoll_comm_describe(mc, line, sizeof line);
    if (rc != MCOLL_SUCCESS) case_fail("mcoll_comm_describe returned %d", (int)rc);
    else if (!line[0]) case_fail("mcoll_comm_describe gave an empty line");
    else say("describe: %s", line);
    memset(small, 'Z', sizeof small);
    rc = mcoll_comm_describe(mc, small, 8);
    if (rc != MCOLL_SUCCESS) case_fail("mcoll_comm_describe(len 8) returned %d", (int)rc);
    else if (memchr(small, '\0', 8) == NULL) case_fail("mcoll_comm_describe(len 8) did not terminate the text");
    else if (small[8] != 'Z') case_fail("mcoll_comm_describe(len 8) wrote past the buffer");
}

void check_comm_info(const char *name, mcoll_comm *mc, MPI_Comm comm)
{
    mcoll_comm_info_t info;
    mcoll_result rc;
    int rank, size, device = -1;

    if (!case_begin("%s", name)) return;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    cudaGetDevice(&device);
    memset(&info, 0, sizeof info);
    rc = mcoll_comm_info(mc, &info);
    if (rc != MCOLL_SUCCESS) {
        case_fail("mcoll_comm_info returned %d", (int)rc);
        memset(&info, 0, sizeof info); /* the device check below still runs on every rank */
    } else {
        say("info: engine=%s team_size=%d rank=%d device=%d symmetric_bytes=%zu peer_mapped_bytes=%zu handles=%s",
            engine_name(info.engine), info.team_size, info.rank, info.device, info.symmetric_bytes,
            info.peer_mapped_bytes, info.handle_type);
        say("info: gpus=%d ranks_per_gpu=%d gpu_sharers=%d mps=%d", info.gpus, info.ranks_per_gpu, info.gpu_sharers,
            info.mps);
        say("info: multicast: %s", info.nvls_reason);
        if (info.engine != MCOLL_ENGINE_UNICAST)
            case_fail("engine is %s, want unicast (NCCL_NVLS_ENABLE=0)", engine_name(info.engine));
        if (!memchr(info.nvls_reason, '\0', sizeof info.nvls_reason) || !info.nvls_reason[0])
            case_fail("nvls_reason is empty or not terminated");
        else if (!strstr(info.nvls_reason, "NCCL_NVLS_ENABLE") && !strstr(info.nvls_reason, "kill switch"))
            case_fail("nvls_reason \"%s\" does not name the NCCL_NVLS_ENABLE=0 kill switch", info.nvls_reason);
        /* run.sh's emulation step: every case after this one must run on the emulated layer. */
        else if (env_emulate_multimem() && !strstr(info.nvls_reason, "multimem emulated"))
            case_fail("MCOLL_TEST_EMULATE_MULTIMEM=1 but nvls_reason \"%s\" does not say multimem is emulated",
                      info.nvls_reason);
        say("info: blocks=%d/%d store_inputs=%d poll_pause_ns=%u pdl=%d", info.max_blocks, info.zero_copy_blocks,
            info.store_inputs, info.poll_pause_ns, info.pdl);
        {
            /* run.sh builds for the GPUs' own architecture, so a Hopper or newer GPU has PDL. */
            int major = 0;
            const char *pdl = getenv("MCOLL_PDL");
            cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
            if (pdl && !strcmp(pdl, "0") && info.pdl) case_fail("pdl on with MCOLL_PDL=0");
            if (!pdl && major >= 9 && !info.pdl) case_fail("pdl off on a GPU of compute capability %d.x", major);
            if (major < 9 && info.pdl) case_fail("pdl on a GPU of compute capability %d.x", major);
        }
        if (info.max_blocks < 1 || info.max_blocks > 64 || info.zero_copy_blocks < 1 || info.zero_copy_blocks > 64)
            case_fail("grid limits %d/%d outside 1..64", info.max_blocks, info.zero_copy_blocks);
        if (info.store_inputs != 0 && info.store_inputs != 1) case_fail("store_inputs %d", info.store_inputs);
        if (!getenv("MCOLL_POLL_PAUSE_NS") && info.poll_pause_ns != 100)
            case_fail("poll_pause_ns %u without MCOLL_POLL_PAUSE_NS, want the default 100", info.poll_pause_ns);
        if (info.team_size != size) case_fail("team_size %d, want %d", info.team_size, size);
        if (info.rank != rank) case_fail("rank %d, want %d", info.rank, rank);
        if (info.device != device) case_fail("device %d, but the current GPU is %d", info.device, device);
        if (info.symmetric_bytes == 0) case_fail("symmetric_bytes is 0");
        if (size > 1 && info.peer_mapped_bytes == 0) case_fail("peer_mapped_bytes is 0 in a team of %d", size);
        if (strcmp(info.handle_type, "fabric") && strcmp(info.handle_type, "posix-fd"))
            case_fail("handle_type \"%.16s\", want fabric or posix-fd", info.handle_type);
    }
    check_devices(&info, comm, rank, size);
    check_describe(mc);
    case_end();
}
