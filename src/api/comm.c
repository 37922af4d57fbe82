/* The native API: communicators (the collectives are in collectives.c and run.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "checks.h"
#include "config.h"
#include "comm_internal.h"

mcoll_result mcoll_comm_create(MPI_Comm comm, const mcoll_config *config, mcoll_comm **out)
{
    mcoll_comm *c;
    mcoll_result rc;
    int flag = 0;

    if (!out || comm == MPI_COMM_NULL) return MCOLL_ERR_INVALID_ARG;
    *out = NULL;
    if (PMPI_Initialized(&flag) != MPI_SUCCESS || !flag) return MCOLL_ERR_MPI;
    /* Team creation is collective: it would wait for a process that has exited for ever. */
    if (mcoll_watch_lost_member(comm, &flag)) return MCOLL_ERR_ABORTED;
    mcoll_driver_load();
    c = calloc(1, sizeof *c);
    if (!c) return MCOLL_ERR_NO_MEMORY;
    if (config) c->config = *config;
    else mcoll_config_init(&c->config);
    if (c->config.buffer_size < (1u << 20)) c->config.buffer_size = 1u << 20;
    if (c->config.engine == MCOLL_ENGINE_STAGED) {
        free(c);
        return MCOLL_ERR_UNSUPPORTED;
    }
    rc = mcoll_team_create(comm, &c->config, &c->team);
    if (rc != MCOLL_SUCCESS) {
        free(c);
        return rc;
    }
    *out = c;
    return MCOLL_SUCCESS;
}

mcoll_result mcoll_comm_destroy(mcoll_comm *comm)
{
    if (!comm) return MCOLL_ERR_INVALID_ARG;
    /* Launches still queued for this team go first (async.h). */
    mcoll_async_wait_lane(&comm->lane);
    /* Nobody may still read this rank's memory when it is unmapped. A team whose peer is gone
     * skips the barrier, which would never complete. */
    mcoll_resident_free(comm);
    if (comm->team->symm.size) CU_WARN(cuCtxSynchronize());
    mcoll_word_free(&comm->word); /* no kernel of the team writes it any more */
    if (!mcoll_watch_aborted(&comm->team->watch)) PMPI_Barrier(comm->team->comm);
    mcoll_windows_destroy(comm->team, &comm->windows);
    mcoll_reg_cache_flush();
    mcoll_team_destroy(comm->team);
    free(comm);
    return MCOLL_SUCCESS;
}

mcoll_result mcoll_comm_info(const mcoll_comm *comm, mcoll_comm_info_t *info)
{
    const mcoll_team *t;
    if (!comm || !info) return MCOLL_ERR_INVALID_ARG;
    t = comm->team;
    memset(info, 0, sizeof *info);
    info->engine = t->engine;
    info->team_size = t->size;
    info->rank = t->rank;
    info->device = t->device;
    info->symmetric_bytes = t->symm.size;
    info->peer_mapped_bytes = t->symm.size * (size_t)(t->size - 1);
    snprintf(info->handle_type, sizeof info->handle_type, "%s", t->handle_kind == MCOLL_HANDLE_FABRIC ? "fabric" : "posix-fd");
    snprintf(info->nvls_reason, sizeof info->nvls_reason, "%s", t->nvls_reason);
    info->gpus = t->sharing.gpus;
    info->ranks_per_gpu = t->sharing.ranks_per_gpu;
    info->gpu_sharers = t->sharing.sharers;
    info->mps = t->sharing.mps;
    info->zero_copy_calls = comm->zero_copy_calls;
    info->oneshot_max = t->dev.oneshot_max;
    info->ll_max = t->dev.ll_max;
    info->max_blocks = t->dev.max_blocks;
    /* The wide grid is the larger of the two limits (collectives/schedule.cuh, layout_rows). */
    info->zero_copy_blocks = t->dev.direct_blocks > t->dev.max_blocks ? t->dev.direct_blocks : t->dev.max_blocks;
    info->store_inputs = t->dev.store_inputs;
    info->poll_pause_ns = t->dev.poll_pause_ns;
    info->pdl = t->dev.pdl;
    return MCOLL_SUCCESS;
}

mcoll_result mcoll_comm_describe(const mcoll_comm *comm, char *buf, size_t len)
{
    mcoll_comm_info_t info;
    mcoll_result rc = mcoll_comm_info(comm, &info);
    if (rc != MCOLL_SUCCESS || !buf) return rc ? rc : MCOLL_ERR_INVALID_ARG;
    snprintf(buf, len,
             "engine=%s ranks=%d gpus=%d ranks/gpu=%d mps=%s device=%d symmetric=%zu MiB handles=%s blocks=%d/%d "
             "store_inputs=%s poll_pause=%u ns pdl=%s multicast=%s",
             info.engine == MCOLL_ENGINE_NVLS ? "nvls" : "unicast", info.team_size, info.gpus, info.ranks_per_gpu,
             info.mps ? "on" : "off", info.device, info.symmetric_bytes >> 20, info.handle_type, info.max_blocks,
             info.zero_copy_blocks, info.store_inputs ? "on" : "off", info.poll_pause_ns, info.pdl ? "on" : "off",
             info.nvls_reason);
    return MCOLL_SUCCESS;
}
