/* mcoll_mem_register / mcoll_mem_deregister: a user's device buffer on every rank becomes a
 * window. Every rank describes its buffer (user_buffer.c), the ranks agree that all can be
 * registered, exchange the descriptions (and, for cuMemCreate memory, the allocation handles,
 * as the team exchanges its own), and map each peer's buffer through the registration cache. */
#include <stdlib.h>
#include <string.h>
#include "checks.h"
#include "vmm.h"
#include "window.h"

/* This rank's description and, for VMM memory, a retained handle of its allocation. */
static mcoll_result describe_mine(mcoll_team *team, void *ptr, size_t bytes, mcoll_user_buffer *mine,
                                  CUmemGenericAllocationHandle *retained, int *have_retained)
{
    char why[256] = "";
    mcoll_result rc;
    *have_retained = 0;
    if (!ptr || !bytes) {
        MCOLL_WARN("mcoll_mem_register: nothing to register (%p, %zu bytes)", ptr, bytes);
        return MCOLL_ERR_INVALID_ARG;
    }
    rc = mcoll_user_buffer_describe(team->device, mcoll_handle_type(team->handle_kind), team->nodes, ptr, bytes, mine,
                                    why, sizeof why);
    if (rc != MCOLL_SUCCESS) {
        if (*why) MCOLL_WARN("mcoll_mem_register: %s", why);
        return rc;
    }
    return mcoll_user_buffer_share(mine, ptr, retained, have_retained);
}

/* Map every peer's buffer (through the cache) into w. On failure w holds what it got. */
static mcoll_result map_peers(mcoll_team *team, mcoll_window *w, const mcoll_user_buffer *all,
                              CUmemGenericAllocationHandle *imported, const int *have_imported)
{
    mcoll_result rc = MCOLL_SUCCESS;
    int q;
    for (q = 0; q < team->size; q++) {
        if (q == team->rank || !all[q].kind) continue;
        if (rc == MCOLL_SUCCESS) {
            rc = mcoll_reg_cache_acquire(team->device, &all[q], have_imported[q] ? imported[q] : 0, &w->maps[q]);
            if (rc == MCOLL_SUCCESS) w->peer[q] = w->maps[q]->ptr + all[q].offset;
        } else if (have_imported[q]) {
            CU_WARN(cuMemRelease(imported[q]));
        }
    }
    return rc;
}

mcoll_result mcoll_window_map(mcoll_team *team, mcoll_window *w, const mcoll_user_buffer *all,
                              CUmemGenericAllocationHandle retained, int have_retained)
{
    CUmemGenericAllocationHandle imported[MCOLL_MAX_RANKS];
    int have_imported[MCOLL_MAX_RANKS] = {0}, any_vmm = 0, q;
    mcoll_result rc = MCOLL_SUCCESS;
    for (q = 0; q < team->size; q++) any_vmm |= all[q].kind == MCOLL_USER_VMM;
    /* Only when some rank has VMM memory: every rank knows it from the records. */
    if (any_vmm && mcoll_handle_allgather(team, have_retained, retained, 0, imported, have_imported) != MCOLL_SUCCESS)
        rc = MCOLL_ERR_CUDA;
    if (have_retained) CU_WARN(cuMemRelease(retained)); /* exported (or not): the mapping keeps the memory */
    return rc == MCOLL_SUCCESS ? map_peers(team, w, all, imported, have_imported) : rc;
}

mcoll_result mcoll_window_register(mcoll_team *team, mcoll_windows *windows, void *ptr, size_t bytes, uint64_t *id)
{
    mcoll_window *w = mcoll_window_new(windows, MCOLL_WINDOW_REGISTERED);
    mcoll_user_buffer mine, *all = calloc((size_t)team->size, sizeof *all);
    CUmemGenericAllocationHandle retained = 0;
    int have_retained = 0, q;
    mcoll_result rc = w && all ? MCOLL_SUCCESS : MCOLL_ERR_NO_MEMORY;

    *id = 0;
    memset(&mine, 0, sizeof mine);
    if (rc == MCOLL_SUCCESS) rc = describe_mine(team, ptr, bytes, &mine, &retained, &have_retained);
    rc = mcoll_window_agree(team, rc);
    if (rc == MCOLL_SUCCESS &&
        PMPI_Allgather(&mine, sizeof mine, MPI_BYTE, all, sizeof mine, MPI_BYTE, team->comm) != MPI_SUCCESS)
        rc = MCOLL_ERR_MPI;
    if (rc == MCOLL_SUCCESS) rc = mcoll_window_agree(team, mcoll_window_map(team, w, all, retained, have_retained));
    else if (have_retained) CU_WARN(cuMemRelease(retained));
    if (rc != MCOLL_SUCCESS) {
        if (w) mcoll_window_destroy(team, w);
        free(all);
        return rc;
    }
    w->base = ptr;
    w->peer[team->rank] = ptr;
    w->bytes = bytes;
    for (q = 0; q < team->size; q++)
        if (all[q].bytes < w->bytes) w->bytes = all[q].bytes;
    free(all);
    mcoll_window_link(windows, w);
    *id = w->id;
    MCOLL_INFO("mcoll_mem_register: %zu bytes at %p (%s memory), window %llu", bytes, ptr,
               mine.kind == MCOLL_USER_IPC ? "cudaMalloc" : "cuMemCreate", (unsigned long long)w->id);
    return MCOLL_SUCCESS;
}

mcoll_result mcoll_window_deregister(mcoll_team *team, mcoll_windows *windows, uint64_t id)
{
    mcoll_window *w = mcoll_window_by_id(windows, MCOLL_WINDOW_REGISTERED, id);
    mcoll_result rc = w ? MCOLL_SUCCESS : MCOLL_ERR_INVALID_ARG;
    if (!w) MCOLL_WARN("mcoll_mem_deregister: %llu is not a registration of this communicator (deregistered twice?)",
                       (unsigned long long)id);
    rc = mcoll_window_agree(team, rc);
    if (rc != MCOLL_SUCCESS) return rc;
    mcoll_window_quiesce(team);
    mcoll_window_unlink(windows, w);
    mcoll_window_destroy(team, w);
    return MCOLL_SUCCESS;
}
