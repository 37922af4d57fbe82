/* A call's buffers mapped for that call (call_windows.h). */
#include <stdlib.h>
#include <string.h>
#include "call_windows.h"
#include "checks.h"
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

int mcoll_call_windows_make(mcoll_team *team, mcoll_windows *windows, const mcoll_call_buffer *bufs, int n,
                            int local_ok, mcoll_window *out[MCOLL_CALL_BUFFERS], int *nout)
{
    record mine, all[MCOLL_MAX_RANKS];
    mcoll_window *w[MCOLL_CALL_BUFFERS] = {NULL};
    CUmemGenericAllocationHandle retained[MCOLL_CALL_BUFFERS] = {0};
    int have_retained[MCOLL_CALL_BUFFERS] = {0}, use[MCOLL_CALL_BUFFERS] = {0}, i;
    mcoll_result rc = MCOLL_SUCCESS;
    const char *why;

    *nout = 0;
    if (windows->calls_unmapped) return 0;
    memset(&mine, 0, sizeof mine);
    mine.local_ok = local_ok != 0;
    for (i = 0; i < n; i++) {
        w[i] = calloc(1, sizeof *w[i]);
        if (w[i]) w[i]->kind = bufs[i].root_only ? MCOLL_WINDOW_CALL_ROOT : MCOLL_WINDOW_CALL;
        else mine.local_ok = 0;
    }
    if (mine.local_ok) describe(team, bufs, n, &mine, retained, have_retained);
    why = "the exchange of the buffers' descriptions failed";
    if (PMPI_Allgather(&mine, sizeof mine, MPI_BYTE, all, sizeof mine, MPI_BYTE, team->comm) == MPI_SUCCESS)
        why = refusal(all, team->size, bufs, n, use);
    for (i = 0; i < n; i++) {
        mcoll_result mapped;
        if (why || !use[i]) {
            if (have_retained[i]) CU_WARN(cuMemRelease(retained[i]));
            continue;
        }
        /* Every role on every rank, whatever failed before: the VMM handle exchange is collective. */
        mapped = map_role(team, w[i], all, i, &bufs[i], retained[i], have_retained[i]);
        if (rc == MCOLL_SUCCESS) rc = mapped;
    }
    if (why) MCOLL_TRACE("zero-copy: not this call: %s", why);
    else if ((rc = mcoll_window_agree(team, rc)) != MCOLL_SUCCESS) {
        /* Whatever failed (peer access, memory) would most likely fail again on every call. */
        windows->calls_unmapped = 1;
        MCOLL_INFO("zero-copy: mapping the peers' buffers failed on some rank (%s); every rank stages this call and "
                   "the later ones of this communicator", mcoll_strerror(rc));
    }
    if (!why && rc == MCOLL_SUCCESS && !windows->calls_mapped++)
        MCOLL_INFO("zero-copy: a call through MPI mapped its peers' buffers (the first of this communicator)");
    for (i = 0; i < n; i++) {
        if (!w[i]) continue;
        if (!why && rc == MCOLL_SUCCESS && use[i]) out[(*nout)++] = w[i];
        else mcoll_window_destroy(team, w[i]);
    }
    return !why && rc == MCOLL_SUCCESS;
}

int mcoll_call_windows_map(mcoll_team *team, mcoll_windows *windows, const mcoll_call_buffer *bufs, int n,
                           int local_ok)
{
    mcoll_window *w[MCOLL_CALL_BUFFERS];
    int i, made, ok = mcoll_call_windows_make(team, windows, bufs, n, local_ok, w, &made);
    for (i = 0; i < made; i++) mcoll_window_link(windows, w[i]);
    return ok;
}

void mcoll_call_windows_release(mcoll_team *team, mcoll_windows *windows)
{
    mcoll_window **link = &windows->head;
    while (*link) {
        mcoll_window *w = *link;
        if (w->kind != MCOLL_WINDOW_CALL && w->kind != MCOLL_WINDOW_CALL_ROOT) {
            link = &w->next;
            continue;
        }
        *link = w->next;
        w->next = NULL;
        mcoll_window_destroy(team, w);
    }
}
