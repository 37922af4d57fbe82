/* Ranks that share a GPU. Every rank's device UUID and MPS state are allgathered once at team
 * creation, so every rank computes the same answer. Under MPS the ranks of one GPU run their
 * kernels side by side and the engines work as across GPUs (peers read each other's memory at
 * HBM speed). Without MPS each process's kernels get the GPU in turns, so a kernel that waits
 * for another process would spin through whole time slices: such a team is not built and the
 * communicator is staged. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "agree.h"
#include "checks.h"
#include "team.h"

/* What one allgather learns of each rank: its GPU, whether MPS serves it, and its process and
 * node (for the watchdog, which checks that the peers of its own node are alive). */
typedef struct {
    CUuuid uuid;
    int mps;
    pid_t pid;
    int node;
} gpu_identity;

/* "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", as nvidia-smi -L prints it. */
static void format_uuid(const CUuuid *u, char *text, size_t len)
{
    const unsigned char *b = (const unsigned char *)u->bytes;
    snprintf(text, len, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1], b[2],
             b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
}

static int same_gpu(const gpu_identity *a, const gpu_identity *b)
{
    return memcmp(a->uuid.bytes, b->uuid.bytes, sizeof a->uuid.bytes) == 0;
}

/* One INFO line naming the ranks that share the GPU of rank `first` without MPS. */
static void report_unshared(const mcoll_team *team, const gpu_identity *all, int first)
{
    char ranks[128] = "", gpu[48];
    size_t used = 0;
    int i;
    for (i = first; i < team->size && used < sizeof ranks; i++)
        if (same_gpu(&all[i], &all[first]))
            used += (size_t)snprintf(ranks + used, sizeof ranks - used, "%s%d", used ? "," : "", i);
    format_uuid(&all[first].uuid, gpu, sizeof gpu);
    MCOLL_INFO("ranks %s share GPU %s without MPS: GPU engines off for this communicator (a kernel waiting for "
               "another process would spin through whole time slices); device buffers are staged. Start the "
               "MPS control daemon (nvidia-cuda-mps-control -d) to use the engines",
               ranks, gpu);
}

mcoll_result mcoll_gpu_sharing_learn(mcoll_team *team)
{
    mcoll_gpu_sharing *s = &team->sharing;
    gpu_identity mine, *all;
    int i, j, ok, unshared = -1;

    memset(&mine, 0, sizeof mine);
    mine.pid = getpid();
    mine.node = team->node.leader;
    ok = mcoll_cu.cuDeviceGetUuid(&mine.uuid, team->cu_device) == CUDA_SUCCESS &&
         mcoll_cu.cuDeviceGetAttribute(&mine.mps, CU_DEVICE_ATTRIBUTE_MPS_ENABLED, team->cu_device) == CUDA_SUCCESS;
    all = calloc((size_t)team->size, sizeof *all);
    if (!mcoll_team_agree(team->comm, ok && all)) {
        free(all);
        return MCOLL_ERR_CUDA;
    }
    if (PMPI_Allgather(&mine, (int)sizeof mine, MPI_BYTE, all, (int)sizeof mine, MPI_BYTE, team->comm) != MPI_SUCCESS) {
        free(all);
        return MCOLL_ERR_MPI;
    }
    memset(s, 0, sizeof *s);
    s->mps = mine.mps != 0;
    for (i = 0; i < team->size; i++) {
        int on_gpu = 0, first = i, without_mps = 0;
        for (j = 0; j < team->size; j++) {
            if (!same_gpu(&all[i], &all[j])) continue;
            on_gpu++;
            if (j < first) first = j;
            without_mps |= !all[j].mps;
        }
        if (first == i) s->gpus++;
        if (on_gpu > s->ranks_per_gpu) s->ranks_per_gpu = on_gpu;
        if (i == team->rank) s->sharers = on_gpu;
        /* A process id means nothing on another node: those peers are not watched (0). */
        team->watch.pids[i] = all[i].node == mine.node ? all[i].pid : 0;
        if (on_gpu > 1 && without_mps && unshared < 0) unshared = first;
    }
    if (unshared >= 0 && team->rank == 0) report_unshared(team, all, unshared);
    free(all);
    return unshared < 0 ? MCOLL_SUCCESS : MCOLL_ERR_UNSUPPORTED;
}
