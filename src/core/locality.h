/* Where a GPU sits: its NUMA node and CPUs (hwloc), so pinned host memory used with it is
 * allocated on the memory closest to it. */
#ifndef MCOLL_LOCALITY_H
#define MCOLL_LOCALITY_H

#include <stddef.h>

/* One INFO line: the GPU's PCI address, NUMA node(s) and CPUs. */
void mcoll_locality_log(int device);

/* Pinned host memory on the NUMA node(s) nearest `device` (any node when unknown), usable for
 * asynchronous copies with the GPU. NULL on failure. *registered tells which allocator gave it;
 * pass it back to mcoll_host_free_near. */
void *mcoll_host_alloc_near(int device, size_t bytes, int *registered);
void mcoll_host_free_near(void *ptr, size_t bytes, int registered);

/* How many cores the calling thread may run on (its CPU binding, e.g. mpirun's --bind-to
 * core), or -1 when unknown (no hwloc, or no answer). */
int mcoll_locality_thread_cores(void);

#endif /* MCOLL_LOCALITY_H */
