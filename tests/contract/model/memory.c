/* cuMemAlloc / cuMemHostAlloc buffers (host memory registered with the model), host memory
 * registration, and the copies and memset, done synchronously. Copies check that every device-side byte is driver memory
 * the device may touch, so a copy into a mapping before cuMemSetAccess is reported instead of
 * faulting. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "model.h"

static model_buffer *find_buffer(model_node *list, uintptr_t ptr, size_t len)
{
    for (model_node *n = list; n; n = n->next) {
        model_buffer *b = (model_buffer *)n;
        if (ptr >= b->ptr && ptr - b->ptr < b->size && len <= b->size - (ptr - b->ptr)) return b;
    }
    return NULL;
}

const char *model_check_range(uintptr_t ptr, size_t len, int write, int device_side)
{
    if (len == 0) return NULL;
    if (find_buffer(model.device_buffers, ptr, len) || find_buffer(model.host_buffers, ptr, len) ||
        find_buffer(model.registered, ptr, len))
        return NULL;
    if (find_buffer(model.device_buffers, ptr, 1) || find_buffer(model.host_buffers, ptr, 1) ||
        find_buffer(model.registered, ptr, 1))
        return "range runs past the end of the buffer";
    model_mapping *m = model_find_mapping(ptr);
    if (!m) {
        if (model_find_reservation(ptr, 1))
            return "address is reserved but not mapped (cuMemMap first)";
        if (device_side) return "not memory of this driver (cuMemAlloc, cuMemHostAlloc or cuMemMap)";
        return NULL;  /* plain host memory on the host side of a copy */
    }
    /* Mappings may lie end to end; each one touched must allow the access. */
    for (uintptr_t at = ptr, end = ptr + len; at < end;) {
        m = model_find_mapping(at);
        if (!m) return "range runs past the end of the mapped memory";
        unsigned need = write ? CU_MEM_ACCESS_FLAGS_PROT_READWRITE : CU_MEM_ACCESS_FLAGS_PROT_READ;
        if ((m->access & need) != need)
            return write ? "mapping is not writable (cuMemSetAccess with PROT_READWRITE first)"
                         : "mapping is not readable (cuMemSetAccess first)";
        at = m->va + m->size;
    }
    return NULL;
}

CUresult model_cuMemAlloc(CUdeviceptr *ptr, size_t size)
{
    model_call call;
    CUresult rc = model_enter(&call, MODEL_cuMemAlloc, 1, "size=%zu", size);
    if (rc != CUDA_SUCCESS) return rc;
    if (!ptr) return model_violation(&call, CUDA_ERROR_INVALID_VALUE, "dptr is NULL");
    if (size == 0) return model_violation(&call, CUDA_ERROR_INVALID_VALUE, "bytesize is 0");
    if (model_current_device() < 0)
        return model_violation(&call, CUDA_ERROR_INVALID_CONTEXT, "no current context");
    if (model_injecting(&call)) return model_leave(&call, call.inject);
    model_buffer *b = model_shared_buffer(-1, 0, size, model_current_device(), MODEL_BUFFER_ALLOCATED);
    if (!b) return model_leave(&call, CUDA_ERROR_OUT_OF_MEMORY);
    *ptr = (CUdeviceptr)b->ptr;
    return model_leave(&call, CUDA_SUCCESS);
}

CUresult model_cuMemFree(CUdeviceptr ptr)
{
    model_call call;
    CUresult rc = model_enter(&call, MODEL_cuMemFree, 1, "dptr=%#llx", (unsigned long long)ptr);
    if (rc != CUDA_SUCCESS) return rc;
    model_buffer *b = find_buffer(model.device_buffers, (uintptr_t)ptr, 0);
    if (!b || b->ptr != (uintptr_t)ptr)
        return model_violation(&call, CUDA_ERROR_INVALID_VALUE,
                               "dptr is not the start of a cuMemAlloc buffer");
    if (b->origin == MODEL_BUFFER_IPC_OPENED)
        return model_violation(&call, CUDA_ERROR_INVALID_VALUE,
                               "dptr was opened with cuIpcOpenMemHandle: close it with cuIpcCloseMemHandle");
    if (model_injecting(&call)) return model_leave(&call, call.inject);
    model_shared_buffer_free(b);
    return model_leave(&call, CUDA_SUCCESS);
}

CUresult model_cuMemHostAlloc(void **ptr, size_t size, unsigned int flags)
{
    model_call call;
    CUresult rc = model_enter(&call, MODEL_cuMemHostAlloc, 1, "size=%zu, flags=%#x", size, flags);
    if (rc != CUDA_SUCCESS) return rc;
    if (!ptr) return model_violation(&call, CUDA_ERROR_INVALID_VALUE, "pp is NULL");
    if (size == 0) return model_violation(&call, CUDA_ERROR_INVALID_VALUE, "bytesize is 0");
    if (flags & ~(unsigned)(CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP |
                            CU_MEMHOSTALLOC_WRITECOMBINED))
        return model_violation(&call, CUDA_ERROR_INVALID_VALUE, "unknown flags");
    if (model_current_device() < 0)
        return model_violation(&call, CUDA_ERROR_INVALID_CONTEXT, "no current context");
    if (model_injecting(&call)) return model_leave(&call, call.inject);
    model_buffer *b = calloc(1, sizeof *b);
    void *memory = NULL;
    if (!b || posix_memalign(&memory, 4096, size) != 0) {
        free(b);
        return model_leave(&call, CUDA_ERROR_OUT_OF_MEMORY);
    }
    b->ptr = (uintptr_t)memory;
    b->size = size;
    b->device = model_current_device();
    b->flags = flags;
    b->buffer_id = model_new_buffer_id();
    model_list_push(&model.host_buffers, &b->node);
    *ptr = memory;
    return model_leave(&call, CUDA_SUCCESS);
}

/* Host memory is its own device address in the model; the rule kept is the document's: only
 * memory allocated with CU_MEMHOSTALLOC_DEVICEMAP has one, and flags must be 0. */
CUresult model_cuMemHostGetDevicePointer(CUdeviceptr *dptr, void *p, unsigned int flags)
{
    model_call call;
    CUresult rc = model_enter(&call, MODEL_cuMemHostGetDevicePointer, 1, "p=%p, flags=%#x", p, flags);
    if (rc != CUDA_SUCCESS) return rc;
    if (!dptr) return model_violation(&call, CUDA_ERROR_INVALID_VALUE, "pdptr is NULL");
    if (flags != 0) return model_violation(&call, CUDA_ERROR_INVALID_VALUE, "flags must be 0");
    model_buffer *b = find_buffer(model.host_buffers, (uintptr_t)p, 1);
    if (!b) return model_violation(&call, CUDA_ERROR_INVALID_VALUE, "p is not cuMemHostAlloc memory");
    if (!(b->flags & CU_MEMHOSTALLOC_DEVICEMAP))
        return model_violation(&call, CUDA_ERROR_INVALID_VALUE, "allocated without CU_MEMHOSTALLOC_DEVICEMAP");
    if (model_injecting(&call)) return model_leave(&call, call.inject);
    *dptr = (CUdeviceptr)(uintptr_t)p;
    return model_leave(&call, CUDA_SUCCESS);
}

CUresult model_cuMemFreeHost(void *ptr)
{
    model_call call;
    CUresult rc = model_enter(&call, MODEL_cuMemFreeHost, 1, "p=%p", ptr);
    if (rc != CUDA_SUCCESS) return rc;
    model_buffer *b = find_buffer(model.host_buffers, (uintptr_t)ptr, 0);
    if (!b || b->ptr != (uintptr_t)ptr)
        return model_violation(&call, CUDA_ERROR_INVALID_VALUE,
                               "p is not the start of a cuMemHostAlloc buffer");
    if (model_injecting(&call)) return model_leave(&call, call.inject);
    model_list_remove(&model.host_buffers, &b->node);
    free(ptr);
    free(b);
    return model_leave(&call, CUDA_SUCCESS);
}

CUresult model_cuMemHostRegister(void *ptr, size_t size, unsigned int flags)
{
    model_call call;
    CUresult rc = model_enter(&call, MODEL_cuMemHostRegister, 1, "p=%p, bytesize=%zu, flags=%#x",
                              ptr, size, flags);
    if (rc != CUDA_SUCCESS) return rc;
    if (!ptr || size == 0)
        return model_violation(&call, CUDA_ERROR_INVALID_VALUE, "p is NULL or bytesize is 0");
    if (flags & ~(unsigned)(CU_MEMHOSTREGISTER_PORTABLE | CU_MEMHOSTREGISTER_DEVICEMAP |
                            CU_MEMHOSTREGISTER_IOMEMORY | CU_MEMHOSTREGISTER_READ_ONLY))
        return model_violation(&call, CUDA_ERROR_INVALID_VALUE, "unknown flags");
    if (model_current_device() < 0)
        return model_violation(&call, CUDA_ERROR_INVALID_CONTEXT, "no current context");
    uintptr_t start = (uintptr_t)ptr;
    for (model_node *n = model.registered; n; n = n->next) {
        model_buffer *b = (model_buffer *)n;
        if (b->ptr < start + size && start < b->ptr + b->size)
            return model_violation(&call, CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED,
                                   "overlaps the registered range [%p, +%zu)", (void *)b->ptr,
                                   b->size);
    }
    if (find_buffer(model.device_buffers, start, 1) || find_buffer(model.host_buffers, start, 1) ||
        model_find_mapping(start))
        return model_violation(&call, CUDA_ERROR_INVALID_VALUE,
                               "p is driver memory already; only plain host memory is registered");
    if (model_injecting(&call)) return model_leave(&call, call.inject);
    model_buffer *b = calloc(1, sizeof *b);
    if (!b) return model_leave(&call, CUDA_ERROR_OUT_OF_MEMORY);
    b->ptr = start;
    b->size = size;
    b->device = model_current_device();
    b->buffer_id = model_new_buffer_id();
    model_list_push(&model.registered, &b->node);
    return model_leave(&call, CUDA_SUCCESS);
}

CUresult model_cuMemHostUnregister(void *ptr)
{
    model_call call;
    CUresult rc = model_enter(&call, MODEL_cuMemHostUnregister, 1, "p=%p", ptr);
    if (rc != CUDA_SUCCESS) return rc;
    model_buffer *b = find_buffer(model.registered, (uintptr_t)ptr, 0);
    if (!b || b->ptr != (uintptr_t)ptr)
        return model_violation(&call, CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED,
                               "p is not the base address given to cuMemHostRegister");
    if (model_injecting(&call)) return model_leave(&call, call.inject);
    model_list_remove(&model.registered, &b->node);
    free(b);
    return model_leave(&call, CUDA_SUCCESS);
}

/* Checks common to the copies and memset; CUDA_SUCCESS or the violation recorded. */
static CUresult check_copy(model_call *call, uintptr_t dst, int dst_device, uintptr_t src,
                           int src_device, size_t bytes, CUstream stream)
{
    if (model_current_device() < 0)
        return model_violation(call, CUDA_ERROR_INVALID_CONTEXT, "no current context");
    if (!model_valid_stream(stream))
        return model_violation(call, CUDA_ERROR_INVALID_HANDLE, "unknown stream");
    if (bytes && (!dst || (src_device >= 0 && !src)))
        return model_violation(call, CUDA_ERROR_INVALID_VALUE, "NULL pointer");
    const char *why = model_check_range(dst, bytes, 1, dst_device);
    if (why) return model_violation(call, CUDA_ERROR_INVALID_VALUE, "destination: %s", why);
    if (src_device >= 0) {
        why = model_check_range(src, bytes, 0, src_device);
        if (why) return model_violation(call, CUDA_ERROR_INVALID_VALUE, "source: %s", why);
    }
    model_order_queue(stream);
    return CUDA_SUCCESS;
}

CUresult model_cuMemcpyDtoHAsync(void *dst, CUdeviceptr src, size_t bytes, CUstream stream)
{
    model_call call;
    CUresult rc = model_enter(&call, MODEL_cuMemcpyDtoHAsync, 1, "dst=%p, src=%#llx, bytes=%zu, "
                              "stream=%p", dst, (unsigned long long)src, bytes, (void *)stream);
    if (rc != CUDA_SUCCESS) return rc;
    rc = check_copy(&call, (uintptr_t)dst, 0, (uintptr_t)src, 1, bytes, stream);
    if (rc != CUDA_SUCCESS) return rc;
    if (model_injecting(&call)) return model_leave(&call, call.inject);
    if (bytes) memmove(dst, (const void *)(uintptr_t)src, bytes);
    return model_leave(&call, CUDA_SUCCESS);
}

CUresult model_cuMemcpyHtoDAsync(CUdeviceptr dst, const void *src, size_t bytes, CUstream stream)
{
    model_call call;
    CUresult rc = model_enter(&call, MODEL_cuMemcpyHtoDAsync, 1, "dst=%#llx, src=%p, bytes=%zu, "
                              "stream=%p", (unsigned long long)dst, src, bytes, (void *)stream);
    if (rc != CUDA_SUCCESS) return rc;
    rc = check_copy(&call, (uintptr_t)dst, 1, (uintptr_t)src, 0, bytes, stream);
    if (rc != CUDA_SUCCESS) return rc;
    if (model_injecting(&call)) return model_leave(&call, call.inject);
    if (bytes) memmove((void *)(uintptr_t)dst, src, bytes);
    return model_leave(&call, CUDA_SUCCESS);
}

CUresult model_cuMemcpyDtoDAsync(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream stream)
{
    model_call call;
    CUresult rc = model_enter(&call, MODEL_cuMemcpyDtoDAsync, 1, "dst=%#llx, src=%#llx, "
                              "bytes=%zu, stream=%p", (unsigned long long)dst,
                              (unsigned long long)src, bytes, (void *)stream);
    if (rc != CUDA_SUCCESS) return rc;
    rc = check_copy(&call, (uintptr_t)dst, 1, (uintptr_t)src, 1, bytes, stream);
    if (rc != CUDA_SUCCESS) return rc;
    if (model_injecting(&call)) return model_leave(&call, call.inject);
    if (bytes) memmove((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, bytes);
    return model_leave(&call, CUDA_SUCCESS);
}

CUresult model_cuMemsetD8Async(CUdeviceptr dst, unsigned char value, size_t count,
                               CUstream stream)
{
    model_call call;
    CUresult rc = model_enter(&call, MODEL_cuMemsetD8Async, 1, "dst=%#llx, value=%u, N=%zu, "
                              "stream=%p", (unsigned long long)dst, value, count, (void *)stream);
    if (rc != CUDA_SUCCESS) return rc;
    rc = check_copy(&call, (uintptr_t)dst, 1, 0, -1, count, stream);
    if (rc != CUDA_SUCCESS) return rc;
    if (model_injecting(&call)) return model_leave(&call, call.inject);
    if (count) memset((void *)(uintptr_t)dst, value, count);
    return model_leave(&call, CUDA_SUCCESS);
}
