/* The CUDA virtual memory management pieces the team steps share: what an exportable device
 * allocation looks like, which handle type the team exports, access from a GPU to a mapped
 * range, and granule arithmetic. They depend on a device ordinal and a handle kind, not on a
 * team, so the steps (symmetric.c, multicast.c, handle_share.c, team.c) use them without
 * depending on one another. */
#ifndef MCOLL_VMM_H
#define MCOLL_VMM_H

#include <stddef.h>
#include "driver.h"

/* How the ranks of a team exchange memory handles. */
typedef enum { MCOLL_HANDLE_POSIX_FD = 0, MCOLL_HANDLE_FABRIC = 1 } mcoll_handle_kind;

/* The shareable handle type of a kind. */
CUmemAllocationHandleType mcoll_handle_type(mcoll_handle_kind kind);

/* Pinned device memory of `device`, exportable as `handle_type`. */
CUmemAllocationProp mcoll_allocation_prop(int device, CUmemAllocationHandleType handle_type);

/* Read and write access from `device` to a mapped range. */
CUresult mcoll_set_access(int device, CUdeviceptr va, size_t size);

/* Round `x` up to a multiple of `granularity` (> 0). */
static inline size_t mcoll_round_up(size_t x, size_t granularity)
{
    return (x + granularity - 1) / granularity * granularity;
}

#endif /* MCOLL_VMM_H */
