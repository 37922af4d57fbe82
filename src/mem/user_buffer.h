/* What a user's device buffer is, as the driver describes it, and how a peer can map it. */
#ifndef MCOLL_USER_BUFFER_H
#define MCOLL_USER_BUFFER_H

#include <stddef.h>
#include <stdint.h>
#include "driver.h"
#include "mcoll.h"

/* How peers map it: CUDA IPC (cudaMalloc/cuMemAlloc memory) or the VMM handle of the
 * allocation (cuMemCreate memory, exported as the team exports its own). */
typedef enum { MCOLL_USER_IPC = 1, MCOLL_USER_VMM = 2 } mcoll_user_kind;

/* The record every rank sends its peers when registering (plain bytes). */
typedef struct {
    int32_t kind;            /* mcoll_user_kind */
    int32_t pid;             /* owner process: buffer ids are unique only within it */
    uint64_t host;           /* and its host (a hash of its name): pids repeat across nodes */
    uint64_t buffer_id;      /* CU_POINTER_ATTRIBUTE_BUFFER_ID: new for every allocation, so memory
                                freed and allocated again at the same address has another */
    uint64_t base;           /* start of the allocation (IPC) or of the mapping (VMM) in the owner */
    uint64_t size;           /* its bytes */
    uint64_t offset;         /* the registered range's start, from base */
    uint64_t bytes;          /* the registered range's length */
    CUipcMemHandle ipc;      /* IPC: the handle of the allocation */
} mcoll_user_buffer;

/* Describe [ptr, ptr + bytes) of this process for registration on `device`, whose team
 * exports VMM memory as `vmm_type`. MCOLL_ERR_INVALID_ARG: host or managed memory, memory of
 * another GPU, or a range that does not lie in one allocation (mapping). MCOLL_ERR_UNSUPPORTED:
 * device memory peers cannot map (VMM memory without that handle type, pool memory). Each
 * refusal logs why at WARN. IPC handles are not made here (mcoll_user_buffer_export). */
mcoll_result mcoll_user_buffer_describe(int device, CUmemAllocationHandleType vmm_type, const void *ptr, size_t bytes,
                                        mcoll_user_buffer *out);

/* The IPC handle of an IPC buffer (no-op for VMM). */
mcoll_result mcoll_user_buffer_export(mcoll_user_buffer *buffer);

#endif /* MCOLL_USER_BUFFER_H */
