/* Multicast objects. The object is a memfd like an allocation; its page 0 is shared by every
 * process that created or imported it and holds the team size and the bitmask of devices
 * added (updated with compare-and-swap, so processes may add devices concurrently). Binds are
 * recorded per process. Mapping the object maps its memfd's data, which every process sees;
 * that is not multicast semantics, and the model does not pretend it is. */
#define _GNU_SOURCE
#include <stdlib.h>
#include "model.h"

static const unsigned long long exportable_types =
    CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR | CU_MEM_HANDLE_TYPE_FABRIC;

CUresult model_cuMulticastGetGranularity(size_t *granularity, const CUmulticastObjectProp *prop,
                                         CUmulticastGranularity_flags option)
{
    model_call call;
    CUresult rc = model_enter(&call, MODEL_cuMulticastGetGranularity, 1,
                              "numDevices=%u, size=%zu, option=%d", prop ? prop->numDevices : 0u,
                              prop ? prop->size : (size_t)0, (int)option);
    if (rc != CUDA_SUCCESS) return rc;
    if (!granularity || !prop)
        return model_violation(&call, CUDA_ERROR_INVALID_VALUE, "granularity or prop is NULL");
    if (option != CU_MULTICAST_GRANULARITY_MINIMUM && option != CU_MULTICAST_GRANULARITY_RECOMMENDED)
        return model_violation(&call, CUDA_ERROR_INVALID_VALUE, "unknown option");
    if (!model_any_device_has(CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED))
        return model_violation(&call, CUDA_ERROR_NOT_SUPPORTED,
                               "no device reports CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED");
    if (model_injecting(&call)) return model_leave(&call, call.inject);
    *granularity = option == CU_MULTICAST_GRANULARITY_MINIMUM
                       ? model.config.multicast_granularity_minimum
                       : model.config.multicast_granularity_recommended;
    return model_leave(&call, CUDA_SUCCESS);
}

CUresult model_cuMulticastCreate(CUmemGenericAllocationHandle *mc, const CUmulticastObjectProp *prop)
{
    model_call call;
    CUresult rc = model_enter(&call, MODEL_cuMulticastCreate, 1,
                              "numDevices=%u, size=%zu, handleTypes=%#llx, flags=%llu",
                              prop ? prop->numDevices : 0u, prop ? prop->size : (size_t)0,
                              prop ? prop->handleTypes : 0ull, prop ? prop->flags : 0ull);
    if (rc != CUDA_SUCCESS) return rc;
    if (!mc || !prop) return model_violation(&call, CUDA_ERROR_INVALID_VALUE, "mcHandle or prop is NULL");
    if (!model_any_device_has(CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED))
        return model_violation(&call, CUDA_ERROR_NOT_SUPPORTED,
                               "no device reports CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED");
    if (prop->flags != 0) return model_violation(&call, CUDA_ERROR_INVALID_VALUE, "prop->flags must be 0");
    if (prop->numDevices < 1 || prop->numDevices > MCOLL_CONTRACT_MAX_DEVICES)
        return model_violation(&call, CUDA_ERROR_INVALID_VALUE, "prop->numDevices must be 1..%d",
                               MCOLL_CONTRACT_MAX_DEVICES);
    if (prop->handleTypes & ~exportable_types)
        return model_violation(&call, CUDA_ERROR_INVALID_VALUE,
                               "prop->handleTypes may hold only POSIX_FILE_DESCRIPTOR and FABRIC "
                               "on Linux");
    if ((prop->handleTypes & CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) &&
        !model_any_device_has(CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED))
        return model_violation(&call, CUDA_ERROR_NOT_SUPPORTED,
                               "POSIX fd handles requested but no device supports them");
    if ((prop->handleTypes & CU_MEM_HANDLE_TYPE_FABRIC) &&
        !model_any_device_has(CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED))
        return model_violation(&call, CUDA_ERROR_NOT_SUPPORTED,
                               "fabric handles requested but no device reports "
                               "HANDLE_TYPE_FABRIC_SUPPORTED");
    size_t granularity = model.config.multicast_granularity_minimum;
    if (prop->size == 0 || prop->size % granularity != 0)
        return model_violation(&call, CUDA_ERROR_INVALID_VALUE,
                               "prop->size must be a non-zero multiple of the multicast MINIMUM "
                               "granularity %zu", granularity);
    if (model_injecting(&call)) return model_leave(&call, call.inject);
    model_handle *h;
    rc = model_object_create(MODEL_KIND_MULTICAST, prop->size, -1, prop->handleTypes,
                             prop->numDevices, &h);
    if (rc == CUDA_SUCCESS) *mc = h->value;
    return model_leave(&call, rc);
}

/* The multicast object named by `value`, or NULL after recording the violation in *rc. */
static model_handle *find_multicast(model_call *call, CUmemGenericAllocationHandle value,
                                    CUresult *rc)
{
    const char *why = NULL;
    model_handle *h = model_find_handle(value, &why);
    if (!h) {
        *rc = model_violation(call, CUDA_ERROR_INVALID_VALUE, "mcHandle: %s", why);
        return NULL;
    }
    if (h->header->kind != MODEL_KIND_MULTICAST) {
        *rc = model_violation(call, CUDA_ERROR_INVALID_VALUE,
                              "mcHandle is an allocation, not a multicast object");
        return NULL;
    }
    return h;
}

/* CUDA_SUCCESS when `device` (of this process's node) may join, else the violation recorded. */
static CUresult check_add(model_call *call, uint64_t added, uint32_t num_devices, int device)
{
    if (added & ((uint64_t)1 << model_global_device(device)))
        return model_violation(call, CUDA_ERROR_INVALID_VALUE,
                               "device %d was already added to this multicast object (by this or "
                               "another process of node %d)", device, model_this_node());
    if ((uint32_t)model_bit_count(added) >= num_devices)
        return model_violation(call, CUDA_ERROR_INVALID_VALUE,
                               "all %u devices of the team were already added", num_devices);
    return CUDA_SUCCESS;
}

CUresult model_cuMulticastAddDevice(CUmemGenericAllocationHandle mc, CUdevice device)
{
    model_call call;
    CUresult rc = model_enter(&call, MODEL_cuMulticastAddDevice, 1, "mcHandle=%#llx, dev=%d",
                              (unsigned long long)mc, device);
    if (rc != CUDA_SUCCESS) return rc;
    model_handle *h = find_multicast(&call, mc, &rc);
    if (!h) return rc;
    if (!model_valid_device(device))
        return model_violation(&call, CUDA_ERROR_INVALID_DEVICE, "no device %d", device);
    if (!model_attribute(device, CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED))
        return model_violation(&call, CUDA_ERROR_NOT_SUPPORTED,
                               "device %d reports CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED = 0",
                               device);
    if (model_global_device(device) >= MCOLL_CONTRACT_MAX_DEVICES)
        return model_violation(&call, CUDA_ERROR_INVALID_DEVICE,
                               "device %d of node %d is past the %d GPUs the model's multicast state "
                               "holds", device, model_this_node(), MCOLL_CONTRACT_MAX_DEVICES);
    model_object_header *header = h->header;
    uint64_t added = atomic_load(&header->devices_added);
    rc = check_add(&call, added, header->num_devices, device);
    if (rc != CUDA_SUCCESS) return rc;
    if (model_injecting(&call)) return model_leave(&call, call.inject);
    /* Other processes add their devices concurrently: retry until our bit is in. */
    while (!atomic_compare_exchange_weak(&header->devices_added, &added,
                                         added | ((uint64_t)1 << model_global_device(device)))) {
        rc = check_add(&call, added, header->num_devices, device);
        if (rc != CUDA_SUCCESS) return rc;
    }
    return model_leave(&call, CUDA_SUCCESS);
}

/* What a bind needs to know about the memory, from a handle or from a mapped address. */
typedef struct {
    CUmemGenericAllocationHandle handle;  /* BindMem only */
    model_handle *owner;                  /* BindMem only */
    uintptr_t va;                         /* BindAddr only */
    size_t offset;                        /* offset of the bound bytes in the allocation */
    size_t allocation_size;
    int device;
    uint64_t handle_types;
} bind_memory;

static CUresult bind(model_call *call, model_handle *mc, size_t mc_offset, const bind_memory *mem,
                     size_t size, const char *offset_name)
{
    model_object_header *header = mc->header;
    size_t granularity = model.config.multicast_granularity_minimum;
    if (size == 0) return model_violation(call, CUDA_ERROR_INVALID_VALUE, "size is 0");
    if (size % granularity || mc_offset % granularity || mem->offset % granularity)
        return model_violation(call, CUDA_ERROR_INVALID_VALUE,
                               "size, mcOffset and %s must be multiples of the multicast "
                               "MINIMUM granularity %zu", offset_name, granularity);
    if (size > mem->allocation_size || mem->offset > mem->allocation_size - size)
        return model_violation(call, CUDA_ERROR_INVALID_VALUE,
                               "size + %s exceeds the allocation (%zu bytes)", offset_name,
                               mem->allocation_size);
    if (size > header->size || mc_offset > header->size - size)
        return model_violation(call, CUDA_ERROR_INVALID_VALUE,
                               "size + mcOffset exceeds the multicast object (%llu bytes)",
                               (unsigned long long)header->size);
    uint64_t added = atomic_load(&header->devices_added);
    if ((uint32_t)model_bit_count(added) < header->num_devices)
        return model_violation(call, CUDA_ERROR_NOT_PERMITTED,
                               "only %d of %u devices were added: every device must be added "
                               "before memory is bound", model_bit_count(added),
                               header->num_devices);
    if (mem->device < 0 || model_global_device(mem->device) >= MCOLL_CONTRACT_MAX_DEVICES ||
        !(added & ((uint64_t)1 << model_global_device(mem->device))))
        return model_violation(call, CUDA_ERROR_INVALID_DEVICE,
                               "the memory was created on device %d, which was not added to "
                               "the multicast team", mem->device);
    if ((header->handle_types || mc->imported) && !(mem->handle_types & exportable_types))
        return model_violation(call, CUDA_ERROR_INVALID_VALUE,
                               "an exportable or imported multicast object binds only memory "
                               "created with requestedHandleTypes != 0");
    for (model_node *n = model.binds; n; n = n->next) {
        model_bind *b = (model_bind *)n;
        if (b->mc == mc->value && b->device == mem->device && b->mc_offset < mc_offset + size &&
            mc_offset < b->mc_offset + b->size)
            return model_violation(call, CUDA_ERROR_INVALID_VALUE,
                                   "device %d already has memory bound at [%zu, +%zu) of the "
                                   "multicast object", b->device, b->mc_offset, b->size);
    }
    if (model_injecting(call)) return model_leave(call, call->inject);

    model_bind *b = calloc(1, sizeof *b);
    if (!b) return model_leave(call, CUDA_ERROR_OUT_OF_MEMORY);
    b->mc = mc->value;
    b->mem = mem->handle;
    b->mem_va = mem->va;
    b->device = mem->device;
    b->mc_offset = mc_offset;
    b->size = size;
    model_list_push(&model.binds, &b->node);
    if (mem->owner) mem->owner->binds++;
    return model_leave(call, CUDA_SUCCESS);
}

CUresult model_cuMulticastBindMem(CUmemGenericAllocationHandle mc, size_t mc_offset,
                                  CUmemGenericAllocationHandle mem, size_t mem_offset,
                                  size_t size, unsigned long long flags)
{
    model_call call;
    CUresult rc = model_enter(&call, MODEL_cuMulticastBindMem, 1,
                              "mcHandle=%#llx, mcOffset=%zu, memHandle=%#llx, memOffset=%zu, "
                              "size=%zu, flags=%llu", (unsigned long long)mc, mc_offset,
                              (unsigned long long)mem, mem_offset, size, flags);
    if (rc != CUDA_SUCCESS) return rc;
    if (flags != 0) return model_violation(&call, CUDA_ERROR_INVALID_VALUE, "flags must be 0");
    model_handle *h = find_multicast(&call, mc, &rc);
    if (!h) return rc;
    const char *why = NULL;
    model_handle *owner = model_find_handle(mem, &why);
    if (!owner) return model_violation(&call, CUDA_ERROR_INVALID_VALUE, "memHandle: %s", why);
    if (owner->header->kind != MODEL_KIND_ALLOCATION)
        return model_violation(&call, CUDA_ERROR_INVALID_VALUE,
                               "memHandle must be a cuMemCreate allocation");
    bind_memory memory = {
        .handle = mem,
        .owner = owner,
        .offset = mem_offset,
        .allocation_size = (size_t)owner->header->size,
        .device = owner->header->device,
        .handle_types = owner->header->handle_types,
    };
    return bind(&call, h, mc_offset, &memory, size, "memOffset");
}

CUresult model_cuMulticastBindAddr(CUmemGenericAllocationHandle mc, size_t mc_offset,
                                   CUdeviceptr memptr, size_t size, unsigned long long flags)
{
    model_call call;
    CUresult rc = model_enter(&call, MODEL_cuMulticastBindAddr, 1,
                              "mcHandle=%#llx, mcOffset=%zu, memptr=%#llx, size=%zu, flags=%llu",
                              (unsigned long long)mc, mc_offset, (unsigned long long)memptr, size,
                              flags);
    if (rc != CUDA_SUCCESS) return rc;
    if (flags != 0) return model_violation(&call, CUDA_ERROR_INVALID_VALUE, "flags must be 0");
    model_handle *h = find_multicast(&call, mc, &rc);
    if (!h) return rc;
    model_mapping *m = model_find_mapping((uintptr_t)memptr);
    if (!m || m->kind != MODEL_KIND_ALLOCATION)
        return model_violation(&call, CUDA_ERROR_INVALID_VALUE,
                               "memptr is not inside a mapping of a cuMemCreate allocation");
    /* A mapping covers its allocation from offset 0 (cuMemMap's offset is always 0), so the
     * bytes past the mapping's end are outside what memptr can bind. */
    bind_memory memory = {
        .va = (uintptr_t)memptr,
        .offset = (size_t)((uintptr_t)memptr - m->va),
        .allocation_size = m->size,
        .device = m->device,
        .handle_types = m->handle_types,
    };
    return bind(&call, h, mc_offset, &memory, size, "memptr");
}

CUresult model_cuMulticastUnbind(CUmemGenericAllocationHandle mc, CUdevice device,
                                 size_t mc_offset, size_t size)
{
    model_call call;
    CUresult rc = model_enter(&call, MODEL_cuMulticastUnbind, 1,
                              "mcHandle=%#llx, dev=%d, mcOffset=%zu, size=%zu",
                              (unsigned long long)mc, device, mc_offset, size);
    if (rc != CUDA_SUCCESS) return rc;
    model_handle *h = find_multicast(&call, mc, &rc);
    if (!h) return rc;
    if (!model_valid_device(device))
        return model_violation(&call, CUDA_ERROR_INVALID_DEVICE, "no device %d", device);
    size_t granularity = model.config.multicast_granularity_minimum;
    if (size == 0 || size % granularity || mc_offset % granularity)
        return model_violation(&call, CUDA_ERROR_INVALID_VALUE,
                               "size and mcOffset must be multiples of the multicast MINIMUM "
                               "granularity %zu", granularity);
    if (size > h->header->size || mc_offset > h->header->size - size)
        return model_violation(&call, CUDA_ERROR_INVALID_VALUE,
                               "size + mcOffset exceeds the multicast object (%llu bytes)",
                               (unsigned long long)h->header->size);
    model_bind *found = NULL;
    for (model_node *n = model.binds; n && !found; n = n->next) {
        model_bind *b = (model_bind *)n;
        if (b->mc == mc && b->device == device && b->mc_offset == mc_offset && b->size == size)
            found = b;
    }
    if (!found)
        return model_violation(&call, CUDA_ERROR_INVALID_VALUE,
                               "this process has no bind of device %d at mcOffset %zu with size "
                               "%zu (offset and size must match the bind)", device, mc_offset,
                               size);
    /* A mapping of the object reaches the bound memory: unbinding under it would leave kernels
     * of this process a multicast address with nothing behind it (teardown: unmap, then unbind). */
    for (model_node *n = model.mappings; n; n = n->next) {
        const model_mapping *m = (const model_mapping *)n;
        if (m->object_id == h->header->object_id && m->device == device)
            return model_violation(&call, CUDA_ERROR_NOT_PERMITTED,
                                   "the multicast object is still mapped at %#lx for device %d: "
                                   "cuMemUnmap before cuMulticastUnbind", (unsigned long)m->va, device);
    }
    if (model_injecting(&call)) return model_leave(&call, call.inject);
    if (found->mem) {
        const char *why = NULL;
        model_handle *owner = model_find_handle(found->mem, &why);
        if (owner) owner->binds--;
    }
    model_list_remove(&model.binds, &found->node);
    free(found);
    return model_leave(&call, CUDA_SUCCESS);
}
