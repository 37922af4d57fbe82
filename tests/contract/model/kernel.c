/* Kernels, which the model cannot run: a test declares what a launched collective would touch
 * (mcoll_contract_kernel_access), and the model checks it as the GPU's memory system would and
 * keeps it in flight until a synchronization. This is where the rules that only bite at kernel
 * time live: access flags good enough for the access (multimem.st and .red write through the
 * multicast mapping; peers are written through theirs), every byte of a multicast mapping
 * backed by memory of this device bound to the object, and no unmap under running work. */
#define _GNU_SOURCE
#include <stdlib.h>
#include "model.h"

/* This process's bind of `device` memory to the object `object_id` covering byte `at` of it. */
static const model_bind *bind_at(uint64_t object_id, int device, size_t at)
{
    for (model_node *n = model.binds; n; n = n->next) {
        const model_bind *b = (const model_bind *)n;
        const char *why = NULL;
        const model_handle *mc = model_find_handle(b->mc, &why);
        if (mc && mc->header->object_id == object_id && b->device == device && b->mc_offset <= at &&
            at - b->mc_offset < b->size)
            return b;
    }
    return NULL;
}

/* NULL when every multicast byte of [ptr, ptr+size) has this device's memory bound under it. */
static const char *multicast_unbound(uintptr_t ptr, size_t size, size_t *where)
{
    for (uintptr_t at = ptr, end = ptr + size; at < end;) {
        const model_mapping *m = model_find_mapping(at);
        if (!m) return NULL; /* cuMemAlloc or IPC memory (checked already): never multicast */
        uintptr_t stop = m->va + m->size < end ? m->va + m->size : end;
        if (m->kind != MODEL_KIND_MULTICAST) {
            at = stop;
            continue;
        }
        const model_bind *b = bind_at(m->object_id, m->device, at - m->va);
        if (!b) {
            *where = at - m->va;
            return "no memory of this device is bound there (cuMulticastBindMem covers less than the "
                   "mapping the kernel uses)";
        }
        uintptr_t bound_end = m->va + b->mc_offset + b->size;
        at = bound_end < stop ? bound_end : stop;
    }
    return NULL;
}

CUresult mcoll_contract_kernel_access(CUstream stream, CUdeviceptr ptr, size_t size, int write)
{
    model_call call;
    CUresult rc = model_enter(&call, MODEL_KERNEL, 1, "stream=%p, ptr=%#llx, size=%zu, %s", (void *)stream,
                              (unsigned long long)ptr, size, write ? "write" : "read");
    if (rc != CUDA_SUCCESS) return rc;
    if (!model_valid_stream(stream)) return model_violation(&call, CUDA_ERROR_INVALID_HANDLE, "unknown stream");
    const char *why = model_check_range((uintptr_t)ptr, size, write, 1);
    if (why) return model_violation(&call, CUDA_ERROR_ILLEGAL_ADDRESS, "%s", why);
    size_t where = 0;
    why = multicast_unbound((uintptr_t)ptr, size, &where);
    if (why)
        return model_violation(&call, CUDA_ERROR_ILLEGAL_ADDRESS, "byte %zu of the multicast object: %s", where, why);
    model_order_queue(stream);
    model_work *w = calloc(1, sizeof *w);
    if (w) {
        w->stream = stream;
        w->ptr = (uintptr_t)ptr;
        w->size = size;
        model_list_push(&model.work, &w->node);
    }
    return model_leave(&call, CUDA_SUCCESS);
}

void model_work_done(CUstream stream, int every_stream)
{
    model_node *n = model.work;
    while (n) {
        model_work *w = (model_work *)n;
        n = n->next;
        if (every_stream || w->stream == stream) {
            model_list_remove(&model.work, &w->node);
            free(w);
        }
    }
}

const model_work *model_work_overlapping(uintptr_t ptr, size_t size)
{
    for (model_node *n = model.work; n; n = n->next) {
        const model_work *w = (const model_work *)n;
        if (w->ptr < ptr + size && ptr < w->ptr + w->size) return w;
    }
    return NULL;
}
