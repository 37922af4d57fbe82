/* The list of a team's windows and the agreements their collective calls share. */
#include <stdlib.h>
#include "agree.h"
#include "checks.h"
#include "window.h"

mcoll_window *mcoll_window_new(mcoll_windows *windows, mcoll_window_kind kind)
{
    mcoll_window *w = calloc(1, sizeof *w);
    uint64_t id = ++windows->last_id;
    if (!w) return NULL;
    w->id = id;
    w->kind = kind;
    return w;
}

void mcoll_window_link(mcoll_windows *windows, mcoll_window *w)
{
    w->next = windows->head;
    windows->head = w;
}

void mcoll_window_unlink(mcoll_windows *windows, mcoll_window *w)
{
    mcoll_window **link;
    for (link = &windows->head; *link; link = &(*link)->next)
        if (*link == w) {
            *link = w->next;
            w->next = NULL;
            return;
        }
}

mcoll_window *mcoll_window_by_id(const mcoll_windows *windows, mcoll_window_kind kind, uint64_t id)
{
    mcoll_window *w;
    for (w = windows->head; w; w = w->next)
        if (w->kind == kind && w->id == id) return w;
    return NULL;
}

mcoll_window *mcoll_window_by_base(const mcoll_windows *windows, mcoll_window_kind kind, const void *base)
{
    mcoll_window *w;
    for (w = windows->head; w; w = w->next)
        if (w->kind == kind && w->base == (const char *)base) return w;
    return NULL;
}

const mcoll_window *mcoll_window_find(const mcoll_windows *windows, const void *ptr, size_t bytes)
{
    const char *p = ptr;
    const mcoll_window *w;
    for (w = windows->head; w; w = w->next)
        if (p >= w->base && (size_t)(p - w->base) <= w->bytes && bytes <= w->bytes - (size_t)(p - w->base)) return w;
    return NULL;
}

/* Every peer mapping of w moved between held for a call and parked (reg_cache.h). */
static void move_maps(mcoll_window *w, void (*move)(mcoll_peer_map *), int parked)
{
    int q;
    for (q = 0; q < MCOLL_MAX_RANKS; q++)
        if (w->maps[q]) move(w->maps[q]);
    w->parked = parked;
}

void mcoll_window_park(mcoll_window *w) { move_maps(w, mcoll_reg_cache_park, 1); }

void mcoll_window_unpark(mcoll_window *w) { move_maps(w, mcoll_reg_cache_unpark, 0); }

mcoll_result mcoll_window_agree(mcoll_team *team, mcoll_result mine)
{
    uint64_t code = (uint64_t)mine, worst = 0;
    if (!mcoll_agree_max(team->comm, &code, &worst, 1)) return MCOLL_ERR_MPI;
    return (mcoll_result)worst;
}

void mcoll_window_quiesce(mcoll_team *team)
{
    CU_WARN(cuCtxSynchronize());
    if (!mcoll_watch_aborted(&team->watch)) PMPI_Barrier(team->comm);
}

void mcoll_windows_destroy(mcoll_team *team, mcoll_windows *windows)
{
    mcoll_window *w;
    int q;
    /* The last call's windows (call_windows.c) are out of the list between calls. */
    while (windows->nkept > 0) {
        w = windows->kept[--windows->nkept];
        mcoll_window_unlink(windows, w);
        mcoll_window_link(windows, w);
    }
    free(windows->kept_records);
    windows->kept_records = NULL;
    while ((w = windows->head) != NULL) {
        windows->head = w->next;
        if (w->kind == MCOLL_WINDOW_ALLOCATED) mcoll_symmetric_destroy(team, &w->memory);
        for (q = 0; q < team->size; q++) {
            if (!w->maps[q]) continue;
            if (w->parked) mcoll_reg_cache_release_parked(w->maps[q]);
            else mcoll_reg_cache_release(w->maps[q]);
        }
        free(w);
    }
}

void mcoll_window_destroy(mcoll_team *team, mcoll_window *w)
{
    mcoll_windows one = {.head = w};
    mcoll_windows_destroy(team, &one);
}
