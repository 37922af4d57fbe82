/* Mapping a peer's registered buffer: CUDA IPC for cudaMalloc memory; for cuMemCreate memory,
 * the imported allocation handle mapped into a reservation of the mapping's size, readable and
 * writable from this GPU. */
#include "checks.h"
#include "reg_cache.h"
#include "vmm.h"

static mcoll_result open_ipc(mcoll_peer_map *m)
{
    CUdeviceptr ptr = 0;
    if (!mcoll_cu.cuIpcOpenMemHandle) return MCOLL_ERR_UNSUPPORTED;
    CU_RETURN(cuIpcOpenMemHandle(&ptr, m->key.ipc, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS));
    m->ptr = (char *)(uintptr_t)ptr;
    return MCOLL_SUCCESS;
}

static mcoll_result open_vmm(mcoll_peer_map *m, CUmemGenericAllocationHandle imported)
{
    mcoll_result rc = MCOLL_SUCCESS;
    CUresult cu;
    /* The owner's mapping is a multiple of its granularity, a power of two: its lowest set bit
     * is an alignment the mapping accepts. */
    const size_t align = (size_t)(m->key.size & (~m->key.size + 1));
    m->handle = imported;
    CU_GOTO(cuMemAddressReserve(&m->va, m->key.size, align, 0, 0), release);
    CU_GOTO(cuMemMap(m->va, m->key.size, 0, imported, 0), free_range);
    cu = mcoll_set_access(m->device, m->va, m->key.size);
    if (cu != CUDA_SUCCESS) {
        MCOLL_WARN("access to a peer's registered memory failed: %s (no NVLink/P2P path between the GPUs?)",
                   mcoll_cu_errname(cu));
        rc = MCOLL_ERR_CUDA;
        goto unmap;
    }
    m->ptr = (char *)(uintptr_t)m->va;
    return MCOLL_SUCCESS;
unmap:
    CU_WARN(cuMemUnmap(m->va, m->key.size));
free_range:
    CU_WARN(cuMemAddressFree(m->va, m->key.size));
release:
    CU_WARN(cuMemRelease(imported));
    m->va = 0;
    return rc;
}

mcoll_result mcoll_peer_map_open(mcoll_peer_map *m, CUmemGenericAllocationHandle imported)
{
    return m->key.kind == MCOLL_USER_IPC ? open_ipc(m) : open_vmm(m, imported);
}

void mcoll_peer_map_close(mcoll_peer_map *m)
{
    if (!m->ptr) return;
    if (m->key.kind == MCOLL_USER_IPC) {
        CU_WARN(cuIpcCloseMemHandle((CUdeviceptr)(uintptr_t)m->ptr));
    } else {
        CU_WARN(cuMemUnmap(m->va, m->key.size));
        CU_WARN(cuMemAddressFree(m->va, m->key.size));
        CU_WARN(cuMemRelease(m->handle));
    }
    m->ptr = NULL;
}
