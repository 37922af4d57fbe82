/* Classify a user's buffer for peers to map, from its pointer attributes, and export it. */
#define _POSIX_C_SOURCE 200809L /* gethostname */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "checks.h"
#include "user_buffer.h"

typedef struct {
    unsigned memory_type;
    int device, managed, legacy_ipc;
    unsigned long long buffer_id, handle_types;
    CUdeviceptr range_start, mapping_base;
    size_t range_size, mapping_size;
} pointer_facts;

static mcoll_result ask_driver(const void *ptr, pointer_facts *f)
{
    CUpointer_attribute attrs[] = {
        CU_POINTER_ATTRIBUTE_MEMORY_TYPE,         CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
        CU_POINTER_ATTRIBUTE_IS_MANAGED,          CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE,
        CU_POINTER_ATTRIBUTE_BUFFER_ID,           CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES,
        CU_POINTER_ATTRIBUTE_RANGE_START_ADDR,    CU_POINTER_ATTRIBUTE_RANGE_SIZE,
        CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR,   CU_POINTER_ATTRIBUTE_MAPPING_SIZE,
    };
    void *data[] = {&f->memory_type,  &f->device,       &f->managed,     &f->legacy_ipc,   &f->buffer_id,
                    &f->handle_types, &f->range_start,  &f->range_size,  &f->mapping_base, &f->mapping_size};
    memset(f, 0, sizeof *f);
    f->device = -1;
    CU_RETURN(cuPointerGetAttributes(sizeof attrs / sizeof attrs[0], attrs, data, (CUdeviceptr)(uintptr_t)ptr));
    return MCOLL_SUCCESS;
}

/* This process as peers name it: its pid, and its host (a hash of the name, FNV-1a), since pids
 * repeat across nodes. Worked out once per process (a fork works them out again): both are
 * system calls, and every call through MPI that maps its buffers describes them. */
static struct {
    int32_t pid;
    uint64_t host;
} self;
static pthread_once_t self_once = PTHREAD_ONCE_INIT;

static void learn_self(void)
{
    char name[256] = "";
    uint64_t h = 1469598103934665603ull;
    size_t i;
    gethostname(name, sizeof name - 1);
    for (i = 0; name[i]; i++) h = (h ^ (unsigned char)name[i]) * 1099511628211ull;
    self.host = h;
    self.pid = (int32_t)getpid();
}

/* A forked child (one thread, then) learns its own pid at once. */
static void first_time(void)
{
    learn_self();
    pthread_atfork(NULL, NULL, learn_self);
}

static void know_self(void) { pthread_once(&self_once, first_time); }

/* 1 when [p, p + n) lies in [base, base + size). */
static int inside(uintptr_t p, size_t n, CUdeviceptr base, size_t size)
{
    return p >= base && p - base <= size && n <= size - (p - base);
}

mcoll_result mcoll_user_buffer_describe(int device, CUmemAllocationHandleType vmm_type, int nodes, const void *ptr,
                                        size_t bytes, mcoll_user_buffer *out, char *why, size_t why_len)
{
    const uintptr_t p = (uintptr_t)ptr;
    pointer_facts f;
    memset(out, 0, sizeof *out);
    MC_RETURN(ask_driver(ptr, &f));
    if (f.memory_type != CU_MEMORYTYPE_DEVICE || f.managed) {
        snprintf(why, why_len, "%p is %s memory; only device memory can be mapped by peers", ptr,
                 f.managed ? "managed" : "host");
        return MCOLL_ERR_INVALID_ARG;
    }
    if (f.device != device) {
        snprintf(why, why_len, "%p is memory of GPU %d, the communicator's is %d", ptr, f.device, device);
        return MCOLL_ERR_INVALID_ARG;
    }
    know_self();
    out->pid = self.pid;
    out->host = self.host;
    out->buffer_id = f.buffer_id;
    out->bytes = bytes;
    if (f.legacy_ipc) {
        out->kind = MCOLL_USER_IPC;
        out->base = f.range_start;
        out->size = f.range_size;
    } else if (f.mapping_size) {
        out->kind = MCOLL_USER_VMM;
        out->base = f.mapping_base;
        out->size = f.mapping_size;
    } else {
        snprintf(why, why_len, "%p is device memory that peers cannot map (neither cudaMalloc nor cuMemCreate memory)",
                 ptr);
        return MCOLL_ERR_UNSUPPORTED;
    }
    if (!inside(p, bytes, out->base, out->size)) {
        snprintf(why, why_len, "[%p, +%zu) runs past the end of its allocation (%zu bytes at %#llx): a range must lie "
                 "in one allocation", ptr, bytes, (size_t)out->size, (unsigned long long)out->base);
        return MCOLL_ERR_INVALID_ARG;
    }
    if (out->kind == MCOLL_USER_VMM && !(f.handle_types & (unsigned long long)vmm_type)) {
        snprintf(why, why_len, "%p is cuMemCreate memory without the handle type the team shares (%s): create it "
                 "with that type in requestedHandleTypes", ptr,
                 vmm_type == CU_MEM_HANDLE_TYPE_FABRIC ? "fabric" : "POSIX file descriptor");
        return MCOLL_ERR_UNSUPPORTED;
    }
    if (out->kind == MCOLL_USER_IPC && nodes > 1) {
        snprintf(why, why_len, "%p is cudaMalloc memory, which peers on other nodes cannot map (CUDA IPC stays on "
                 "one node); use mcoll_mem_alloc, or cuMemCreate memory with fabric handles", ptr);
        return MCOLL_ERR_UNSUPPORTED;
    }
    out->offset = p - out->base;
    return MCOLL_SUCCESS;
}

/* IPC handles made so far, by buffer id (unique in the process, never reused). */
#define EXPORTED_MAX 64
static struct {
    uint64_t buffer_id, base;
    CUipcMemHandle ipc;
} exported[EXPORTED_MAX];
static unsigned exported_next;
static pthread_mutex_t exported_lock = PTHREAD_MUTEX_INITIALIZER;

static int exported_find(mcoll_user_buffer *buffer)
{
    int i, found = 0;
    pthread_mutex_lock(&exported_lock);
    for (i = 0; i < EXPORTED_MAX && !found; i++)
        if (exported[i].buffer_id == buffer->buffer_id && exported[i].base == buffer->base && buffer->buffer_id) {
            buffer->ipc = exported[i].ipc;
            found = 1;
        }
    pthread_mutex_unlock(&exported_lock);
    return found;
}

static void exported_keep(const mcoll_user_buffer *buffer)
{
    pthread_mutex_lock(&exported_lock);
    exported[exported_next].buffer_id = buffer->buffer_id;
    exported[exported_next].base = buffer->base;
    exported[exported_next].ipc = buffer->ipc;
    exported_next = (exported_next + 1) % EXPORTED_MAX;
    pthread_mutex_unlock(&exported_lock);
}

mcoll_result mcoll_user_buffer_export(mcoll_user_buffer *buffer)
{
    if (buffer->kind != MCOLL_USER_IPC || exported_find(buffer)) return MCOLL_SUCCESS;
    if (!mcoll_cu.cuIpcGetMemHandle) return MCOLL_ERR_UNSUPPORTED;
    CU_RETURN(cuIpcGetMemHandle(&buffer->ipc, (CUdeviceptr)buffer->base));
    exported_keep(buffer);
    return MCOLL_SUCCESS;
}

mcoll_result mcoll_user_buffer_share(mcoll_user_buffer *buffer, const void *ptr, CUmemGenericAllocationHandle *retained,
                                     int *have_retained)
{
    *have_retained = 0;
    if (buffer->kind == MCOLL_USER_IPC) return mcoll_user_buffer_export(buffer);
    if (!mcoll_cu.cuMemRetainAllocationHandle) return MCOLL_ERR_UNSUPPORTED;
    CU_RETURN(cuMemRetainAllocationHandle(retained, (void *)(uintptr_t)ptr));
    *have_retained = 1;
    return MCOLL_SUCCESS;
}
