/* mcoll_mem_alloc / mcoll_mem_free: symmetric memory for the user, made like the team's staging
 * buffer (symmetric.c): a cuMemCreate allocation per rank, every rank's mapped by every rank in
 * one reservation. It is not bound to the multicast object: collectives on it run zero-copy on
 * peer loads and stores, and a team whose engine is multicast keeps its staged path. */
#include <stdlib.h>
#include "agree.h"
#include "checks.h"
#include "window.h"

mcoll_result mcoll_window_alloc(mcoll_team *team, mcoll_windows *windows, size_t bytes, void **ptr)
{
    mcoll_window *w = mcoll_window_new(windows, MCOLL_WINDOW_ALLOCATED);
    int64_t mine = (int64_t)bytes, lo = 0, hi = 0;
    mcoll_result rc = w ? MCOLL_SUCCESS : MCOLL_ERR_NO_MEMORY;
    int q;

    *ptr = NULL;
    /* The same size everywhere, so that the ranks' parts line up offset for offset. */
    if (!mcoll_agree_range(team->comm, &mine, &lo, &hi, 1)) rc = MCOLL_ERR_MPI;
    else if (lo != hi || !bytes) {
        if (team->rank == 0)
            MCOLL_WARN("mcoll_mem_alloc: every rank must ask for the same size, not 0 (%lld to %lld bytes)",
                       (long long)lo, (long long)hi);
        rc = MCOLL_ERR_INVALID_ARG;
    }
    rc = mcoll_window_agree(team, rc);
    if (rc == MCOLL_SUCCESS && mcoll_symmetric_create(team, &w->memory, bytes, team->granularity) != MCOLL_SUCCESS)
        rc = MCOLL_ERR_CUDA; /* agreed inside: every rank fails alike */
    if (rc != MCOLL_SUCCESS) {
        free(w);
        return rc;
    }
    /* The whole allocation is mapped, so the usable size is its rounded size: a kernel may
     * then load a buffer's last 16-byte pack whole. */
    w->bytes = w->memory.size;
    for (q = 0; q < team->size; q++) w->peer[q] = (char *)(uintptr_t)(w->memory.base + (CUdeviceptr)q * w->memory.size);
    w->base = w->peer[team->rank];
    mcoll_window_link(windows, w);
    *ptr = w->base;
    MCOLL_INFO("mcoll_mem_alloc: %zu bytes at %p (window %llu)", bytes, *ptr, (unsigned long long)w->id);
    return MCOLL_SUCCESS;
}

mcoll_result mcoll_window_free(mcoll_team *team, mcoll_windows *windows, void *ptr)
{
    mcoll_window *w = mcoll_window_by_base(windows, MCOLL_WINDOW_ALLOCATED, ptr);
    mcoll_result rc = w ? MCOLL_SUCCESS : MCOLL_ERR_INVALID_ARG;
    if (!w)
        MCOLL_WARN("mcoll_mem_free: %p is not memory mcoll_mem_alloc gave on this communicator (freed twice?)", ptr);
    rc = mcoll_window_agree(team, rc);
    if (rc != MCOLL_SUCCESS) return rc;
    mcoll_window_quiesce(team);
    mcoll_window_unlink(windows, w);
    mcoll_symmetric_destroy(team, &w->memory);
    free(w);
    return MCOLL_SUCCESS;
}
