/* Imported external memory (shared/seeds/004, cudaExternalMemoryGetMappedBuffer, and its driver
 * form): the object is imported once (cuImportExternalMemory, the fd becomes the driver's) and
 * ONE buffer is mapped over the whole range the caller asked for, flags 0; a caller who needs
 * several buffers derives them from that pointer rather than mapping overlapping ranges, whose
 * aliases would need volatile accesses. Release frees the buffer (cuMemFree, the driver form of
 * cudaFree) before destroying the object. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "checks.h"
#include "import.h"

typedef struct imported {
    struct imported *next;
    CUexternalMemory object;
    CUdeviceptr ptr;
} imported;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static imported *list;

/* The driver's answers as mcoll results, with the likely cause named. */
static mcoll_result explain(const char *call, CUresult rc)
{
    switch (rc) {
    case CUDA_ERROR_INVALID_HANDLE:
        MCOLL_WARN("%s: not a live external memory object (%s): destroyed already, or the fd was not exportable memory",
                   call, mcoll_cu_errname(rc));
        return MCOLL_ERR_INVALID_ARG;
    case CUDA_ERROR_INVALID_VALUE:
        MCOLL_WARN("%s: %s: the fd must be an opaque POSIX descriptor of exportable memory, size its whole size, and "
                   "offset and bytes aligned as the exporter requires (cuMemCreate memory: its allocation granularity)",
                   call, mcoll_cu_errname(rc));
        return MCOLL_ERR_INVALID_ARG;
    case CUDA_ERROR_OUT_OF_MEMORY:
        MCOLL_WARN("%s: %s", call, mcoll_cu_errname(rc));
        return MCOLL_ERR_NO_MEMORY;
    default:
        MCOLL_WARN("%s: %s", call, mcoll_cu_errname(rc));
        return MCOLL_ERR_CUDA;
    }
}

mcoll_result mcoll_external_import(int fd, size_t size, size_t offset, size_t bytes, void **ptr)
{
    CUDA_EXTERNAL_MEMORY_HANDLE_DESC handle;
    CUDA_EXTERNAL_MEMORY_BUFFER_DESC buffer;
    CUcontext current = NULL;
    imported *entry;
    CUresult rc;

    if (!ptr || fd < 0 || !bytes || offset > size || bytes > size - offset) return MCOLL_ERR_INVALID_ARG;
    *ptr = NULL;
    if (mcoll_driver_load() != MCOLL_SUCCESS || !mcoll_cu.cuImportExternalMemory) return MCOLL_ERR_NO_DEVICE;
    if (mcoll_cu.cuCtxGetCurrent(&current) != CUDA_SUCCESS || !current) {
        MCOLL_WARN("mcoll_mem_import_external: no current CUDA context: call cudaSetDevice first");
        return MCOLL_ERR_NO_DEVICE;
    }
    entry = calloc(1, sizeof *entry);
    if (!entry) return MCOLL_ERR_NO_MEMORY;
    memset(&handle, 0, sizeof handle);
    handle.type = CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD;
    /* The driver takes the descriptor it imports; it gets a duplicate, so the caller's stays
     * the caller's whatever happens. */
    handle.handle.fd = dup(fd);
    handle.size = size;
    if (handle.handle.fd < 0) {
        free(entry);
        MCOLL_WARN("mcoll_mem_import_external: fd %d cannot be duplicated", fd);
        return MCOLL_ERR_INVALID_ARG;
    }
    rc = mcoll_cu.cuImportExternalMemory(&entry->object, &handle);
    if (rc != CUDA_SUCCESS) {
        close(handle.handle.fd);
        free(entry);
        return explain("cuImportExternalMemory", rc);
    }
    memset(&buffer, 0, sizeof buffer);
    buffer.offset = offset;
    buffer.size = bytes;
    buffer.flags = 0;
    rc = mcoll_cu.cuExternalMemoryGetMappedBuffer(&entry->ptr, entry->object, &buffer);
    if (rc != CUDA_SUCCESS) {
        CU_WARN(cuDestroyExternalMemory(entry->object));
        free(entry);
        return explain("cuExternalMemoryGetMappedBuffer", rc);
    }
    pthread_mutex_lock(&lock);
    entry->next = list;
    list = entry;
    pthread_mutex_unlock(&lock);
    *ptr = (void *)(uintptr_t)entry->ptr;
    MCOLL_INFO("imported %zu bytes of external memory (offset %zu of %zu) at %p", bytes, offset, size, *ptr);
    return MCOLL_SUCCESS;
}

mcoll_result mcoll_external_release(void *ptr)
{
    imported **link, *entry = NULL;
    mcoll_result rc = MCOLL_SUCCESS;
    CUresult cu;
    pthread_mutex_lock(&lock);
    for (link = &list; *link; link = &(*link)->next)
        if ((*link)->ptr == (CUdeviceptr)(uintptr_t)ptr) {
            entry = *link;
            *link = entry->next;
            break;
        }
    pthread_mutex_unlock(&lock);
    if (!entry) {
        MCOLL_WARN("mcoll_mem_release_external: %p is not imported external memory (released twice?)", ptr);
        return MCOLL_ERR_INVALID_ARG;
    }
    cu = mcoll_cu.cuMemFree(entry->ptr);
    if (cu != CUDA_SUCCESS) rc = explain("cuMemFree", cu);
    cu = mcoll_cu.cuDestroyExternalMemory(entry->object);
    if (cu != CUDA_SUCCESS && rc == MCOLL_SUCCESS) rc = explain("cuDestroyExternalMemory", cu);
    free(entry);
    return rc;
}
