/* Team creation as explicit steps: nodes, private communicator, GPU and context, one NVLink
 * clique when the ranks span nodes, handle type, multicast decision, symmetric memory,
 * multicast object, signal pads. Every step that can fail on one rank ends in an agreement, so
 * all ranks succeed or fail together. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "agree.h"
#include "checks.h"
#include "config.h"
#include "fabric.h"
#include "kernels.h"
#include "locality.h"
#include "nodes.h"
#include "team.h"
#include "vmm.h"

/* Symmetric memory this process holds, against its share of MCOLL_MEMORY_LIMIT, which bounds a
 * GPU: ranks that share one split it evenly (the most ranks seen on this process's GPU in any
 * team so far; every rank of a GPU sees the same count in a team of all of them). */
static size_t memory_held;
static int gpu_sharers = 1;
static pthread_mutex_t memory_lock = PTHREAD_MUTEX_INITIALIZER;

/* The bytes this rank can still give a new team, at most `wanted`. */
static size_t memory_available(size_t wanted, int sharers)
{
    size_t limit, left;
    pthread_mutex_lock(&memory_lock);
    if (sharers > gpu_sharers) gpu_sharers = sharers;
    limit = mcoll_settings_get()->memory_limit / (size_t)gpu_sharers;
    left = memory_held < limit ? limit - memory_held : 0;
    pthread_mutex_unlock(&memory_lock);
    return wanted < left ? wanted : left;
}

static void memory_account(size_t bytes, int add)
{
    pthread_mutex_lock(&memory_lock);
    memory_held = add ? memory_held + bytes : memory_held - bytes;
    pthread_mutex_unlock(&memory_lock);
}

/* The GPU this rank uses: the one current in the calling thread, else its rank on its node
 * modulo the number of GPUs. The device's primary context is always retained, so a team never
 * depends on a reference someone else may drop (another team, say); it is made current only
 * when the thread has no context. */
static int pick_device(mcoll_team *team)
{
    CUcontext current = NULL;
    int count = 0;
    if (mcoll_cu.cuCtxGetCurrent(&current) == CUDA_SUCCESS && current) {
        if (mcoll_cu.cuCtxGetDevice(&team->cu_device) != CUDA_SUCCESS) return 0;
    } else {
        current = NULL;
        if (mcoll_cu.cuDeviceGetCount(&count) != CUDA_SUCCESS || count < 1) return 0;
        if (mcoll_cu.cuDeviceGet(&team->cu_device, team->node.rank % count) != CUDA_SUCCESS) return 0;
    }
    if (mcoll_cu.cuDevicePrimaryCtxRetain(&team->context, team->cu_device) != CUDA_SUCCESS) {
        team->context = NULL;
        return 0;
    }
    if (!current) {
        if (mcoll_cu.cuCtxSetCurrent(team->context) != CUDA_SUCCESS) return 0;
        team->made_current = 1;
    }
    team->device = (int)team->cu_device;
    mcoll_log_set_device(team->device);
    return 1;
}

static int attribute(mcoll_team *team, CUdevice_attribute attr)
{
    int value = 0;
    if (mcoll_cu.cuDeviceGetAttribute(&value, attr, team->cu_device) != CUDA_SUCCESS) return 0;
    return value;
}

/* The fabric attribute says what the GPU supports, not what this process may do: without an
 * IMEX channel, creating or exporting fabric memory fails (NOT_PERMITTED). So try it once on a
 * granule and export it. */
static int fabric_usable(mcoll_team *team)
{
    const char *instead = team->nodes > 1 ? "" : ", using POSIX descriptors";
    CUmemAllocationProp prop;
    CUmemGenericAllocationHandle handle;
    CUmemFabricHandle bytes;
    size_t gran = 0;
    int ok;
    if (!attribute(team, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED)) return 0;
    prop = mcoll_allocation_prop(team->device, CU_MEM_HANDLE_TYPE_FABRIC);
    if (mcoll_cu.cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM) != CUDA_SUCCESS ||
        mcoll_cu.cuMemCreate(&handle, gran, &prop, 0) != CUDA_SUCCESS) {
        MCOLL_INFO("fabric handles: not permitted here (no IMEX channel?)%s", instead);
        return 0;
    }
    ok = mcoll_cu.cuMemExportToShareableHandle(&bytes, handle, CU_MEM_HANDLE_TYPE_FABRIC, 0) == CUDA_SUCCESS;
    CU_WARN(cuMemRelease(handle));
    if (!ok) MCOLL_INFO("fabric handles: export not permitted here%s", instead);
    return ok;
}

/* Fabric handles where every GPU can export them, POSIX descriptors otherwise; a team spanning
 * nodes has fabric handles or nothing (descriptors pass between processes of one node only).
 * MCOLL_ERR_UNSUPPORTED there, said at INFO with the first rank that lacks them. */
static mcoll_result choose_handle_kind(mcoll_team *team)
{
    int vmm = attribute(team, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED);
    int fabric = vmm && fabric_usable(team);
    int posix = attribute(team, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED);
    int lacking = team->nodes > 1 ? mcoll_agree_first_failure(team->comm, team->rank, fabric) : -1;
    int all_fabric = team->nodes > 1 ? lacking == -1 : mcoll_team_agree(team->comm, fabric);
    if (team->nodes > 1 && !all_fabric) {
        if (team->rank == 0)
            MCOLL_INFO("no team: its ranks span %d nodes of one NVLink clique, but rank %d cannot share memory by "
                       "fabric handles (CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED, an IMEX channel); POSIX "
                       "descriptors do not cross nodes",
                       team->nodes, lacking);
        return MCOLL_ERR_UNSUPPORTED;
    }
    if (!mcoll_team_agree(team->comm, vmm && (posix || all_fabric))) {
        MCOLL_WARN("no team: the GPUs cannot share memory (no virtual memory management or shareable handles)");
        return MCOLL_ERR_CUDA;
    }
    team->handle_kind = all_fabric ? MCOLL_HANDLE_FABRIC : MCOLL_HANDLE_POSIX_FD;
    return MCOLL_SUCCESS;
}

/* Ranks on several nodes make one team only inside one NVLink clique: every GPU reports the
 * same fabric key (NVML's cluster UUID and clique id). Collective; every rank answers alike. */
static int one_clique(mcoll_team *team)
{
    int64_t mine = mcoll_fabric_key(team->device), lo = 0, hi = 0;
    if (!mcoll_agree_range(team->comm, &mine, &lo, &hi, 1)) return 0;
    if (lo >= 0 && lo == hi) return 1;
    if (team->rank == 0)
        MCOLL_INFO("no team: its ranks span %d nodes and their GPUs are not one NVLink clique (%s)", team->nodes,
                   lo < 0 ? "no GPU fabric info on some rank" : "GPUs of several cliques");
    return 0;
}

/* This rank's node and how many nodes the ranks of `comm` span (agreed). */
static int learn_nodes(MPI_Comm comm, int size, mcoll_node_place *place, int *nodes)
{
    int v[2];
    int ok = mcoll_node_place_of(comm, place);
    /* A rank whose question failed counts as a node of its own. */
    v[0] = place->rank == 0 || !ok;
    v[1] = place->size == size && ok ? 0 : 1;
    if (PMPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_INT, MPI_SUM, comm) != MPI_SUCCESS) return 0;
    *nodes = v[1] ? (v[0] > 1 ? v[0] : 2) : 1;
    return 1;
}

static size_t allocation_granularity(mcoll_team *team)
{
    CUmemAllocationProp prop;
    size_t gran = 0;
    uint64_t mine, all = 0;
    prop = mcoll_allocation_prop(team->device, mcoll_handle_type(team->handle_kind));
    if (mcoll_cu.cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED) != CUDA_SUCCESS)
        gran = 0;
    mine = gran;
    if (!mcoll_team_agree(team->comm, gran != 0)) return 0;
    if (!mcoll_agree_max(team->comm, &mine, &all, 1)) return 0;
    return (size_t)all;
}

/* The epochs, then the block count of the completion word (launch.h, done_count). */
#define LOCAL_WORDS_BYTES ((MCOLL_MAX_BLOCKS + 1) * sizeof(uint64_t))

/* Signal pads zeroed and epochs allocated on every rank before anyone signals. */
static int init_signals(mcoll_team *team)
{
    mcoll_symmetric *s = &team->symm;
    int ok = mcoll_cu.cuStreamCreate(&team->stream, CU_STREAM_DEFAULT) == CUDA_SUCCESS &&
             mcoll_cu.cuStreamCreate(&team->nb_stream, CU_STREAM_NON_BLOCKING) == CUDA_SUCCESS &&
             mcoll_cu.cuEventCreate(&team->order_mark, CU_EVENT_DISABLE_TIMING) == CUDA_SUCCESS;
    if (ok) ok = mcoll_cu.cuMemAlloc(&team->epochs, LOCAL_WORDS_BYTES) == CUDA_SUCCESS;
    if (!ok) team->epochs = 0;
    if (ok) ok = mcoll_cu.cuMemsetD8Async(team->epochs, 0, LOCAL_WORDS_BYTES, team->stream) == CUDA_SUCCESS;
    if (ok) ok = mcoll_cu.cuMemsetD8Async(s->base + (CUdeviceptr)team->rank * s->size, 0, MCOLL_SIGNAL_BYTES, team->stream) == CUDA_SUCCESS;
    /* The LL area too: a flag found there must have been written by the LL protocol. */
    if (ok) ok = mcoll_cu.cuMemsetD8Async(s->base + (CUdeviceptr)team->rank * s->size + MCOLL_LL_OFFSET, 0,
                                          MCOLL_DATA_OFFSET - MCOLL_LL_OFFSET, team->stream) == CUDA_SUCCESS;
    if (ok) ok = mcoll_cu.cuStreamSynchronize(team->stream) == CUDA_SUCCESS;
    if (!ok) MCOLL_WARN("initialising the signal pads failed");
    return mcoll_team_agree(team->comm, ok);
}

/* Settings that decide layout or algorithm, the same on every rank. */
typedef struct {
    int max_blocks;
    int direct_blocks;
    int store_inputs;
    size_t oneshot_max;
    int timeout_s;
    size_t ll_max;
} agreed_params;

/* The blocks of a collective kernel wait for the same blocks of every peer (barriers, flags), so
 * every rank's grid must be resident at once. Ranks sharing a GPU share its SMs: each may launch
 * at most its part of them (one block per SM, what the kernels' launch bounds guarantee), or a
 * kernel waits forever for a peer's block that cannot start. */
static int blocks_that_fit(mcoll_team *team, int wanted, const char *setting)
{
    const int sms = attribute(team, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
    const int sharers = team->sharing.ranks_per_gpu > 1 ? team->sharing.ranks_per_gpu : 1;
    const int fit = sms > 0 ? sms / sharers : wanted;
    if (fit >= wanted) return wanted;
    if (sharers > 1)
        MCOLL_INFO("%s: %d blocks per kernel instead of %d: %d ranks share a GPU of %d SMs, and every rank's blocks "
                   "must run at once", setting, fit > 0 ? fit : 1, wanted, sharers, sms);
    else
        MCOLL_INFO("%s: %d blocks per kernel instead of %d: the GPU has %d SMs, and every block must run at once",
                   setting, fit > 0 ? fit : 1, wanted, sms);
    return fit > 0 ? fit : 1;
}

/* The watch names a dead peer by its MPI_COMM_WORLD rank too, so that the plug-in can tell
 * which other communicators hold it (watchdog.h). */
static void learn_world_ranks(mcoll_team *team)
{
    int ranks[MCOLL_MAX_RANKS], i;
    MPI_Group mine, world;
    for (i = 0; i < team->watch.size; i++) {
        ranks[i] = i;
        team->watch.world[i] = MPI_UNDEFINED;
    }
    if (PMPI_Comm_group(team->comm, &mine) != MPI_SUCCESS) return;
    if (PMPI_Comm_group(MPI_COMM_WORLD, &world) == MPI_SUCCESS) {
        PMPI_Group_translate_ranks(mine, team->watch.size, ranks, world, team->watch.world);
        PMPI_Group_free(&world);
    }
    PMPI_Group_free(&mine);
}

/* MCOLL_LL_MAX=auto: the largest payload at which the one-block LL kernel still beat the launched
 * kernels, by team shape, as measured (benchmarks/NOTES.md); shapes not measured take 2 KiB. */
static size_t ll_max_auto(const mcoll_team *team)
{
    static const struct {
        int ranks, shared; /* team size; 1 when ranks share GPUs */
        size_t ll_max;
    } measured[] = {
        {2, 0, 8 << 10}, /* 2 x H200 over NVLink: 4 and 8 KiB faster with LL, 16 KiB slower (2026-11-28) */
        {4, 0, 4 << 10}, /* 4 x H200: 4 KiB faster with LL on every path, 8 KiB only through MPI (2026-11-28) */
        {2, 1, 2 << 10}, /* one H100, 2 ranks under MPS: LL slower from 4 KiB (2026-11-24) */
        {4, 1, 2 << 10}, /* the same at 4 ranks */
    };
    const int shared = team->sharing.ranks_per_gpu > 1;
    for (size_t i = 0; i < sizeof measured / sizeof measured[0]; i++)
        if (measured[i].ranks == team->size && measured[i].shared == shared) return measured[i].ll_max;
    return 2 << 10;
}

/* One allreduce gives every setting's smallest and largest value over the ranks. The smaller
 * block count and one-shot limit win (each rank's layout and algorithm must match), and the
 * longer timeout (no rank gives up on a peer that is still within its own patience). A rank
 * whose own value lost says so once at INFO. */
static int agree_params(mcoll_team *team, const mcoll_config *config, agreed_params *out)
{
    const mcoll_settings *settings = mcoll_settings_get();
    int64_t mine[6], lo[6], hi[6];
    mine[0] = blocks_that_fit(team, config->max_blocks > 0 && config->max_blocks < MCOLL_MAX_BLOCKS ? config->max_blocks
                                                                                                  : MCOLL_MAX_BLOCKS,
                              "MCOLL_MAX_BLOCKS");
    mine[1] = (int64_t)settings->oneshot_max;
    mine[2] = settings->timeout_s;
    mine[3] = (int64_t)(settings->ll_max == MCOLL_SIZE_AUTO ? ll_max_auto(team) : settings->ll_max);
    mine[4] = blocks_that_fit(team, settings->zero_copy_blocks, "MCOLL_ZERO_COPY_BLOCKS"); /* the table keeps it <= 64 */
    mine[5] = settings->store_inputs;
    if (!mcoll_agree_range(team->comm, mine, lo, hi, 6)) return 0;
    out->max_blocks = (int)lo[0];
    out->direct_blocks = (int)lo[4];
    out->store_inputs = (int)lo[5];
    out->oneshot_max = (size_t)lo[1];
    out->timeout_s = (int)hi[2];
    out->ll_max = (size_t)lo[3];
    if (mine[0] != out->max_blocks)
        MCOLL_INFO("ranks differ in MCOLL_MAX_BLOCKS: %d blocks (the smallest) instead of this rank's %lld",
                   out->max_blocks, (long long)mine[0]);
    if (mine[1] != (int64_t)out->oneshot_max)
        MCOLL_INFO("ranks differ in MCOLL_ONESHOT_MAX: %zu bytes (the smallest) instead of this rank's %lld",
                   out->oneshot_max, (long long)mine[1]);
    if (mine[3] != (int64_t)out->ll_max)
        MCOLL_INFO("ranks differ in MCOLL_LL_MAX: %zu bytes (the smallest) instead of this rank's %lld", out->ll_max,
                   (long long)mine[3]);
    if (mine[5] != out->store_inputs)
        MCOLL_INFO("ranks differ in MCOLL_STORE_INPUTS: %d (the smallest) instead of this rank's %lld",
                   out->store_inputs, (long long)mine[5]);
    if (mine[2] != out->timeout_s)
        MCOLL_INFO("ranks differ in MCOLL_TIMEOUT: %d s (the longest) instead of this rank's %lld", out->timeout_s,
                   (long long)mine[2]);
    return 1;
}

static void fill_device_view(mcoll_team *team, const agreed_params *params)
{
    mcoll_dev_team *dev = &team->dev;
    int i, sms = attribute(team, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
    memset(dev, 0, sizeof *dev);
    dev->rank = team->rank;
    dev->size = team->size;
    dev->data_bytes = team->symm.size - MCOLL_DATA_OFFSET;
    for (i = 0; i < team->size; i++) {
        CUdeviceptr at = team->symm.base + (CUdeviceptr)i * team->symm.size;
        dev->peer_signal[i] = (uint64_t *)(uintptr_t)at;
        dev->peer_data[i] = (void *)(uintptr_t)(at + MCOLL_DATA_OFFSET);
    }
    if (team->mc.active) {
        dev->mc_signal = (uint64_t *)(uintptr_t)team->mc.va;
        dev->mc_data = (void *)(uintptr_t)(team->mc.va + MCOLL_DATA_OFFSET);
    } else if (team->alias.active) {
        dev->mc_signal = (uint64_t *)(uintptr_t)team->alias.base;
        dev->mc_data = (void *)(uintptr_t)(team->alias.base + MCOLL_DATA_OFFSET);
        dev->mc_stride = team->symm.size;
    }
    dev->epochs = (uint64_t *)(uintptr_t)team->epochs;
    dev->done_count = (uint32_t *)(dev->epochs + MCOLL_MAX_BLOCKS);
    dev->num_sms = sms > 0 ? sms : 1;
    dev->max_blocks = params->max_blocks;
    dev->direct_blocks = params->direct_blocks;
    dev->store_inputs = params->store_inputs;
    dev->poll_pause_ns = (unsigned)mcoll_settings_get()->poll_pause_ns; /* timing only: ranks may differ */
    dev->oneshot_max = params->oneshot_max;
    dev->ll_max = params->ll_max < mcoll_ll_capacity(team->size) ? params->ll_max : mcoll_ll_capacity(team->size);
    dev->abort_flag = (const volatile uint32_t *)(uintptr_t)team->watch.flag_device;
    dev->pdl = mcoll_settings_get()->pdl && mcoll_launch_pdl_available(); /* timing only: ranks may differ */
}

mcoll_result mcoll_team_create(MPI_Comm comm, const mcoll_config *config, mcoll_team **out)
{
    mcoll_team *team;
    agreed_params params;
    mcoll_node_place place;
    size_t granularity, mc_granularity = 0;
    uint64_t mine, bytes = 0;
    int size, rank, ok, nvls, nodes = 1;
    mcoll_result rc;

    *out = NULL;
    PMPI_Comm_size(comm, &size);
    PMPI_Comm_rank(comm, &rank);
    if (size > MCOLL_MAX_RANKS) {
        MCOLL_INFO("no team: more ranks than MCOLL_MAX_RANKS");
        return MCOLL_ERR_UNSUPPORTED;
    }
    if (!learn_nodes(comm, size, &place, &nodes)) return MCOLL_ERR_MPI;
    team = calloc(1, sizeof *team);
    ok = team != NULL && mcoll_driver_available() && mcoll_cu.cuMemCreate && mcoll_cu.cuMemMap &&
         mcoll_cu.cuMemExportToShareableHandle && mcoll_cu.cuMemImportFromShareableHandle;
    if (!mcoll_team_agree(comm, ok)) {
        free(team);
        MCOLL_INFO("no team: no GPU or driver without virtual memory management on some rank");
        return MCOLL_ERR_NO_DEVICE;
    }
    if (PMPI_Comm_dup(comm, &team->comm) != MPI_SUCCESS) {
        free(team);
        return MCOLL_ERR_MPI;
    }
    team->rank = rank;
    team->size = size;
    team->node = place;
    team->nodes = nodes;
    team->engine = MCOLL_ENGINE_UNICAST;

    ok = pick_device(team);
    if (!ok) MCOLL_INFO("no GPU for this rank (no CUDA device visible, or its context could not be made)");
    if (!mcoll_team_agree(team->comm, ok)) {
        if (rank == 0) MCOLL_INFO("no team: some rank has no usable GPU; device buffers are staged");
        goto fail;
    }
    mcoll_locality_log(team->device);
    if (nodes > 1 && !one_clique(team)) {
        mcoll_team_destroy(team);
        return MCOLL_ERR_UNSUPPORTED;
    }
    rc = mcoll_gpu_sharing_learn(team);
    if (rc != MCOLL_SUCCESS) {
        mcoll_team_destroy(team);
        return rc;
    }
    if (!agree_params(team, config, &params)) goto fail;
    /* Watched from here on (every peer's process is known): a peer that dies in the rest of
     * team creation leaves the others in host agreements that only the watchdog can end. */
    team->watch.rank = rank;
    team->watch.size = size;
    team->watch.timeout_s = params.timeout_s;
    learn_world_ranks(team);
    if (!mcoll_team_agree(team->comm, mcoll_watch_start(&team->watch) == MCOLL_SUCCESS)) goto fail;
    rc = choose_handle_kind(team);
    if (rc != MCOLL_SUCCESS) {
        mcoll_team_destroy(team);
        return rc;
    }
    nvls = mcoll_multicast_wanted(team, config, &mc_granularity);
    granularity = allocation_granularity(team);
    if (!granularity) goto fail;
    if (mc_granularity > granularity) granularity = mc_granularity;
    /* Every rank takes the smallest size any rank can afford, in whole granules. */
    mine = memory_available(mcoll_round_up(config->buffer_size, granularity), team->sharing.sharers) / granularity *
           granularity;
    if (!mcoll_agree_min(team->comm, &mine, &bytes, 1)) goto fail;
    if (bytes < MCOLL_DATA_OFFSET + (1u << 20)) {
        if (rank == 0)
            MCOLL_WARN("no GPU engine for this communicator: MCOLL_MEMORY_LIMIT (%zu bytes per GPU, shared by up to %d "
                       "ranks) is used up by other communicators; free some, or raise the limit",
                       mcoll_settings_get()->memory_limit, team->sharing.ranks_per_gpu);
        mcoll_team_destroy(team);
        return MCOLL_ERR_NO_MEMORY;
    }
    team->granularity = granularity;
    if (mcoll_symmetric_create(team, &team->symm, (size_t)bytes, granularity) != MCOLL_SUCCESS) goto fail;
    memory_account(team->symm.size, 1);
    if (nvls && mcoll_multicast_setup(team) == MCOLL_SUCCESS) team->engine = MCOLL_ENGINE_NVLS;
    if (nvls && config->nvls == MCOLL_ON && team->engine != MCOLL_ENGINE_NVLS && rank == 0)
        MCOLL_WARN("multicast requested but not in use (%s)", team->nvls_reason);
    if (team->engine != MCOLL_ENGINE_NVLS && mcoll_team_agree(team->comm, mcoll_alias_wanted()) &&
        mcoll_alias_setup(team) == MCOLL_SUCCESS) {
        size_t used = strlen(team->nvls_reason);
        snprintf(team->nvls_reason + used, sizeof team->nvls_reason - used, "; tests: multimem emulated on aliases");
    }
    if (!init_signals(team)) goto fail;
    fill_device_view(team, &params);
    mcoll_kernels_load();
    MCOLL_INFO("team of %d ranks on %d GPUs (up to %d per GPU%s) on %d node%s, rank %d: engine %s, multicast %s", size,
               team->sharing.gpus, team->sharing.ranks_per_gpu, team->sharing.ranks_per_gpu > 1 ? ", MPS" : "",
               nodes, nodes > 1 ? "s of one NVLink clique" : "", rank,
               team->engine == MCOLL_ENGINE_NVLS ? "nvls" : "unicast", team->nvls_reason);
    *out = team;
    return MCOLL_SUCCESS;

fail:
    mcoll_team_destroy(team);
    return MCOLL_ERR_CUDA;
}

void mcoll_team_destroy(mcoll_team *team)
{
    if (!team) return;
    /* Kernels of this team may still be running on streams the caller owns. */
    if (team->symm.size) CU_WARN(cuCtxSynchronize());
    mcoll_alias_destroy(team);
    mcoll_multicast_unbind(team);
    if (team->symm.size) memory_account(team->symm.size, 0);
    mcoll_symmetric_destroy(team, &team->symm);
    mcoll_multicast_release(team);
    mcoll_watch_stop(&team->watch);
    if (team->epochs) CU_WARN(cuMemFree(team->epochs));
    if (team->stream) CU_WARN(cuStreamDestroy(team->stream));
    if (team->nb_stream) CU_WARN(cuStreamDestroy(team->nb_stream));
    if (team->order_mark) CU_WARN(cuEventDestroy(team->order_mark));
    if (team->context) {
        /* Leave a thread that had no context as it was found: not holding one whose last
         * reference may go now. */
        CUcontext current = NULL;
        if (team->made_current && mcoll_cu.cuCtxGetCurrent(&current) == CUDA_SUCCESS && current == team->context)
            CU_WARN(cuCtxSetCurrent(NULL));
        CU_WARN(cuDevicePrimaryCtxRelease(team->cu_device));
    }
    if (team->comm != MPI_COMM_NULL && team->comm) PMPI_Comm_free(&team->comm);
    free(team);
}
