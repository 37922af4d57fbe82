/* Virtual memory management: cuMemCreate / cuMemRelease, address reservations (mmap PROT_NONE),
 * cuMemMap (the object's memfd mapped MAP_SHARED|MAP_FIXED into the reservation, still
 * PROT_NONE), cuMemSetAccess (mprotect) and cuMemUnmap (back to a PROT_NONE reservation). The
 * range stays inaccessible until cuMemSetAccess, so a CPU access before it faults, as a GPU
 * access would. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include "model.h"

static const char *kind_name(const model_object_header *header)
{
    return header->kind == MODEL_KIND_MULTICAST ? "multicast object" : "allocation";
}

model_mapping *model_find_mapping(uintptr_t va)
{
    for (model_node *n = model.mappings; n; n = n->next) {
        model_mapping *m = (model_mapping *)n;
        if (va >= m->va && va - m->va < m->size) return m;
    }
    return NULL;
}

model_reservation *model_find_reservation(uintptr_t va, size_t size)
{
    for (model_node *n = model.reservations; n; n = n->next) {
        model_reservation *r = (model_reservation *)n;
        if (va >= r->base && va - r->base <= r->size && size <= r->size - (va - r->base)) return r;
    }
    return NULL;
}

static int mappings_overlapping(uintptr_t va, size_t size)
{
    int n = 0;
    for (model_node *node = model.mappings; node; node = node->next) {
        model_mapping *m = (model_mapping *)node;
        if (m->va < va + size && va < m->va + m->size) n++;
    }
    return n;
}

/* Checks shared by cuMemCreate and cuMemGetAllocationGranularity; CUDA_SUCCESS when prop is
 * valid, else the violation already recorded. */
static CUresult check_allocation_prop(model_call *call, const CUmemAllocationProp *prop)
{
    if (!prop) return model_violation(call, CUDA_ERROR_INVALID_VALUE, "prop is NULL");
    if (prop->type != CU_MEM_ALLOCATION_TYPE_PINNED)
        return model_violation(call, CUDA_ERROR_INVALID_VALUE,
                               "prop->type must be CU_MEM_ALLOCATION_TYPE_PINNED");
    if (prop->location.type != CU_MEM_LOCATION_TYPE_DEVICE)
        return model_violation(call, CUDA_ERROR_INVALID_VALUE,
                               "prop->location.type must be CU_MEM_LOCATION_TYPE_DEVICE (host "
                               "locations are not modelled)");
    if (!model_valid_device(prop->location.id))
        return model_violation(call, CUDA_ERROR_INVALID_DEVICE, "prop->location.id %d is not a device",
                               prop->location.id);
    if (!model_attribute(prop->location.id, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED))
        return model_violation(call, CUDA_ERROR_NOT_SUPPORTED,
                               "device %d reports VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED = 0",
                               prop->location.id);
    if (prop->win32HandleMetaData)
        return model_violation(call, CUDA_ERROR_INVALID_VALUE,
                               "prop->win32HandleMetaData must be NULL on Linux");
    return CUDA_SUCCESS;
}

CUresult model_cuMemCreate(CUmemGenericAllocationHandle *handle, size_t size,
                           const CUmemAllocationProp *prop, unsigned long long flags)
{
    model_call call;
    CUresult rc = model_enter(&call, MODEL_cuMemCreate, 1,
                              "size=%zu, device=%d, handleTypes=%#x, flags=%llu", size,
                              prop ? prop->location.id : -1,
                              prop ? (unsigned)prop->requestedHandleTypes : 0u, flags);
    if (rc != CUDA_SUCCESS) return rc;
    if (!handle) return model_violation(&call, CUDA_ERROR_INVALID_VALUE, "handle is NULL");
    if (flags != 0) return model_violation(&call, CUDA_ERROR_INVALID_VALUE, "flags must be 0");
    rc = check_allocation_prop(&call, prop);
    if (rc != CUDA_SUCCESS) return rc;
    int device = prop->location.id;
    unsigned long long types = (unsigned long long)prop->requestedHandleTypes;
    if (types & ~(unsigned long long)(CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR |
                                      CU_MEM_HANDLE_TYPE_FABRIC))
        return model_violation(&call, CUDA_ERROR_INVALID_VALUE,
                               "requestedHandleTypes may hold only POSIX_FILE_DESCRIPTOR and "
                               "FABRIC on Linux");
    if ((types & CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) &&
        !model_attribute(device, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED))
        return model_violation(&call, CUDA_ERROR_NOT_SUPPORTED,
                               "POSIX fd handles requested but device %d reports "
                               "HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED = 0", device);
    if ((types & CU_MEM_HANDLE_TYPE_FABRIC) &&
        !model_attribute(device, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED))
        return model_violation(&call, CUDA_ERROR_NOT_SUPPORTED,
                               "fabric handles requested but device %d reports "
                               "HANDLE_TYPE_FABRIC_SUPPORTED = 0", device);
    size_t granularity = model_alloc_granularity(device, 0);
    if (size == 0 || size % granularity != 0)
        return model_violation(&call, CUDA_ERROR_INVALID_VALUE,
                               "size must be a non-zero multiple of the MINIMUM allocation "
                               "granularity %zu of device %d", granularity, device);
    if (model_injecting(&call)) return model_leave(&call, call.inject);
    model_handle *h;
    rc = model_object_create(MODEL_KIND_ALLOCATION, size, device, types, 0, &h);
    if (rc == CUDA_SUCCESS) *handle = h->value;
    return model_leave(&call, rc);
}

CUresult model_cuMemRelease(CUmemGenericAllocationHandle handle)
{
    model_call call;
    CUresult rc = model_enter(&call, MODEL_cuMemRelease, 1, "handle=%#llx",
                              (unsigned long long)handle);
    if (rc != CUDA_SUCCESS) return rc;
    const char *why = NULL;
    model_handle *h = model_find_handle(handle, &why);
    if (!h) return model_violation(&call, CUDA_ERROR_INVALID_VALUE, "%s", why);
    if (h->binds > 0)
        return model_violation(&call, CUDA_ERROR_NOT_PERMITTED,
                               "allocation is still bound to a multicast object (%d binds): "
                               "cuMulticastUnbind before cuMemRelease", h->binds);
    int binds = 0;
    for (model_node *n = model.binds; n; n = n->next) binds += ((model_bind *)n)->mc == handle;
    if (binds > 0)
        return model_violation(&call, CUDA_ERROR_NOT_PERMITTED,
                               "multicast object still has %d binds made by this process: "
                               "cuMulticastUnbind each before releasing the object", binds);
    if (model_injecting(&call)) return model_leave(&call, call.inject);
    if (h->retains > 0) {  /* releases a cuMemRetainAllocationHandle reference */
        h->retains--;
        return model_leave(&call, CUDA_SUCCESS);
    }
    model_object_close(h);  /* mappings made from it stay valid, as in the driver */
    return model_leave(&call, CUDA_SUCCESS);
}

CUresult model_cuMemGetAllocationGranularity(size_t *granularity, const CUmemAllocationProp *prop,
                                             CUmemAllocationGranularity_flags option)
{
    model_call call;
    CUresult rc = model_enter(&call, MODEL_cuMemGetAllocationGranularity, 1,
                              "device=%d, option=%d", prop ? prop->location.id : -1, (int)option);
    if (rc != CUDA_SUCCESS) return rc;
    if (!granularity) return model_violation(&call, CUDA_ERROR_INVALID_VALUE, "granularity is NULL");
    rc = check_allocation_prop(&call, prop);
    if (rc != CUDA_SUCCESS) return rc;
    if (option != CU_MEM_ALLOC_GRANULARITY_MINIMUM && option != CU_MEM_ALLOC_GRANULARITY_RECOMMENDED)
        return model_violation(&call, CUDA_ERROR_INVALID_VALUE, "unknown option");
    if (model_injecting(&call)) return model_leave(&call, call.inject);
    *granularity = model_alloc_granularity(prop->location.id, option == CU_MEM_ALLOC_GRANULARITY_RECOMMENDED);
    return model_leave(&call, CUDA_SUCCESS);
}

CUresult model_cuMemAddressReserve(CUdeviceptr *ptr, size_t size, size_t alignment,
                                   CUdeviceptr addr, unsigned long long flags)
{
    model_call call;
    CUresult rc = model_enter(&call, MODEL_cuMemAddressReserve, 1,
                              "size=%zu, alignment=%zu, addr=%#llx, flags=%llu", size, alignment,
                              (unsigned long long)addr, flags);
    if (rc != CUDA_SUCCESS) return rc;
    size_t page = model_page_size();
    if (!ptr) return model_violation(&call, CUDA_ERROR_INVALID_VALUE, "ptr is NULL");
    if (flags != 0) return model_violation(&call, CUDA_ERROR_INVALID_VALUE, "flags must be 0");
    if (size == 0 || size % page != 0)
        return model_violation(&call, CUDA_ERROR_INVALID_VALUE,
                               "size must be a non-zero multiple of the host page size %zu", page);
    if (alignment & (alignment - 1))
        return model_violation(&call, CUDA_ERROR_INVALID_VALUE,
                               "alignment must be a power of two or 0");
    if (addr % page != 0)
        return model_violation(&call, CUDA_ERROR_INVALID_VALUE,
                               "addr must be a multiple of the host page size %zu", page);
    if (model_injecting(&call)) return model_leave(&call, call.inject);

    /* Over-reserve, then trim both ends so the range starts on the alignment. */
    size_t align = alignment ? alignment : model.config.alloc_granularity_minimum;
    if (align < page) align = page;
    if (size > SIZE_MAX - align) return model_leave(&call, CUDA_ERROR_OUT_OF_MEMORY);
    size_t span = size + align;
    char *raw = mmap((void *)(uintptr_t)addr, span, PROT_NONE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (raw == MAP_FAILED) return model_leave(&call, CUDA_ERROR_OUT_OF_MEMORY);
    uintptr_t base = ((uintptr_t)raw + align - 1) & ~(uintptr_t)(align - 1);
    if (base > (uintptr_t)raw) munmap(raw, base - (uintptr_t)raw);
    uintptr_t tail = base + size;
    if ((uintptr_t)raw + span > tail) munmap((void *)tail, (uintptr_t)raw + span - tail);

    model_reservation *r = calloc(1, sizeof *r);
    if (!r) {
        munmap((void *)base, size);
        return model_leave(&call, CUDA_ERROR_OUT_OF_MEMORY);
    }
    r->base = base;
    r->size = size;
    model_list_push(&model.reservations, &r->node);
    *ptr = (CUdeviceptr)base;
    return model_leave(&call, CUDA_SUCCESS);
}

CUresult model_cuMemAddressFree(CUdeviceptr ptr, size_t size)
{
    model_call call;
    CUresult rc = model_enter(&call, MODEL_cuMemAddressFree, 1, "ptr=%#llx, size=%zu",
                              (unsigned long long)ptr, size);
    if (rc != CUDA_SUCCESS) return rc;
    model_reservation *r = NULL;
    for (model_node *n = model.reservations; n && !r; n = n->next) {
        model_reservation *candidate = (model_reservation *)n;
        if (candidate->base == (uintptr_t)ptr && candidate->size == size) r = candidate;
    }
    if (!r)
        return model_violation(&call, CUDA_ERROR_INVALID_VALUE,
                               "ptr and size must be exactly those of a cuMemAddressReserve range");
    int mapped = mappings_overlapping(r->base, r->size);
    if (mapped > 0)
        return model_violation(&call, CUDA_ERROR_NOT_PERMITTED,
                               "range still holds %d mappings: cuMemUnmap before cuMemAddressFree",
                               mapped);
    if (model_injecting(&call)) return model_leave(&call, call.inject);
    munmap((void *)r->base, r->size);
    model_list_remove(&model.reservations, &r->node);
    free(r);
    return model_leave(&call, CUDA_SUCCESS);
}

CUresult model_cuMemMap(CUdeviceptr ptr, size_t size, size_t offset,
                        CUmemGenericAllocationHandle handle, unsigned long long flags)
{
    model_call call;
    CUresult rc = model_enter(&call, MODEL_cuMemMap, 1,
                              "ptr=%#llx, size=%zu, offset=%zu, handle=%#llx, flags=%llu",
                              (unsigned long long)ptr, size, offset, (unsigned long long)handle,
                              flags);
    if (rc != CUDA_SUCCESS) return rc;
    if (flags != 0) return model_violation(&call, CUDA_ERROR_INVALID_VALUE, "flags must be 0");
    if (offset != 0)
        return model_violation(&call, CUDA_ERROR_INVALID_VALUE, "offset must be 0 (for now)");
    const char *why = NULL;
    model_handle *h = model_find_handle(handle, &why);
    if (!h) return model_violation(&call, CUDA_ERROR_INVALID_VALUE, "%s", why);
    model_object_header *header = h->header;
    int multicast = header->kind == MODEL_KIND_MULTICAST;
    size_t granularity = multicast ? model.config.multicast_granularity_minimum
                                   : model_alloc_granularity(header->device, 0);
    if (size == 0) return model_violation(&call, CUDA_ERROR_INVALID_VALUE, "size is 0");
    if (ptr % granularity != 0 || size % granularity != 0)
        return model_violation(&call, CUDA_ERROR_INVALID_VALUE,
                               "ptr and size must be multiples of the %s granularity %zu",
                               multicast ? "multicast MINIMUM" : "allocation MINIMUM",
                               granularity);
    if (offset + size > header->size)
        return model_violation(&call, CUDA_ERROR_INVALID_VALUE,
                               "offset + size exceeds the %s (%llu bytes)", kind_name(header),
                               (unsigned long long)header->size);
    model_reservation *r = model_find_reservation((uintptr_t)ptr, size);
    if (!r)
        return model_violation(&call, CUDA_ERROR_INVALID_VALUE,
                               "[ptr, ptr+size) is not inside one cuMemAddressReserve range");
    if (mappings_overlapping((uintptr_t)ptr, size) > 0)
        return model_violation(&call, CUDA_ERROR_INVALID_VALUE,
                               "range is already mapped: cuMemMap maps only unmapped reservations");
    if (multicast) {
        uint64_t added = atomic_load(&header->devices_added);
        int count = model_bit_count(added);
        if ((uint32_t)count < header->num_devices)
            return model_violation(&call, CUDA_ERROR_NOT_PERMITTED,
                                   "only %d of %u devices were added to the multicast object: "
                                   "every device must be added before it is mapped",
                                   count, header->num_devices);
    }
    if (model_injecting(&call)) return model_leave(&call, call.inject);

    model_mapping *m = calloc(1, sizeof *m);
    if (!m) return model_leave(&call, CUDA_ERROR_OUT_OF_MEMORY);
    void *at = mmap((void *)(uintptr_t)ptr, size, PROT_NONE, MAP_SHARED | MAP_FIXED, h->fd,
                    (off_t)(model_page_size() + offset));
    if (at == MAP_FAILED) {
        free(m);
        return model_leave(&call, CUDA_ERROR_OUT_OF_MEMORY);
    }
    m->va = (uintptr_t)ptr;
    m->size = size;
    m->handle = handle;
    m->object_id = header->object_id;
    m->kind = header->kind;
    m->device = multicast ? (model_current_device() >= 0 ? model_current_device() : 0)
                          : header->device;
    m->handle_types = header->handle_types;
    m->access = CU_MEM_ACCESS_FLAGS_PROT_NONE;
    m->buffer_id = model_new_buffer_id();
    m->reservation = r;
    model_list_push(&model.mappings, &m->node);
    return model_leave(&call, CUDA_SUCCESS);
}

CUresult model_cuMemUnmap(CUdeviceptr ptr, size_t size)
{
    model_call call;
    CUresult rc = model_enter(&call, MODEL_cuMemUnmap, 1, "ptr=%#llx, size=%zu",
                              (unsigned long long)ptr, size);
    if (rc != CUDA_SUCCESS) return rc;
    uintptr_t va = (uintptr_t)ptr;
    if (size == 0) return model_violation(&call, CUDA_ERROR_INVALID_VALUE, "size is 0");
    int whole = 0;
    for (model_node *n = model.mappings; n; n = n->next) {
        model_mapping *m = (model_mapping *)n;
        if (!(m->va < va + size && va < m->va + m->size)) continue;
        if (m->va < va || m->va + m->size > va + size)
            return model_violation(&call, CUDA_ERROR_INVALID_VALUE,
                                   "cannot unmap part of the mapping [%#lx, +%zu)",
                                   (unsigned long)m->va, m->size);
        whole++;
    }
    if (whole == 0)
        return model_violation(&call, CUDA_ERROR_INVALID_VALUE, "nothing is mapped there");
    const model_work *w = model_work_overlapping(va, size);
    if (w)
        return model_violation(&call, CUDA_ERROR_NOT_PERMITTED,
                               "a kernel on stream %p may still use [%#lx, +%zu): synchronize "
                               "(cuCtxSynchronize, cuStreamSynchronize) before cuMemUnmap",
                               (void *)w->stream, (unsigned long)w->ptr, w->size);
    for (model_node *n = model.binds; n; n = n->next) {
        model_bind *b = (model_bind *)n;
        if (b->mem == 0 && b->mem_va < va + size && va < b->mem_va + b->size)
            return model_violation(&call, CUDA_ERROR_NOT_PERMITTED,
                                   "memory bound with cuMulticastBindAddr is still bound: "
                                   "cuMulticastUnbind before cuMemUnmap");
    }
    if (model_injecting(&call)) return model_leave(&call, call.inject);
    model_node *n = model.mappings;
    while (n) {
        model_mapping *m = (model_mapping *)n;
        n = n->next;
        if (m->va >= va && m->va + m->size <= va + size) {
            /* Back to a reservation: inaccessible anonymous memory, ready for the next map. */
            mmap((void *)m->va, m->size, PROT_NONE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);
            model_list_remove(&model.mappings, &m->node);
            free(m);
        }
    }
    return model_leave(&call, CUDA_SUCCESS);
}

CUresult model_cuMemSetAccess(CUdeviceptr ptr, size_t size, const CUmemAccessDesc *desc,
                              size_t count)
{
    model_call call;
    CUresult rc = model_enter(&call, MODEL_cuMemSetAccess, 1,
                              "ptr=%#llx, size=%zu, count=%zu, device=%d, flags=%d",
                              (unsigned long long)ptr, size, count,
                              desc && count ? desc[0].location.id : -1,
                              desc && count ? (int)desc[0].flags : -1);
    if (rc != CUDA_SUCCESS) return rc;
    if (!desc || count == 0)
        return model_violation(&call, CUDA_ERROR_INVALID_VALUE, "desc is NULL or count is 0");
    unsigned granted = 0;
    for (size_t i = 0; i < count; i++) {
        if (desc[i].location.type != CU_MEM_LOCATION_TYPE_DEVICE)
            return model_violation(&call, CUDA_ERROR_INVALID_VALUE,
                                   "desc[%zu].location.type must be CU_MEM_LOCATION_TYPE_DEVICE", i);
        if (!model_valid_device(desc[i].location.id))
            return model_violation(&call, CUDA_ERROR_INVALID_DEVICE,
                                   "desc[%zu].location.id %d is not a device", i,
                                   desc[i].location.id);
        if (desc[i].flags != CU_MEM_ACCESS_FLAGS_PROT_NONE &&
            desc[i].flags != CU_MEM_ACCESS_FLAGS_PROT_READ &&
            desc[i].flags != CU_MEM_ACCESS_FLAGS_PROT_READWRITE)
            return model_violation(&call, CUDA_ERROR_INVALID_VALUE, "desc[%zu].flags is not a "
                                   "CUmemAccess_flags value", i);
        granted |= (unsigned)desc[i].flags;
    }
    if (size == 0) return model_violation(&call, CUDA_ERROR_INVALID_VALUE, "size is 0");

    /* The range must be whole mappings end to end, with no hole. */
    uintptr_t va = (uintptr_t)ptr, end = va + size;
    int multicast = 0;
    for (uintptr_t at = va; at < end;) {
        model_mapping *m = model_find_mapping(at);
        if (!m)
            return model_violation(&call, CUDA_ERROR_INVALID_VALUE,
                                   "[%#lx, +%zu) is not mapped: cuMemMap before cuMemSetAccess",
                                   (unsigned long)at, (size_t)(end - at));
        if (m->va != at || m->va + m->size > end)
            return model_violation(&call, CUDA_ERROR_INVALID_VALUE,
                                   "range covers part of the mapping [%#lx, +%zu)",
                                   (unsigned long)m->va, m->size);
        multicast |= m->kind == MODEL_KIND_MULTICAST;
        at = m->va + m->size;
    }
    size_t mc_granularity = model.config.multicast_granularity_minimum;
    if (multicast && (va % mc_granularity != 0 || size % mc_granularity != 0))
        return model_violation(&call, CUDA_ERROR_INVALID_VALUE,
                               "ptr and size of a multicast mapping must be multiples of the "
                               "multicast MINIMUM granularity %zu", mc_granularity);
    if (model_injecting(&call)) return model_leave(&call, call.inject);

    int prot = granted == CU_MEM_ACCESS_FLAGS_PROT_READWRITE ? PROT_READ | PROT_WRITE
               : granted == CU_MEM_ACCESS_FLAGS_PROT_READ    ? PROT_READ
                                                             : PROT_NONE;
    if (mprotect((void *)va, size, prot) != 0) return model_leave(&call, CUDA_ERROR_INVALID_VALUE);
    for (uintptr_t at = va; at < end;) {
        model_mapping *m = model_find_mapping(at);
        m->access = granted;
        at = m->va + m->size;
    }
    return model_leave(&call, CUDA_SUCCESS);
}
