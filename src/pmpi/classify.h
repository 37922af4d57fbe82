/* Is a pointer host or device memory? One question per buffer per call, answered by
 * cuPointerGetAttributes and remembered in a small per-thread cache.
 *
 * Cost model. Without a driver: no driver call at all, every pointer is host. With a driver:
 *   - miss (first sight of an allocation, or any pageable host pointer, which has no allocation
 *     range to remember): one cuPointerGetAttributes with six attributes;
 *   - hit (pointer inside a remembered device, managed or pinned allocation): one
 *     cuPointerGetAttribute of BUFFER_ID, compared with the remembered id. Buffer ids are unique
 *     for the life of the process, so an address that was freed and reused (by a new allocation,
 *     or by host memory, for which the query fails) is never taken for the old allocation.
 * The cache is per thread (no lock) and holds MCOLL_CLASSIFY_SLOTS allocations, replaced in
 * round-robin order. */
#ifndef MCOLL_CLASSIFY_H
#define MCOLL_CLASSIFY_H

#include <stddef.h>

#define MCOLL_CLASSIFY_SLOTS 8

typedef enum {
    MCOLL_MEM_HOST = 0,    /* pageable, pinned or registered host memory */
    MCOLL_MEM_DEVICE = 1,  /* device memory (cuMemAlloc, cuMemCreate mappings, ...) */
    MCOLL_MEM_MANAGED = 2  /* managed memory: treated as device (see docs/pmpi.md) */
} mcoll_mem_kind;

/* Kind of the memory at `ptr`; *device is its device ordinal (-1 for host memory). NULL is host. */
mcoll_mem_kind mcoll_classify(const void *ptr, int *device);

/* Forget this thread's cache (tests; and MPI_Finalize). */
void mcoll_classify_forget(void);

/* Counters of this thread's lookups, for tests. */
typedef struct {
    unsigned long full_queries;  /* cuPointerGetAttributes calls */
    unsigned long validations;   /* cuPointerGetAttribute(BUFFER_ID) calls on cache hits */
    unsigned long hits;          /* validations that confirmed the cached entry */
} mcoll_classify_stats;
void mcoll_classify_get_stats(mcoll_classify_stats *stats);

#endif /* MCOLL_CLASSIFY_H */
