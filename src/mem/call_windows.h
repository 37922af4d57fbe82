/* One call's buffers mapped for that call: what lets a collective made through MPI on ordinary
 * device buffers (cudaMalloc or cuMemCreate memory, never registered) run zero-copy. Every rank
 * describes its buffers, the ranks exchange the descriptions once (one allgather), and each
 * decides from all of them, alike: every buffer can be mapped, or the call is staged on every
 * rank. The peers' buffers are mapped through the registration cache (reg_cache.h), so a buffer
 * used again is a cache hit and memory freed and allocated again (a new buffer id) is mapped
 * afresh; the mappings are held while the call runs, then released to the cache, which bounds
 * the unused ones (MCOLL_REG_CACHE). They become windows of kind CALL (every rank has one) or
 * CALL_ROOT (reduce's receive buffer, which only the root has), linked into the communicator's
 * list for the call, so the zero-copy forms of src/api/direct.c find them as they find windows.
 * The last call's windows are kept, out of the list, with every rank's description: a call whose
 * descriptions all match them (a loop over the same buffers) takes them again, skipping the
 * mapping and the agreement that follows it; the exchange itself stays, since a rank learns only
 * from it whether the others' buffers are the same. Between calls their mappings are parked in
 * the cache: when a peer frees such a buffer and a call on any communicator maps the memory
 * allocated again over it, the parked mapping is unmapped first (the driver refuses to map the
 * new memory while the old mapping is open), and the kept windows are dropped at their
 * communicator's next call.
 *
 * Layer: mem/ (uses team/); the plug-in's engine bridge calls it (src/pmpi/engine_map.c). */
#ifndef MCOLL_CALL_WINDOWS_H
#define MCOLL_CALL_WINDOWS_H

#include <stddef.h>
#include "window.h"


/* One buffer of the call: this rank's [ptr, ptr + bytes). `root_only`: only rank `root` has it
 * (the others pass ptr NULL), and the call runs without it when the root's cannot be mapped. */
typedef struct {
    const void *ptr;
    size_t bytes;
    int root_only;
} mcoll_call_buffer;

/* Map the n buffers (n <= MCOLL_CALL_BUFFERS; the same roles on every rank) and link them into
 * `windows`. `local_ok` is 0 when this rank cannot take the call zero-copy for a reason only it
 * sees. Collective over the team; every rank returns the same: 1 mapped, 0 not (why at TRACE).
 * A failure to map, agreed by every rank, is said at INFO and ends the mapping of calls on these
 * windows' communicator (windows->calls_unmapped): the next calls are staged at no cost. */
int mcoll_call_windows_map(mcoll_team *team, mcoll_windows *windows, const mcoll_call_buffer *bufs, int n,
                           int local_ok);

/* The same, for buffers mapped once and used by many calls (a persistent request's): the
 * windows are returned in out[0..*nout) (only when it returns 1; *nout may be smaller than n where
 * a root-only role is not mapped) and not linked; the caller links them around each of its calls
 * (mcoll_window_link, mcoll_window_unlink) and releases them with mcoll_window_destroy. */
int mcoll_call_windows_make(mcoll_team *team, mcoll_windows *windows, const mcoll_call_buffer *bufs, int n,
                            int local_ok, mcoll_window *out[MCOLL_CALL_BUFFERS], int *nout);

/* Unlink the call's windows and release their mappings to the cache (the call's kernel is done);
 * the last call's, kept for the next call (mcoll_call_windows_map), stay out of the list with
 * their mappings parked. */
void mcoll_call_windows_release(mcoll_team *team, mcoll_windows *windows);

#endif /* MCOLL_CALL_WINDOWS_H */
