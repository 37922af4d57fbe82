/* Memory the user brings to mcoll: handles retained from VMM mappings, CUDA IPC of cuMemAlloc
 * buffers, and imported external memory (an opaque POSIX fd of an allocation of this model).
 *
 * Device buffers are memfd mappings, so an IPC handle names the exporter's pid and fd and the
 * importer opens /proc/<pid>/fd/<fd>, as fabric handles do (shareable.c). Rules kept:
 *   cuMemRetainAllocationHandle  the address is mapped; the handle is the one mapped there, and
 *                                each retain is released by one cuMemRelease;
 *   cuIpcGetMemHandle            the base of a cuMemAlloc buffer (not VMM, not an opened one);
 *   cuIpcOpenMemHandle           flags CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS; another process's
 *                                handle, of this node, still allocated there (else INVALID_HANDLE); opening
 *                                one handle again gives the same pointer and counts; a handle
 *                                of an allocation whose range in the exporter overlaps that of
 *                                an older one of the same exporter, freed there but still open
 *                                here, is refused with ALREADY_MAPPED (the older one must be
 *                                closed first: what the driver does when memory is freed and
 *                                allocated again at the same address);
 *   cuIpcCloseMemHandle          a pointer cuIpcOpenMemHandle returned, once per open;
 *   cuImportExternalMemory       OPAQUE_FD, flags 0 or DEDICATED, size > 0 and within the
 *                                object; the fd becomes the driver's;
 *   cuExternalMemoryGetMappedBuffer  a live object (else INVALID_HANDLE), flags 0, size > 0,
 *                                offset + size within it, offset a multiple of the exporter's
 *                                allocation MINIMUM granularity (what cuMemCreate memory needs);
 *                                the buffer is freed with cuMemFree;
 *   cuDestroyExternalMemory      a live object, after its buffers were freed. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "model.h"

#define IPC_MAGIC 0x4d434f4c4c495043ULL /* "MCOLLIPC" */

/* What a CUipcMemHandle carries in this model (64 bytes). */
typedef struct {
    uint64_t magic;
    uint32_t pid;
    int32_t fd;
    uint64_t size;
    uint64_t dev, ino;
    int32_t device;
    int32_t node;                  /* the exporter's modelled node */
    uint64_t base;                 /* the allocation's address in the exporter */
} ipc_record;
_Static_assert(sizeof(ipc_record) <= sizeof(CUipcMemHandle), "IPC record must fit in the handle");

typedef struct external_object {
    model_node node;
    int fd;
    size_t size;                   /* bytes the importer declared */
    model_object_header *header;
} external_object;

static model_node *externals;

static size_t page_round(size_t n)
{
    size_t page = model_page_size();
    return (n + page - 1) / page * page;
}

model_buffer *model_shared_buffer(int fd, size_t offset, size_t size, int device, int origin)
{
    model_buffer *b = calloc(1, sizeof *b);
    if (!b) return NULL;
    if (fd < 0) {
        fd = memfd_create("mcoll-contract-device-memory", MFD_CLOEXEC);
        if (fd >= 0 && ftruncate(fd, (off_t)page_round(size)) != 0) {
            close(fd);
            fd = -1;
        }
    }
    /* A number reused from a closed exported fd no longer names that export. */
    if (fd >= 0) model_forget_exported_fd(fd);
    void *at = fd < 0 ? MAP_FAILED
                      : mmap(NULL, page_round(size), PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)offset);
    if (at == MAP_FAILED) {
        if (fd >= 0) close(fd);
        free(b);
        return NULL;
    }
    b->ptr = (uintptr_t)at;
    b->size = size;
    b->device = device;
    b->fd = fd;
    b->origin = origin;
    b->buffer_id = model_new_buffer_id();
    model_list_push(&model.device_buffers, &b->node);
    return b;
}

void model_shared_buffer_free(model_buffer *b)
{
    model_list_remove(&model.device_buffers, &b->node);
    munmap((void *)b->ptr, page_round(b->size));
    close(b->fd);
    free(b);
}

static model_buffer *device_buffer_at(uintptr_t ptr)
{
    for (model_node *n = model.device_buffers; n; n = n->next) {
        model_buffer *b = (model_buffer *)n;
        if (b->ptr == ptr) return b;
    }
    return NULL;
}

CUresult model_cuMemRetainAllocationHandle(CUmemGenericAllocationHandle *handle, void *addr)
{
    model_call call;
    CUresult rc = model_enter(&call, MODEL_cuMemRetainAllocationHandle, 1, "addr=%p", addr);
    if (rc != CUDA_SUCCESS) return rc;
    if (!handle) return model_violation(&call, CUDA_ERROR_INVALID_VALUE, "handle is NULL");
    model_mapping *m = model_find_mapping((uintptr_t)addr);
    if (!m || m->kind != MODEL_KIND_ALLOCATION)
        return model_violation(&call, CUDA_ERROR_INVALID_VALUE, "addr is not mapped memory of cuMemCreate");
    const char *why = NULL;
    model_handle *h = model_find_handle(m->handle, &why);
    if (model_injecting(&call)) return model_leave(&call, call.inject);
    /* The driver keeps the allocation alive after its handle's release; this model does not
     * (a limitation, not a rule): the caller must still hold the handle it mapped. */
    if (!h) return model_leave(&call, CUDA_ERROR_INVALID_VALUE);
    h->retains++;
    *handle = h->value;
    return model_leave(&call, CUDA_SUCCESS);
}

CUresult model_cuIpcGetMemHandle(CUipcMemHandle *handle, CUdeviceptr dptr)
{
    model_call call;
    CUresult rc = model_enter(&call, MODEL_cuIpcGetMemHandle, 1, "dptr=%#llx", (unsigned long long)dptr);
    if (rc != CUDA_SUCCESS) return rc;
    if (!handle) return model_violation(&call, CUDA_ERROR_INVALID_VALUE, "pHandle is NULL");
    model_buffer *b = device_buffer_at((uintptr_t)dptr);
    if (!b || b->origin != MODEL_BUFFER_ALLOCATED)
        return model_violation(&call, CUDA_ERROR_INVALID_VALUE,
                               "dptr is not the base of a cuMemAlloc allocation (VMM memory has no IPC handle)");
    struct stat st;
    if (fstat(b->fd, &st) != 0) return model_leave(&call, CUDA_ERROR_OPERATING_SYSTEM);
    if (model_injecting(&call)) return model_leave(&call, call.inject);
    ipc_record r = {IPC_MAGIC, (uint32_t)getpid(), b->fd, b->size, (uint64_t)st.st_dev, (uint64_t)st.st_ino,
                    b->device, model_this_node(), (uint64_t)b->ptr};
    memset(handle, 0, sizeof *handle);
    memcpy(handle, &r, sizeof r);
    return model_leave(&call, CUDA_SUCCESS);
}

CUresult model_cuIpcOpenMemHandle(CUdeviceptr *dptr, CUipcMemHandle handle, unsigned int flags)
{
    model_call call;
    ipc_record r;
    memcpy(&r, &handle, sizeof r);
    CUresult rc = model_enter(&call, MODEL_cuIpcOpenMemHandle, 1, "pid=%u, fd=%d, flags=%u", r.pid, r.fd, flags);
    if (rc != CUDA_SUCCESS) return rc;
    if (!dptr) return model_violation(&call, CUDA_ERROR_INVALID_VALUE, "pdptr is NULL");
    if (flags != CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS)
        return model_violation(&call, CUDA_ERROR_INVALID_VALUE, "flags must be CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS");
    if (r.magic != IPC_MAGIC)
        return model_violation(&call, CUDA_ERROR_INVALID_VALUE, "not a handle of cuIpcGetMemHandle");
    if (r.node != model_this_node())
        return model_violation(&call, CUDA_ERROR_INVALID_VALUE,
                               "a CUDA IPC handle does not cross nodes: exported on node %d, opened on "
                               "node %d", r.node, model_this_node());
    if (r.pid == (uint32_t)getpid())
        return model_violation(&call, CUDA_ERROR_INVALID_CONTEXT,
                               "a process cannot open its own IPC handle (use the pointer itself)");
    if (model_current_device() < 0)
        return model_violation(&call, CUDA_ERROR_INVALID_CONTEXT, "no current context");
    for (model_node *n = model.device_buffers; n; n = n->next) {
        model_buffer *b = (model_buffer *)n;
        if (b->origin != MODEL_BUFFER_IPC_OPENED) continue;
        if (b->dev == r.dev && b->ino == r.ino) {
            if (model_injecting(&call)) return model_leave(&call, call.inject);
            b->opens++;  /* opened before: the same pointer, one more reference */
            *dptr = (CUdeviceptr)b->ptr;
            return model_leave(&call, CUDA_SUCCESS);
        }
        if (b->ipc_pid == r.pid && b->ipc_base < r.base + r.size && r.base < b->ipc_base + b->size)
            return model_leave(&call, CUDA_ERROR_ALREADY_MAPPED);
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/%u/fd/%d", r.pid, r.fd);
    int fd = open(path, O_RDWR | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || (uint64_t)st.st_dev != r.dev || (uint64_t)st.st_ino != r.ino) {
        if (fd >= 0) close(fd);
        /* The exporter freed the buffer (or exited): a stale handle, which the driver reports. */
        return model_leave(&call, CUDA_ERROR_INVALID_HANDLE);
    }
    if (model_injecting(&call)) {
        close(fd);
        return model_leave(&call, call.inject);
    }
    model_buffer *b = model_shared_buffer(fd, 0, r.size, model_current_device(), MODEL_BUFFER_IPC_OPENED);
    if (!b) return model_leave(&call, CUDA_ERROR_MAP_FAILED);
    b->opens = 1;
    b->dev = r.dev;
    b->ino = r.ino;
    b->ipc_pid = r.pid;
    b->ipc_base = r.base;
    *dptr = (CUdeviceptr)b->ptr;
    return model_leave(&call, CUDA_SUCCESS);
}

CUresult model_cuIpcCloseMemHandle(CUdeviceptr dptr)
{
    model_call call;
    CUresult rc = model_enter(&call, MODEL_cuIpcCloseMemHandle, 1, "dptr=%#llx", (unsigned long long)dptr);
    if (rc != CUDA_SUCCESS) return rc;
    model_buffer *b = device_buffer_at((uintptr_t)dptr);
    if (!b || b->origin != MODEL_BUFFER_IPC_OPENED)
        return model_violation(&call, CUDA_ERROR_INVALID_VALUE, "dptr was not returned by cuIpcOpenMemHandle");
    if (model_injecting(&call)) return model_leave(&call, call.inject);
    if (--b->opens == 0) model_shared_buffer_free(b);
    return model_leave(&call, CUDA_SUCCESS);
}

static external_object *find_external(CUexternalMemory ext)
{
    for (model_node *n = externals; n; n = n->next)
        if ((CUexternalMemory)n == ext) return (external_object *)n;
    return NULL;
}

CUresult model_cuImportExternalMemory(CUexternalMemory *ext, const CUDA_EXTERNAL_MEMORY_HANDLE_DESC *desc)
{
    model_call call;
    CUresult rc = model_enter(&call, MODEL_cuImportExternalMemory, 1, "type=%d, fd=%d, size=%llu, flags=%u",
                              desc ? (int)desc->type : -1, desc ? desc->handle.fd : -1,
                              desc ? desc->size : 0ULL, desc ? desc->flags : 0u);
    if (rc != CUDA_SUCCESS) return rc;
    if (!ext || !desc) return model_violation(&call, CUDA_ERROR_INVALID_VALUE, "extMem_out or memHandleDesc is NULL");
    if (desc->type != CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD)
        return model_violation(&call, CUDA_ERROR_INVALID_VALUE, "only OPAQUE_FD handles are modelled");
    if (desc->flags & ~(unsigned)CUDA_EXTERNAL_MEMORY_DEDICATED)
        return model_violation(&call, CUDA_ERROR_INVALID_VALUE, "flags must be 0 or CUDA_EXTERNAL_MEMORY_DEDICATED");
    if (desc->size == 0) return model_violation(&call, CUDA_ERROR_INVALID_VALUE, "size is 0");
    if (model_current_device() < 0)
        return model_violation(&call, CUDA_ERROR_INVALID_CONTEXT, "no current context");
    struct stat st;
    model_object_header *header = MAP_FAILED;
    if (fstat(desc->handle.fd, &st) == 0 && S_ISREG(st.st_mode) && (size_t)st.st_size >= model_page_size())
        header = mmap(NULL, model_page_size(), PROT_READ | PROT_WRITE, MAP_SHARED, desc->handle.fd, 0);
    if (header == MAP_FAILED || header->kind != MODEL_KIND_ALLOCATION) {
        if (header != MAP_FAILED) munmap(header, model_page_size());
        return model_violation(&call, CUDA_ERROR_INVALID_VALUE,
                               "fd does not name memory exported by cuMemExportToShareableHandle");
    }
    if (desc->size > header->size) {
        unsigned long long have = header->size;
        munmap(header, model_page_size());
        return model_violation(&call, CUDA_ERROR_INVALID_VALUE, "size is larger than the object (%llu bytes)", have);
    }
    external_object *o = calloc(1, sizeof *o);
    if (model_injecting(&call) || !o) {
        free(o);
        munmap(header, model_page_size());
        return model_leave(&call, o ? call.inject : CUDA_ERROR_OUT_OF_MEMORY);
    }
    o->fd = desc->handle.fd;  /* the driver owns it from here */
    o->size = desc->size;
    o->header = header;
    model_list_push(&externals, &o->node);
    *ext = (CUexternalMemory)o;
    return model_leave(&call, CUDA_SUCCESS);
}

CUresult model_cuExternalMemoryGetMappedBuffer(CUdeviceptr *dptr, CUexternalMemory ext,
                                               const CUDA_EXTERNAL_MEMORY_BUFFER_DESC *desc)
{
    model_call call;
    CUresult rc = model_enter(&call, MODEL_cuExternalMemoryGetMappedBuffer, 1,
                              "extMem=%p, offset=%llu, size=%llu, flags=%u", (void *)ext, desc ? desc->offset : 0ULL, desc ? desc->size : 0ULL,
                              desc ? desc->flags : 0u);
    if (rc != CUDA_SUCCESS) return rc;
    if (!dptr || !desc) return model_violation(&call, CUDA_ERROR_INVALID_VALUE, "devPtr or bufferDesc is NULL");
    external_object *o = find_external(ext);
    if (!o) return model_violation(&call, CUDA_ERROR_INVALID_HANDLE, "extMem is not a live external memory object");
    if (desc->flags != 0) return model_violation(&call, CUDA_ERROR_INVALID_VALUE, "flags must be 0");
    if (desc->size == 0 || desc->offset > o->size || desc->size > o->size - desc->offset)
        return model_violation(&call, CUDA_ERROR_INVALID_VALUE, "[offset, offset+size) is not inside the object");
    if (desc->offset % model.config.alloc_granularity_minimum != 0)
        return model_violation(&call, CUDA_ERROR_INVALID_VALUE,
                               "offset is not aligned as the exporter requires (its allocation granularity)");
    if (model_injecting(&call)) return model_leave(&call, call.inject);
    int fd = dup(o->fd);
    model_buffer *b = fd < 0 ? NULL
                             : model_shared_buffer(fd, model_page_size() + desc->offset, desc->size,
                                                   model_current_device(), MODEL_BUFFER_EXTERNAL);
    if (!b) return model_leave(&call, CUDA_ERROR_OUT_OF_MEMORY);
    b->ino = (unsigned long long)(uintptr_t)o;  /* which object, for cuDestroyExternalMemory */
    *dptr = (CUdeviceptr)b->ptr;
    return model_leave(&call, CUDA_SUCCESS);
}

CUresult model_cuDestroyExternalMemory(CUexternalMemory ext)
{
    model_call call;
    CUresult rc = model_enter(&call, MODEL_cuDestroyExternalMemory, 1, "extMem=%p", (void *)ext);
    if (rc != CUDA_SUCCESS) return rc;
    external_object *o = find_external(ext);
    if (!o) return model_violation(&call, CUDA_ERROR_INVALID_HANDLE, "extMem is not a live external memory object");
    int live = 0;
    for (model_node *n = model.device_buffers; n; n = n->next) {
        model_buffer *b = (model_buffer *)n;
        live += b->origin == MODEL_BUFFER_EXTERNAL && b->ino == (unsigned long long)(uintptr_t)o;
    }
    if (live)
        return model_violation(&call, CUDA_ERROR_INVALID_VALUE,
                               "%d mapped buffers of the object are not freed: cuMemFree them first", live);
    if (model_injecting(&call)) return model_leave(&call, call.inject);
    model_list_remove(&externals, &o->node);
    munmap(o->header, model_page_size());
    close(o->fd);
    free(o);
    return model_leave(&call, CUDA_SUCCESS);
}
