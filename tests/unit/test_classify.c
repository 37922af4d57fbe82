/* Pointer classification with a fake driver table: host, device, managed and pinned memory,
 * the per-thread cache (a hit costs one BUFFER_ID query), an address freed and reused by a new
 * allocation (new buffer id) or by host memory, eviction, and no driver at all (host, no call). */
#include <stdint.h>
#include <string.h>
#include "classify.h"
#include "driver.h"
#include "mcoll.h"
#include "unit.h"

typedef struct {
    uintptr_t start;
    size_t size;
    unsigned long long id;
    unsigned type;       /* CUmemorytype */
    int managed, device, live;
} fake_alloc;

static fake_alloc allocs[32];
static long calls_multi, calls_single;

static fake_alloc *find(uintptr_t p)
{
    int i;
    for (i = 0; i < 32; i++)
        if (allocs[i].live && p >= allocs[i].start && p < allocs[i].start + allocs[i].size) return &allocs[i];
    return NULL;
}

static CUresult fake_init(unsigned int flags) { (void)flags; return CUDA_SUCCESS; }

/* As the driver documents: unknown (host) pointers succeed with default values. */
static CUresult fake_get_attributes(unsigned int n, CUpointer_attribute *attrs, void **data, CUdeviceptr ptr)
{
    fake_alloc *a = find((uintptr_t)ptr);
    unsigned i;
    calls_multi++;
    for (i = 0; i < n; i++) {
        switch (attrs[i]) {
        case CU_POINTER_ATTRIBUTE_MEMORY_TYPE: *(unsigned *)data[i] = a ? a->type : 0; break;
        case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL: *(int *)data[i] = a ? a->device : -2; break;
        case CU_POINTER_ATTRIBUTE_BUFFER_ID: *(unsigned long long *)data[i] = a ? a->id : 0; break;
        case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR: *(CUdeviceptr *)data[i] = a ? a->start : 0; break;
        case CU_POINTER_ATTRIBUTE_RANGE_SIZE: *(size_t *)data[i] = a ? a->size : 0; break;
        case CU_POINTER_ATTRIBUTE_IS_MANAGED: *(int *)data[i] = a ? a->managed : 0; break;
        default: return CUDA_ERROR_INVALID_VALUE;
        }
    }
    return CUDA_SUCCESS;
}

/* ... while the single-attribute form fails on them. */
static CUresult fake_get_attribute(void *data, CUpointer_attribute attr, CUdeviceptr ptr)
{
    fake_alloc *a = find((uintptr_t)ptr);
    calls_single++;
    if (attr != CU_POINTER_ATTRIBUTE_BUFFER_ID) return CUDA_ERROR_INVALID_VALUE;
    if (!a) return CUDA_ERROR_INVALID_VALUE;
    *(unsigned long long *)data = a->id;
    return CUDA_SUCCESS;
}

static fake_alloc *add(int slot, uintptr_t start, size_t size, unsigned long long id, unsigned type, int managed)
{
    fake_alloc *a = &allocs[slot];
    a->start = start;
    a->size = size;
    a->id = id;
    a->type = type;
    a->managed = managed;
    a->device = slot % 4;
    a->live = 1;
    return a;
}

static mcoll_classify_stats stats(void)
{
    mcoll_classify_stats s;
    mcoll_classify_get_stats(&s);
    return s;
}

int main(void)
{
    static mcoll_driver table;
    mcoll_classify_stats s0, s1;
    uintptr_t A = 0x7f0000000000u, host = 0x55550000u;
    int dev, i;

    /* No driver loaded: host, and the table is not even looked at. */
    CHECK(!mcoll_driver_available());
    CHECK(mcoll_classify((void *)A, &dev) == MCOLL_MEM_HOST && dev == -1);
    s0 = stats();
    CHECK(s0.full_queries == 0 && s0.validations == 0);

    memset(&table, 0, sizeof table);
    table.cuInit = fake_init;
    table.cuPointerGetAttributes = fake_get_attributes;
    table.cuPointerGetAttribute = fake_get_attribute;
    mcoll_driver_install(&table);
    CHECK(mcoll_driver_load() == MCOLL_SUCCESS && mcoll_driver_available());

    /* NULL is host without a query */
    CHECK(mcoll_classify(NULL, &dev) == MCOLL_MEM_HOST && calls_multi == 0 && calls_single == 0);

    /* Pageable host memory: a full query each time (nothing to cache) */
    CHECK(mcoll_classify((void *)host, &dev) == MCOLL_MEM_HOST && dev == -1);
    CHECK(mcoll_classify((void *)host, &dev) == MCOLL_MEM_HOST);
    CHECK(calls_multi == 2 && calls_single == 0);

    /* Device memory: one full query, then hits validated by buffer id */
    add(1, A, 1 << 20, 7, CU_MEMORYTYPE_DEVICE, 0);
    s0 = stats();
    CHECK(mcoll_classify((void *)(A + 100), &dev) == MCOLL_MEM_DEVICE && dev == 1);
    CHECK(mcoll_classify((void *)(A + 5000), &dev) == MCOLL_MEM_DEVICE && dev == 1);
    CHECK(mcoll_classify((void *)A, &dev) == MCOLL_MEM_DEVICE);
    s1 = stats();
    CHECK(s1.full_queries - s0.full_queries == 1);
    CHECK(s1.validations - s0.validations == 2 && s1.hits - s0.hits == 2);
    CHECK(mcoll_classify((void *)(A + (1 << 20)), &dev) == MCOLL_MEM_HOST); /* one past the end */

    /* Freed and reallocated at the same address: new buffer id, cache entry dropped */
    allocs[1].live = 0;
    add(2, A, 1 << 19, 8, CU_MEMORYTYPE_DEVICE, 0);
    s0 = stats();
    CHECK(mcoll_classify((void *)(A + 100), &dev) == MCOLL_MEM_DEVICE && dev == 2);
    s1 = stats();
    CHECK(s1.full_queries - s0.full_queries == 1 && s1.hits == s0.hits);
    CHECK(mcoll_classify((void *)(A + 200), &dev) == MCOLL_MEM_DEVICE && stats().hits == s1.hits + 1);

    /* Freed and now host memory (say the range went back to the OS and malloc got it): the
     * validation fails, the pointer is host. */
    allocs[2].live = 0;
    CHECK(mcoll_classify((void *)(A + 100), &dev) == MCOLL_MEM_HOST && dev == -1);
    CHECK(mcoll_classify((void *)(A + 100), &dev) == MCOLL_MEM_HOST);

    /* Managed memory counts as managed (staged like device memory); pinned host memory is host
     * and cached like any allocation. */
    add(3, A + (4u << 20), 1 << 16, 9, CU_MEMORYTYPE_DEVICE, 1);
    CHECK(mcoll_classify((void *)(A + (4u << 20) + 8), &dev) == MCOLL_MEM_MANAGED && dev == 3);
    add(4, A + (8u << 20), 1 << 16, 10, CU_MEMORYTYPE_HOST, 0);
    s0 = stats();
    CHECK(mcoll_classify((void *)(A + (8u << 20)), &dev) == MCOLL_MEM_HOST);
    CHECK(mcoll_classify((void *)(A + (8u << 20) + 64), &dev) == MCOLL_MEM_HOST);
    s1 = stats();
    CHECK(s1.full_queries - s0.full_queries == 1 && s1.hits - s0.hits == 1);

    /* More allocations than slots: the oldest entries are replaced, answers stay right. */
    mcoll_classify_forget();
    for (i = 0; i < MCOLL_CLASSIFY_SLOTS + 4; i++) {
        add(10 + i, A + (64u << 20) + ((uintptr_t)i << 20), 4096, 100 + (unsigned)i, CU_MEMORYTYPE_DEVICE, 0);
        CHECK(mcoll_classify((void *)(A + (64u << 20) + ((uintptr_t)i << 20)), &dev) == MCOLL_MEM_DEVICE);
    }
    s0 = stats();
    CHECK(mcoll_classify((void *)(A + (64u << 20)), &dev) == MCOLL_MEM_DEVICE);          /* evicted: miss */
    CHECK(stats().full_queries == s0.full_queries + 1);
    s0 = stats();
    CHECK(mcoll_classify((void *)(A + (64u << 20) + ((uintptr_t)(MCOLL_CLASSIFY_SLOTS + 3) << 20)), &dev) ==
          MCOLL_MEM_DEVICE);                                                              /* recent: hit */
    CHECK(stats().hits == s0.hits + 1 && stats().full_queries == s0.full_queries);

    return unit_exit("test_classify");
}
