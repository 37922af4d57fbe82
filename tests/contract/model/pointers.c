/* cuPointerGetAttribute(s). Driver memory is what cuMemAlloc, cuMemHostAlloc, cuMemHostRegister
 * and cuMemMap made; anything else is unregistered host memory, for which cuPointerGetAttribute returns
 * CUDA_ERROR_INVALID_VALUE and cuPointerGetAttributes succeeds with default values (memory
 * type 0), as the driver documents. Boolean attributes are written as int. */
#define _GNU_SOURCE
#include <stdint.h>
#include <string.h>
#include "model.h"

typedef struct {
    int known;
    unsigned memory_type;          /* CUmemorytype, 0 for unregistered memory */
    int device;
    CUcontext context;
    uintptr_t range_base, mapping_base;
    size_t range_size, mapping_size;
    unsigned long long buffer_id, handle_types;
    unsigned access;
    int legacy_ipc, host_visible;
} pointer_info;

static model_buffer *buffer_containing(model_node *list, uintptr_t ptr)
{
    for (model_node *n = list; n; n = n->next) {
        model_buffer *b = (model_buffer *)n;
        if (ptr >= b->ptr && ptr - b->ptr < b->size) return b;
    }
    return NULL;
}

static pointer_info describe(uintptr_t ptr)
{
    pointer_info info;
    memset(&info, 0, sizeof info);
    /* Unregistered memory has no device; zero would read as device 0. */
    info.device = CU_DEVICE_INVALID;
    model_buffer *b = buffer_containing(model.device_buffers, ptr);
    int host = 0;
    if (!b) host = (b = buffer_containing(model.host_buffers, ptr)) != NULL;
    if (!b) host = (b = buffer_containing(model.registered, ptr)) != NULL;
    if (b) {
        info.known = 1;
        info.memory_type = host ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE;
        info.device = b->device;
        info.context = model_context_of(b->device);
        info.range_base = info.mapping_base = b->ptr;
        info.range_size = info.mapping_size = b->size;
        info.buffer_id = b->buffer_id;
        info.access = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        info.legacy_ipc = !host && b->origin == MODEL_BUFFER_ALLOCATED;
        info.host_visible = host;
        return info;
    }
    model_mapping *m = model_find_mapping(ptr);
    if (m) {
        /* VMM memory belongs to no context; its range is the reservation it was mapped in. */
        info.known = 1;
        info.memory_type = CU_MEMORYTYPE_DEVICE;
        info.device = m->device;
        info.range_base = m->reservation->base;
        info.range_size = m->reservation->size;
        info.mapping_base = m->va;
        info.mapping_size = m->size;
        info.buffer_id = m->buffer_id;
        info.handle_types = m->handle_types;
        info.access = m->access;
    }
    return info;
}

enum { WRITTEN, NOT_APPLICABLE, NOT_MODELLED };

static int write_attribute(CUpointer_attribute attribute, const pointer_info *info, void *data,
                           uintptr_t ptr)
{
    switch (attribute) {
    case CU_POINTER_ATTRIBUTE_CONTEXT: *(CUcontext *)data = info->context; return WRITTEN;
    case CU_POINTER_ATTRIBUTE_MEMORY_TYPE: *(unsigned *)data = info->memory_type; return WRITTEN;
    case CU_POINTER_ATTRIBUTE_DEVICE_POINTER:
        *(CUdeviceptr *)data = info->known ? (CUdeviceptr)ptr : 0;
        return info->known ? WRITTEN : NOT_APPLICABLE;
    case CU_POINTER_ATTRIBUTE_HOST_POINTER:
        *(void **)data = info->host_visible ? (void *)ptr : NULL;
        return info->host_visible ? WRITTEN : NOT_APPLICABLE;
    case CU_POINTER_ATTRIBUTE_SYNC_MEMOPS: *(int *)data = 0; return WRITTEN;
    case CU_POINTER_ATTRIBUTE_BUFFER_ID:
        *(unsigned long long *)data = info->buffer_id;
        return WRITTEN;
    case CU_POINTER_ATTRIBUTE_IS_MANAGED: *(int *)data = 0; return WRITTEN;
    case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL: *(int *)data = info->device; return WRITTEN;
    case CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE: *(int *)data = info->legacy_ipc; return WRITTEN;
    case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
        *(CUdeviceptr *)data = (CUdeviceptr)info->range_base;
        return WRITTEN;
    case CU_POINTER_ATTRIBUTE_RANGE_SIZE: *(size_t *)data = info->range_size; return WRITTEN;
    case CU_POINTER_ATTRIBUTE_MAPPED: *(int *)data = info->known; return WRITTEN;
    case CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES:
        *(unsigned long long *)data = info->handle_types;
        return WRITTEN;
    case CU_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE:
        *(int *)data = info->memory_type == CU_MEMORYTYPE_DEVICE;
        return WRITTEN;
    case CU_POINTER_ATTRIBUTE_ACCESS_FLAGS: *(unsigned *)data = info->access; return WRITTEN;
    case CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE: *(CUmemoryPool *)data = NULL; return WRITTEN;
    case CU_POINTER_ATTRIBUTE_MAPPING_SIZE: *(size_t *)data = info->mapping_size; return WRITTEN;
    case CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR:
        *(CUdeviceptr *)data = (CUdeviceptr)info->mapping_base;
        return WRITTEN;
    case CU_POINTER_ATTRIBUTE_MEMORY_BLOCK_ID:
        *(unsigned long long *)data = info->buffer_id;
        return WRITTEN;
    case CU_POINTER_ATTRIBUTE_IS_HW_DECOMPRESS_CAPABLE: *(int *)data = 0; return WRITTEN;
    default: return NOT_MODELLED;
    }
}

CUresult model_cuPointerGetAttribute(void *data, CUpointer_attribute attribute, CUdeviceptr ptr)
{
    model_call call;
    CUresult rc = model_enter(&call, MODEL_cuPointerGetAttribute, 1, "attribute=%d, ptr=%#llx",
                              (int)attribute, (unsigned long long)ptr);
    if (rc != CUDA_SUCCESS) return rc;
    if (!data) return model_violation(&call, CUDA_ERROR_INVALID_VALUE, "data is NULL");
    pointer_info info = describe((uintptr_t)ptr);
    if (model_injecting(&call)) return model_leave(&call, call.inject);
    /* Unregistered host memory: an error, but an expected one, not misuse. */
    if (!info.known) return model_leave(&call, CUDA_ERROR_INVALID_VALUE);
    int outcome = write_attribute(attribute, &info, data, (uintptr_t)ptr);
    if (outcome == NOT_MODELLED)
        return model_violation(&call, CUDA_ERROR_INVALID_VALUE, "attribute %d is not modelled",
                               (int)attribute);
    return model_leave(&call, outcome == WRITTEN ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE);
}

CUresult model_cuPointerGetAttributes(unsigned int count, CUpointer_attribute *attributes,
                                      void **data, CUdeviceptr ptr)
{
    model_call call;
    CUresult rc = model_enter(&call, MODEL_cuPointerGetAttributes, 1,
                              "numAttributes=%u, first=%d, ptr=%#llx", count,
                              attributes && count ? (int)attributes[0] : -1,
                              (unsigned long long)ptr);
    if (rc != CUDA_SUCCESS) return rc;
    if (count > 0 && (!attributes || !data))
        return model_violation(&call, CUDA_ERROR_INVALID_VALUE, "attributes or data is NULL");
    for (unsigned i = 0; i < count; i++)
        if (!data[i]) return model_violation(&call, CUDA_ERROR_INVALID_VALUE, "data[%u] is NULL", i);
    if (model_injecting(&call)) return model_leave(&call, call.inject);
    pointer_info info = describe((uintptr_t)ptr);
    for (unsigned i = 0; i < count; i++) {
        if (write_attribute(attributes[i], &info, data[i], (uintptr_t)ptr) == NOT_MODELLED)
            return model_violation(&call, CUDA_ERROR_INVALID_VALUE,
                                   "attribute %d is not modelled", (int)attributes[i]);
    }
    return model_leave(&call, CUDA_SUCCESS);
}
