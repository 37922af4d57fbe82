/* The registration cache: peers' registered buffers (and buffers of calls through MPI, mapped
 * for the call: call_windows.h) mapped into this process, kept after deregistration (or the call)
 * for the next use of the same buffer (MCOLL_REG_CACHE entries not in use at most). An entry is
 * keyed by its owner's process, address range AND buffer id, so memory freed and allocated again
 * at the same address is a different entry, and the old one is never used again: it is unmapped
 * before the new one is mapped (a CUDA IPC handle cannot be opened while an older mapping of the
 * same range of its owner is open). An entry in use is never unmapped. Process-wide and
 * thread-safe. */
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
    int users;                             /* registrations and running calls holding it */
    int parked;                            /* windows kept between calls holding it (call_windows.h):
                                              unmapped when its memory is found freed */
    int dead;                              /* unmapped and out of the cache while parked; freed
                                              when the last holder lets go */
    uint64_t last_use;                     /* for eviction: least recently released goes first */
} mcoll_peer_map;

/* The mapping of a peer's buffer on `device`: from the cache, or mapped now (IPC open, or map
 * the VMM handle `imported`). The cache takes `imported` over (and releases it when the entry
 * already existed). */
mcoll_result mcoll_reg_cache_acquire(int device, const mcoll_user_buffer *peer, CUmemGenericAllocationHandle imported,
                                     mcoll_peer_map **out);
/* The registration no longer uses it; it stays mapped while the cache has room. */
void mcoll_reg_cache_release(mcoll_peer_map *map);

/* Held between calls by windows kept for the next call (park), or by such windows again for a
 * call (unpark). A parked entry is not evicted for room, but unlike one in use it is unmapped
 * when a buffer of its owner is found over its range (its memory was freed, and the driver
 * cannot map the new one while the old one is): it is then dead until its holders let go. A call
 * takes kept windows only when every rank's buffers are the ones they were mapped for
 * (call_windows.c), so it never unparks a dead entry. */
void mcoll_reg_cache_park(mcoll_peer_map *map);
void mcoll_reg_cache_unpark(mcoll_peer_map *map);
/* A parked holder lets go (its windows are dropped). */
void mcoll_reg_cache_release_parked(mcoll_peer_map *map);

/* Unmap every entry neither in use nor parked (a communicator is going away; its peers may free
 * their memory). */
void mcoll_reg_cache_flush(void);

/* For tests: entries in the cache, those in use or parked, and entries mapped so far. */
void mcoll_reg_cache_stats(int *entries, int *in_use, long *mapped);

/* Map or unmap one entry's memory (peer_map.c). */
mcoll_result mcoll_peer_map_open(mcoll_peer_map *map, CUmemGenericAllocationHandle imported);
void mcoll_peer_map_close(mcoll_peer_map *map);

#endif /* MCOLL_REG_CACHE_H */
