/* A call's buffers mapped for that call (call_windows.h). */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include "call_windows.h"
#include "checks.h"
#include "clock.h"
#include "vmm.h"

/* What each rank sends the others, once per call: its buffers as peers map them (kind 0: it has
 * none of that role, or it cannot be mapped) and whether it can take the call at all. */
typedef struct {
    mcoll_user_buffer buf[MCOLL_CALL_BUFFERS];
    int32_t local_ok;
    int32_t unused;
} record;

/* This rank's record, and the retained VMM handles its buffers need exchanged. */
static void describe(mcoll_team *team, const mcoll_call_buffer *bufs, int n, record *mine,
                     CUmemGenericAllocationHandle *retained, int *have_retained)
{
    int i;
    for (i = 0; i < n; i++) {
        char why[256] = "the driver's answer";
        mcoll_user_buffer *b = &mine->buf[i];
        if (!bufs[i].ptr) continue;
        if (mcoll_user_buffer_describe(team->device, mcoll_handle_type(team->handle_kind), team->nodes, bufs[i].ptr,
                                       bufs[i].bytes, b, why, sizeof why) == MCOLL_SUCCESS &&
            mcoll_user_buffer_share(b, bufs[i].ptr, &retained[i], &have_retained[i]) == MCOLL_SUCCESS)
            continue;
        MCOLL_TRACE("zero-copy: this rank's buffer %d cannot be mapped by its peers: %s", i, why);
        memset(b, 0, sizeof *b);
    }
}

/* Why the call cannot run zero-copy, read alike on every rank from every record; NULL when it
 * can. use[i]: role i is mapped (a root-only one where the root's can be). */
static const char *refusal(const record *all, int size, const mcoll_call_buffer *bufs, int n, int *use)
{
    int i, q;
    for (q = 0; q < size; q++)
        if (!all[q].local_ok) return "a rank's buffers do not suit the zero-copy kernels";
    for (i = 0; i < n; i++) {
        use[i] = !bufs[i].root_only;
        for (q = 0; q < size; q++) {
            if (bufs[i].root_only) use[i] |= all[q].buf[i].kind != 0;
            else if (!all[q].buf[i].kind) return "a rank's buffer cannot be mapped by its peers";
        }
    }
    return NULL;
}

/* Map role i's buffers into w (collective); this rank's result. */
static mcoll_result map_role(mcoll_team *team, mcoll_window *w, const record *all, int i, const mcoll_call_buffer *b,
                             CUmemGenericAllocationHandle retained, int have_retained)
{
    mcoll_user_buffer role[MCOLL_MAX_RANKS];
    int q;
    w->base = (char *)(uintptr_t)b->ptr;
    w->peer[team->rank] = w->base;
    w->bytes = b->ptr ? b->bytes : 0;
    for (q = 0; q < team->size; q++) role[q] = all[q].buf[i];
    return mcoll_window_map(team, w, role, retained, have_retained);
}

/* One exchange of the call's descriptions: every rank's records in all[], this rank's retained
 * VMM handles, and why the call cannot run zero-copy (NULL: it can; use[i] as for refusal).
 * w[i] are this call's new windows (a NULL one makes this rank decline). Collective. */
static const char *exchange(mcoll_team *team, const mcoll_call_buffer *bufs, int n, int local_ok,
                            mcoll_window *w[MCOLL_CALL_BUFFERS], record *all, CUmemGenericAllocationHandle *retained,
                            int *have_retained, int *use)
{
    record mine;
    int i;
    memset(&mine, 0, sizeof mine);
    mine.local_ok = local_ok != 0;
    for (i = 0; i < n; i++) {
        w[i] = calloc(1, sizeof *w[i]);
        if (w[i]) w[i]->kind = bufs[i].root_only ? MCOLL_WINDOW_CALL_ROOT : MCOLL_WINDOW_CALL;
        else mine.local_ok = 0;
    }
    if (mine.local_ok) describe(team, bufs, n, &mine, retained, have_retained);
    if (PMPI_Allgather(&mine, sizeof mine, MPI_BYTE, all, sizeof mine, MPI_BYTE, team->comm) != MPI_SUCCESS)
        return "the exchange of the buffers' descriptions failed";
    return refusal(all, team->size, bufs, n, use);
}

/* Map the roles in use into w[] and agree on the result (collective); 1 when every rank mapped. */
static int map_agreed(mcoll_team *team, mcoll_windows *windows, const record *all, const mcoll_call_buffer *bufs,
                      int n, mcoll_window *w[MCOLL_CALL_BUFFERS], const CUmemGenericAllocationHandle *retained,
                      const int *have_retained, const int *use)
{
    mcoll_result rc = MCOLL_SUCCESS;
    int i;
    for (i = 0; i < n; i++) {
        mcoll_result mapped;
        if (!use[i]) {
            if (have_retained[i]) CU_WARN(cuMemRelease(retained[i]));
            continue;
        }
        /* Every role on every rank, whatever failed before: the VMM handle exchange is collective. */
        mapped = map_role(team, w[i], all, i, &bufs[i], retained[i], have_retained[i]);
        if (rc == MCOLL_SUCCESS) rc = mapped;
    }
    if ((rc = mcoll_window_agree(team, rc)) != MCOLL_SUCCESS) {
        /* Whatever failed (peer access, memory) would most likely fail again on every call. */
        windows->calls_unmapped = 1;
        MCOLL_INFO("zero-copy: mapping the peers' buffers failed on some rank (%s); every rank stages this call and "
                   "the later ones of this communicator", mcoll_strerror(rc));
        return 0;
    }
    if (!windows->calls_mapped++)
        MCOLL_INFO("zero-copy: a call through MPI mapped its peers' buffers (the first of this communicator)");
    return 1;
}

/* This call's windows: those mapped (out[0..*nout)) when it maps, the others destroyed. */
static void hand_out(mcoll_team *team, mcoll_window *w[MCOLL_CALL_BUFFERS], int n, const int *use, int ok,
                     mcoll_window *out[MCOLL_CALL_BUFFERS], int *nout)
{
    int i;
    for (i = 0; i < n; i++) {
        if (!w[i]) continue;
        if (ok && use[i]) out[(*nout)++] = w[i];
        else mcoll_window_destroy(team, w[i]);
    }
}

/* A call's kernel tells the host it is done (its completion word) just before it leaves the GPU:
 * mappings it used go only once the team's streams are idle. Not on a team whose peer is gone: a
 * kernel waiting for that peer would never leave. */
static void quiesce_stream(mcoll_team *team)
{
    if (mcoll_watch_aborted(&team->watch)) return;
    CU_WARN(cuStreamSynchronize(team->stream));
    CU_WARN(cuStreamSynchronize(team->nb_stream));
}

/* Forget the last call's windows (local). */
static void drop_kept(mcoll_team *team, mcoll_windows *windows)
{
    int i;
    if (windows->nkept) quiesce_stream(team);
    for (i = 0; i < windows->nkept; i++) mcoll_window_destroy(team, windows->kept[i]);
    windows->nkept = 0;
    free(windows->kept_records);
    windows->kept_records = NULL;
}

/* 1 when every rank's record is the one the kept windows were mapped from. Their parked mappings
 * are then all still mapped: the cache unmaps one only once a buffer of its owner with another
 * buffer id lies over its range (reg_cache.h), and a buffer id is never given again, so that
 * owner's record can no longer match. */
static int same_as_kept(const mcoll_team *team, const mcoll_windows *windows, const record *all)
{
    return windows->kept_records && !memcmp(windows->kept_records, all, (size_t)team->size * sizeof *all);
}

/* The exchange, then the call's windows (collective; every rank returns the same): 1 when the call
 * runs zero-copy. With `reuse`, the last call's kept windows serve when every rank's record
 * matches them (*kept = 1, nothing made), and otherwise go before the new ones are mapped. New
 * windows are returned in out[0..*nout) (fewer than n where a root-only role is not mapped). */
static int windows_for(mcoll_team *team, mcoll_windows *windows, const mcoll_call_buffer *bufs, int n, int local_ok,
                       int reuse, record *all, mcoll_window *out[MCOLL_CALL_BUFFERS], int *nout, int *kept)
{
    mcoll_window *w[MCOLL_CALL_BUFFERS] = {NULL};
    CUmemGenericAllocationHandle retained[MCOLL_CALL_BUFFERS] = {0};
    int have_retained[MCOLL_CALL_BUFFERS] = {0}, use[MCOLL_CALL_BUFFERS] = {0}, i, ok;
    const uint64_t t0 = mcoll_trace_ns();
    const char *why = exchange(team, bufs, n, local_ok, w, all, retained, have_retained, use);
    const uint64_t t1 = mcoll_trace_ns();

    *nout = 0;
    *kept = reuse && !why && same_as_kept(team, windows, all);
    if (why) MCOLL_TRACE("zero-copy: not this call: %s", why);
    if (why || *kept)
        for (i = 0; i < n; i++)
            if (have_retained[i]) CU_WARN(cuMemRelease(retained[i]));
    if (reuse && !*kept) drop_kept(team, windows);
    ok = *kept || (!why && map_agreed(team, windows, all, bufs, n, w, retained, have_retained, use));
    hand_out(team, w, n, use, ok && !*kept, out, nout);
    if (*kept)
        MCOLL_TRACE("zero-copy: the last call's windows again; exchange %.2f us", mcoll_trace_us(t0, t1));
    else
        MCOLL_TRACE("zero-copy: exchange %.2f us, mapping and agreement %.2f us", mcoll_trace_us(t0, t1),
                    mcoll_trace_us(t1, mcoll_trace_ns()));
    return ok;
}

int mcoll_call_windows_make(mcoll_team *team, mcoll_windows *windows, const mcoll_call_buffer *bufs, int n,
                            int local_ok, mcoll_window *out[MCOLL_CALL_BUFFERS], int *nout)
{
    record all[MCOLL_MAX_RANKS];
    int kept;
    *nout = 0;
    if (windows->calls_unmapped) return 0;
    return windows_for(team, windows, bufs, n, local_ok, 0, all, out, nout, &kept);
}

/* Keep this call's windows, and the records they were mapped from, for the next call. */
static void keep(mcoll_team *team, mcoll_windows *windows, const record *all, mcoll_window *w[MCOLL_CALL_BUFFERS],
                 int made)
{
    const size_t bytes = (size_t)team->size * sizeof *all;
    int i;
    windows->kept_records = malloc(bytes);
    if (!windows->kept_records) return; /* the windows go at the release, as without keeping */
    memcpy(windows->kept_records, all, bytes);
    for (i = 0; i < made; i++) windows->kept[i] = w[i];
    windows->nkept = made;
}

/* A solver's loop calls with the same buffers again and again: when every rank describes its
 * buffers exactly as for the last call (the same allocations, by buffer id, at the same offsets,
 * with the same sizes), every rank sees so in the exchange, alike, and the last call's windows,
 * held since, serve again without mapping anything, so without the agreement either. Memory
 * freed and allocated again has a new buffer id and is mapped afresh. */
int mcoll_call_windows_map(mcoll_team *team, mcoll_windows *windows, const mcoll_call_buffer *bufs, int n,
                           int local_ok)
{
    record all[MCOLL_MAX_RANKS];
    mcoll_window *w[MCOLL_CALL_BUFFERS];
    int i, made, kept, ok;

    if (windows->calls_unmapped) return 0;
    ok = windows_for(team, windows, bufs, n, local_ok, 1, all, w, &made, &kept);
    if (kept) {
        for (i = 0; i < windows->nkept; i++) {
            mcoll_window_unpark(windows->kept[i]);
            mcoll_window_link(windows, windows->kept[i]);
        }
        if (!windows->calls_kept++)
            MCOLL_INFO("zero-copy: a call through MPI found every rank's buffers as in the call before: its windows "
                       "serve again, with no mapping and no agreement");
        return 1;
    }
    for (i = 0; i < made; i++) mcoll_window_link(windows, w[i]);
    if (ok) keep(team, windows, all, w, made);
    return ok;
}

/* 1 when w is one of the last call's windows, kept for the next. */
static int is_kept(const mcoll_windows *windows, const mcoll_window *w)
{
    int i;
    for (i = 0; i < windows->nkept; i++)
        if (windows->kept[i] == w) return 1;
    return 0;
}

void mcoll_call_windows_release(mcoll_team *team, mcoll_windows *windows)
{
    mcoll_windows going = {0};
    mcoll_window **link = &windows->head;
    while (*link) {
        mcoll_window *w = *link;
        if (w->kind != MCOLL_WINDOW_CALL && w->kind != MCOLL_WINDOW_CALL_ROOT) {
            link = &w->next;
            continue;
        }
        *link = w->next;
        w->next = NULL;
        if (is_kept(windows, w)) mcoll_window_park(w); /* until the next call takes them or drops them */
        else mcoll_window_link(&going, w);
    }
    if (!going.head) return;
    quiesce_stream(team);
    mcoll_windows_destroy(team, &going);
}
