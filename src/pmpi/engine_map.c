/* The zero-copy step of the engine bridge (engine_map.h). */
#include "checks.h"
#include "direct.h"
#include "engine_map.h"

static _Thread_local mcoll_held_windows *held;

/* The driver's id of the allocation `p` lies in; 0 where it has none to give. */
static unsigned long long buffer_id(const void *p)
{
    unsigned long long id = 0;
    if (!p || mcoll_cu.cuPointerGetAttribute(&id, CU_POINTER_ATTRIBUTE_BUFFER_ID, (CUdeviceptr)(uintptr_t)p) !=
                  CUDA_SUCCESS)
        return 0;
    return id;
}

void mcoll_engine_hold(mcoll_held_windows *h) { held = h; }

/* A persistent request's launch: its windows go into the list for the launch only. A buffer freed
 * and allocated again at its address since the initialization (erroneous: the request names
 * memory that is gone) leaves the peers mapping the old memory; the start compares this rank's
 * buffers' ids with the initialization's (one driver query per buffer) and says so once, loudly,
 * since mending the peers' view would take a collective step, which a start must not make. Launches
 * still queued on the team go first (they must not find them). */
static int link_held(mcoll_comm *e)
{
    int i;
    if (!held->n || held->engine != e) return 0;
    for (i = 0; i < held->n && !held->stale_said; i++)
        if (held->ids[i] && buffer_id(held->w[i]->base) != held->ids[i]) {
            held->stale_said = 1;
            MCOLL_WARN("a persistent request's device buffer %p was freed and allocated again since its "
                       "initialization (erroneous): its peers still map the old memory; free the request and "
                       "initialize it again", (void *)held->w[i]->base);
        }
    mcoll_async_wait_lane(&e->lane);
    for (i = 0; i < held->n; i++) mcoll_window_link(&e->windows, held->w[i]);
    return 1;
}

int mcoll_engine_map(mcoll_comm *e, const mcoll_decision *d, const mcoll_call_buffer *bufs, int n, int local_ok)
{
    /* The team's engine is agreed at its creation: every rank skips the exchange or none. */
    if (!d->zero_copy || !mcoll_direct_team(e)) return 0;
    if (held && held->made) return link_held(e);
    /* Launches still queued on the team go first: none of them may find this call's windows. A
     * rank that cannot enter still takes part in the exchange (which is collective), declining;
     * except on a team whose peer is gone (or whose MCOLL_TIMEOUT passed): the exchange would
     * wait for it for ever, and the call that follows fails with MCOLL_ERR_ABORTED anyway. */
    const mcoll_result entered = mcoll_comm_enter(e);
    if (held) {
        held->made = 1;
        held->engine = e;
        if (entered != MCOLL_ERR_ABORTED)
            (void)mcoll_call_windows_make(e->team, &e->windows, bufs, n, entered == MCOLL_SUCCESS && local_ok,
                                          held->w, &held->n);
        for (int i = 0; i < held->n; i++) held->ids[i] = buffer_id(held->w[i]->base);
        if (held->n && !e->windows.requests_mapped++)
            MCOLL_INFO("zero-copy: a persistent request mapped its peers' buffers at its initialization (the first "
                       "of this communicator); its starts run zero-copy");
        return -1;
    }
    if (entered == MCOLL_ERR_ABORTED) return 0;
    return mcoll_call_windows_map(e->team, &e->windows, bufs, n, local_ok && entered == MCOLL_SUCCESS);
}

mcoll_result mcoll_engine_unmap(mcoll_comm *e, int mapped, mcoll_result rc)
{
    int i;
    if (mapped && held) {
        for (i = 0; i < held->n; i++) mcoll_window_unlink(&e->windows, held->w[i]);
    } else if (mapped) {
        /* Mappings that go wait for the stream there (a kept call's stay: no wait). */
        mcoll_call_windows_release(e->team, &e->windows);
    }
    return rc;
}

void mcoll_engine_release_held(mcoll_held_windows *h)
{
    int i;
    if (!h->engine) return;
    for (i = 0; i < h->n; i++) mcoll_window_destroy(h->engine->team, h->w[i]);
    h->n = 0;
    h->engine = NULL;
}
