/* The zero-copy step of the engine bridge (engine.h): a decided call with d->zero_copy maps
 * every rank's buffers for itself (src/mem/call_windows.h) before its run, so that the engine's
 * zero-copy forms (src/api/direct.c) take it, and releases them once its kernel is done. */
#ifndef MCOLL_ENGINE_MAP_H
#define MCOLL_ENGINE_MAP_H

#include "call_windows.h"
#include "comm_internal.h"
#include "decide.h"

/* Map the call's n buffers when the decision says so and the team can run zero-copy (peer loads
 * and stores): 1 when mapped, alike on every rank. local_ok as for mcoll_call_windows_map. */
int mcoll_engine_map(mcoll_comm *e, const mcoll_decision *d, const mcoll_call_buffer *bufs, int n, int local_ok);

/* After the run (whose kernel has finished): release what mcoll_engine_map mapped, if anything;
 * returns rc. */
mcoll_result mcoll_engine_unmap(mcoll_comm *e, int mapped, mcoll_result rc);

#endif /* MCOLL_ENGINE_MAP_H */
