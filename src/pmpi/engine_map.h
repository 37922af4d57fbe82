/* The zero-copy step of the engine bridge (engine.h): a decided call with d->zero_copy maps
 * every rank's buffers for itself (src/mem/call_windows.h) before its run, so that the engine's
 * zero-copy forms (src/api/direct.c) take it, and releases them once its kernel is done.
 *
 * A persistent request maps its buffers once, at its initialization (which MPI makes a
 * nonlocal, collective step), and keeps them (mcoll_held_windows) until it is freed. They are
 * linked into the communicator's windows for each of its launches only: no other call may find
 * them, since only this request's buffers are known to lie alike on every rank. */
#ifndef MCOLL_ENGINE_MAP_H
#define MCOLL_ENGINE_MAP_H

#include "call_windows.h"
#include "comm_internal.h"
#include "decide.h"

/* A persistent request's mapped buffers. */
typedef struct {
    int made;                          /* its initialization has mapped (or declined): alike everywhere */
    mcoll_comm *engine;                /* whose windows they are; NULL once released */
    mcoll_window *w[MCOLL_CALL_BUFFERS];
    int n;                             /* 0: the request runs staged */
    unsigned long long ids[MCOLL_CALL_BUFFERS]; /* this rank's buffers' ids when mapped (0: none) */
    int stale_said;                    /* a start found one freed and allocated again: said once */
} mcoll_held_windows;

/* The windows the next engine hook on this thread works with (NULL: a call of its own), set
 * around the hook by the persistent request's initialization and starts (operation.c). */
void mcoll_engine_hold(mcoll_held_windows *held);

/* Map the call's n buffers when the decision says so and the team can run zero-copy (peer loads
 * and stores): 1 when mapped, alike on every rank. local_ok as for mcoll_call_windows_map.
 * With held windows set: where they are not made yet (the initialization), make them
 * (collective) and return -1, and the hook returns without running anything; where they are,
 * link them (local) and return 1, or 0 when the initialization mapped nothing. */
int mcoll_engine_map(mcoll_comm *e, const mcoll_decision *d, const mcoll_call_buffer *bufs, int n, int local_ok);

/* After the run (whose kernel has finished, or for held windows, is queued): release what
 * mcoll_engine_map mapped, or unlink the held windows; returns rc. */
mcoll_result mcoll_engine_unmap(mcoll_comm *e, int mapped, mcoll_result rc);

/* Release held windows (local; no kernel of theirs may still run). Idempotent. */
void mcoll_engine_release_held(mcoll_held_windows *held);

#endif /* MCOLL_ENGINE_MAP_H */
