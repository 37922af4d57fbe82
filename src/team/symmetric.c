/* Symmetric memory: one cuMemCreate allocation per rank, exported to and mapped by every rank
 * of the team. One reservation holds all of them: rank i's memory at base + i * size. The
 * team's staging buffer is one; mcoll_mem_alloc makes more (src/mem/alloc.c). */
#include <string.h>
#include "agree.h"
#include "checks.h"
#include "team.h"
#include "vmm.h"

/* Map `handle` at slot `i` and make it readable and writable from this rank's GPU. */
static int map_slot(mcoll_team *team, mcoll_symmetric *s, int i, CUmemGenericAllocationHandle handle)
{
    CUdeviceptr at = s->base + (CUdeviceptr)i * s->size;
    CUresult rc = mcoll_cu.cuMemMap(at, s->size, 0, handle, 0);
    if (rc != CUDA_SUCCESS) {
        MCOLL_WARN("mapping the symmetric memory of local rank %d failed: %s", i, mcoll_cu_errname(rc));
        return 0;
    }
    s->mapped[i] = 1;
    rc = mcoll_set_access(team->device, at, s->size);
    if (rc != CUDA_SUCCESS) {
        MCOLL_WARN("access to the symmetric memory of local rank %d failed: %s (no NVLink/P2P path between the GPUs?)",
                   i, mcoll_cu_errname(rc));
        return 0;
    }
    return 1;
}

mcoll_result mcoll_symmetric_create(mcoll_team *team, mcoll_symmetric *s, size_t bytes, size_t granularity)
{
    CUmemAllocationProp prop = mcoll_allocation_prop(team->device, mcoll_handle_type(team->handle_kind));
    int ok = 1, i;
    CUresult rc;

    memset(s, 0, sizeof *s);
    s->size = mcoll_round_up(bytes, granularity);
    rc = mcoll_cu.cuMemCreate(&s->local, s->size, &prop, 0);
    if (rc != CUDA_SUCCESS) {
        MCOLL_WARN("cuMemCreate of %zu bytes of symmetric memory failed: %s (MCOLL_BUFFER_SIZE sets the size)",
                   s->size, mcoll_cu_errname(rc));
        ok = 0;
    }
    s->have_local = ok;
    if (ok) {
        rc = mcoll_cu.cuMemAddressReserve(&s->base, s->size * (size_t)team->size, granularity, 0, 0);
        if (rc != CUDA_SUCCESS)
            MCOLL_WARN("cuMemAddressReserve of %zu bytes failed: %s", s->size * (size_t)team->size, mcoll_cu_errname(rc));
        else
            s->reserved = s->size * (size_t)team->size;
        ok = rc == CUDA_SUCCESS;
    }
    if (ok) ok = map_slot(team, s, team->rank, s->local);
    if (!mcoll_team_agree(team->comm, ok)) goto fail;

    if (mcoll_handle_allgather(team, 1, s->local, 0, s->peers, s->imported) != MCOLL_SUCCESS) goto fail;
    s->peers[team->rank] = s->local;
    for (i = 0; i < team->size && ok; i++)
        if (i != team->rank) ok = map_slot(team, s, i, s->peers[i]);
    if (!mcoll_team_agree(team->comm, ok)) goto fail;
    MCOLL_INFO("symmetric memory: %zu bytes per GPU, %d GPUs mapped, %s handles", s->size, team->size,
               team->handle_kind == MCOLL_HANDLE_FABRIC ? "fabric" : "POSIX fd");
    return MCOLL_SUCCESS;

fail:
    mcoll_symmetric_destroy(team, s);
    return MCOLL_ERR_CUDA;
}

/* Undoes whatever part of create succeeded, in reverse order. */
void mcoll_symmetric_destroy(mcoll_team *team, mcoll_symmetric *s)
{
    int i;
    for (i = 0; i < team->size; i++) {
        if (s->mapped[i]) CU_WARN(cuMemUnmap(s->base + (CUdeviceptr)i * s->size, s->size));
        if (s->imported[i] && i != team->rank) CU_WARN(cuMemRelease(s->peers[i]));
    }
    if (s->reserved) CU_WARN(cuMemAddressFree(s->base, s->reserved));
    if (s->have_local) CU_WARN(cuMemRelease(s->local));
    memset(s, 0, sizeof *s);
}
