/* The registration cache: peers' registered buffers (and buffers of calls through MPI, mapped
 * for the call: call_windows.h) mapped into this process, kept after deregistration (or the call)
 * for the next use of the same buffer (MCOLL_REG_CACHE entries not in use at most). An entry is keyed by its owner's process, address range AND buffer id, so
 * memory freed and allocated again at the same address is a different entry, and the old one
 * is never used again. An entry in use is never unmapped. Process-wide and thread-safe. */
#ifndef MCOLL_REG_CACHE_H
#define MCOLL_REG_CACHE_H

#include <stdint.h>
#include "user_buffer.h"

typedef struct mcoll_peer_map {
    struct mcoll_peer_map *next;
    mcoll_user_buffer key;                 /* pid, buffer id, base and size are the key */
    int device;                            /* the GPU it is mapped for */
    char *ptr;                             /* the owner's [base, base + size) as mapped here */
    CUmemGenericAllocationHandle handle;   /* VMM: the imported handle */
    CUdeviceptr va;                        /* VMM: the reservation it is mapped in */
    int users;                             /* registrations holding it */
    uint64_t last_use;                     /* for eviction: least recently released goes first */
} mcoll_peer_map;

/* The mapping of a peer's buffer on `device`: from the cache, or mapped now (IPC open, or map
 * the VMM handle `imported`). The cache takes `imported` over (and releases it when the entry
 * already existed). */
mcoll_result mcoll_reg_cache_acquire(int device, const mcoll_user_buffer *peer, CUmemGenericAllocationHandle imported,
                                     mcoll_peer_map **out);
/* The registration no longer uses it; it stays mapped while the cache has room. */
void mcoll_reg_cache_release(mcoll_peer_map *map);

/* Unmap every entry not in use (a communicator is going away; its peers may free their memory). */
void mcoll_reg_cache_flush(void);

/* For tests: entries held (in use or not) and mapped so far. */
void mcoll_reg_cache_stats(int *entries, int *in_use, long *mapped);

/* Map or unmap one entry's memory (peer_map.c). */
mcoll_result mcoll_peer_map_open(mcoll_peer_map *map, CUmemGenericAllocationHandle imported);
void mcoll_peer_map_close(mcoll_peer_map *map);

#endif /* MCOLL_REG_CACHE_H */
