/* The zero-copy step of the engine bridge (engine_map.h). */
#include "direct.h"
#include "engine_map.h"

int mcoll_engine_map(mcoll_comm *e, const mcoll_decision *d, const mcoll_call_buffer *bufs, int n, int local_ok)
{
    /* The team's engine is agreed at its creation: every rank skips the exchange or none. */
    if (!d->zero_copy || !mcoll_direct_team(e)) return 0;
    /* Launches still queued on the team go first: none of them may find this call's windows. A
     * rank that cannot enter still takes part in the exchange (which is collective), declining;
     * except on a team whose peer is gone (or whose MCOLL_TIMEOUT passed): the exchange would
     * wait for it for ever, and the call that follows fails with MCOLL_ERR_ABORTED anyway. */
    const mcoll_result entered = mcoll_comm_enter(e);
    if (entered == MCOLL_ERR_ABORTED) return 0;
    return mcoll_call_windows_map(e->team, &e->windows, bufs, n, local_ok && entered == MCOLL_SUCCESS);
}

mcoll_result mcoll_engine_unmap(mcoll_comm *e, int mapped, mcoll_result rc)
{
    if (mapped) mcoll_call_windows_release(e->team, &e->windows);
    return rc;
}
