/* Pointer classification with a per-thread cache keyed by allocation range (see classify.h). */
#include <stdint.h>
#include <string.h>
#include "classify.h"
#include "driver.h"
#include "log.h"

typedef struct {
    uintptr_t start, end;     /* allocation range; end == 0: empty slot */
    unsigned long long id;    /* CU_POINTER_ATTRIBUTE_BUFFER_ID */
    mcoll_mem_kind kind;
    int device;
} cache_entry;

static _Thread_local cache_entry cache[MCOLL_CLASSIFY_SLOTS];
static _Thread_local unsigned next_slot;
static _Thread_local mcoll_classify_stats stats;
static int warned;

/* The cached entry holding p, confirmed by its buffer id, or NULL. A stale entry is dropped. */
static const cache_entry *lookup(uintptr_t p)
{
    int i;
    for (i = 0; i < MCOLL_CLASSIFY_SLOTS; i++) {
        cache_entry *e = &cache[i];
        unsigned long long id = 0;
        if (!e->end || p < e->start || p >= e->end) continue;
        stats.validations++;
        if (mcoll_cu.cuPointerGetAttribute(&id, CU_POINTER_ATTRIBUTE_BUFFER_ID, (CUdeviceptr)p) == CUDA_SUCCESS &&
            id == e->id) {
            stats.hits++;
            return e;
        }
        e->end = 0;
        return NULL;
    }
    return NULL;
}

mcoll_mem_kind mcoll_classify(const void *ptr, int *device)
{
    CUpointer_attribute attrs[6] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                                    CU_POINTER_ATTRIBUTE_BUFFER_ID, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR,
                                    CU_POINTER_ATTRIBUTE_RANGE_SIZE, CU_POINTER_ATTRIBUTE_IS_MANAGED};
    /* Zeroed first: the driver leaves the defaults of a host pointer, and writes a bool into
     * IS_MANAGED on some versions. */
    unsigned int mem_type = 0, managed = 0;
    int ordinal = -1;
    unsigned long long id = 0;
    CUdeviceptr start = 0;
    size_t range = 0;
    void *data[6] = {&mem_type, &ordinal, &id, &start, &range, &managed};
    uintptr_t p = (uintptr_t)ptr;
    const cache_entry *hit;
    mcoll_mem_kind kind;
    CUresult rc;

    *device = -1;
    if (!ptr || !mcoll_driver_available()) return MCOLL_MEM_HOST;
    hit = lookup(p);
    if (hit) {
        *device = hit->device;
        return hit->kind;
    }

    stats.full_queries++;
    rc = mcoll_cu.cuPointerGetAttributes(6, attrs, data, (CUdeviceptr)p);
    if (rc != CUDA_SUCCESS) {
        /* Not expected (host pointers succeed with default values); the memory is taken as host
         * memory, which is right for every pointer the driver does not know. */
        if (!warned) {
            warned = 1;
            MCOLL_WARN("cuPointerGetAttributes failed (%s): such buffers are taken as host memory", mcoll_cu_errname(rc));
        }
        return MCOLL_MEM_HOST;
    }
    if (managed) kind = MCOLL_MEM_MANAGED;
    else if (mem_type == CU_MEMORYTYPE_DEVICE || mem_type == CU_MEMORYTYPE_ARRAY) kind = MCOLL_MEM_DEVICE;
    else kind = MCOLL_MEM_HOST;
    if (kind != MCOLL_MEM_HOST) *device = ordinal;

    if (id && range && start) {
        cache_entry *e = &cache[next_slot++ % MCOLL_CLASSIFY_SLOTS];
        e->start = (uintptr_t)start;
        e->end = (uintptr_t)start + range;
        e->id = id;
        e->kind = kind;
        e->device = *device;
    }
    return kind;
}

void mcoll_classify_forget(void)
{
    memset(cache, 0, sizeof cache);
    next_slot = 0;
}

void mcoll_classify_get_stats(mcoll_classify_stats *out) { *out = stats; }
