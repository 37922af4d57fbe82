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

/* Describe [ptr, ptr + bytes) of this process for peers on `device`, whose team exports VMM
 * memory as `vmm_type` and spans `nodes` nodes. MCOLL_ERR_INVALID_ARG: host or managed memory,
 * memory of another GPU, or a range that does not lie in one allocation (mapping).
 * MCOLL_ERR_UNSUPPORTED: device memory peers cannot map (VMM memory without that handle type,
 * pool memory, cudaMalloc memory where the team spans nodes). Nothing is logged: a refusal
 * writes why into why[why_len] (a registration warns with it, a call through MPI falls back
 * quietly). IPC handles are not made here (mcoll_user_buffer_export). */
mcoll_result mcoll_user_buffer_describe(int device, CUmemAllocationHandleType vmm_type, int nodes, const void *ptr,
                                        size_t bytes, mcoll_user_buffer *out, char *why, size_t why_len);

/* The IPC handle of an IPC buffer (no-op for VMM). Handles are kept per buffer id (new for every
 * allocation), so a buffer used again costs no driver call. */
mcoll_result mcoll_user_buffer_export(mcoll_user_buffer *buffer);

/* What peers need beyond the description: the IPC handle (mcoll_user_buffer_export), or for
 * VMM memory a retained handle of the allocation at ptr, for the team's handle exchange
 * (*have_retained set; the caller releases it once exchanged). */
mcoll_result mcoll_user_buffer_share(mcoll_user_buffer *buffer, const void *ptr, CUmemGenericAllocationHandle *retained,
                                     int *have_retained);

#endif /* MCOLL_USER_BUFFER_H */
