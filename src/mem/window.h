/* Windows: memory that every rank of a team brings to one collective call (mcoll_mem_alloc,
 * mcoll_mem_register), known by the same id on every rank, with every rank's part mapped by
 * every rank. A collective whose buffers lie in windows runs zero-copy: the kernels read and
 * write the peers' buffers through these mappings instead of a staging area.
 *
 * Layer: above team/ (which it uses), below api/ (which owns a team's windows). */
#ifndef MCOLL_WINDOW_H
#define MCOLL_WINDOW_H

#include <stddef.h>
#include <stdint.h>
#include "reg_cache.h"
#include "team.h"

/* CALL and CALL_ROOT: one call's buffers through MPI, mapped for that call (call_windows.h):
 * every rank's, or only the root's receive buffer of a reduce. Their id is 0. */
typedef enum {
    MCOLL_WINDOW_ALLOCATED,
    MCOLL_WINDOW_REGISTERED,
    MCOLL_WINDOW_CALL,
    MCOLL_WINDOW_CALL_ROOT
} mcoll_window_kind;

typedef struct mcoll_window {
    struct mcoll_window *next;
    uint64_t id;                          /* the same on every rank; never 0, never reused in a team
                                             (0: a call's window) */
    mcoll_window_kind kind;
    char *base;                           /* this rank's memory */
    size_t bytes;                         /* bytes usable on every rank: the smallest rank's, so that
                                             "the call's buffer lies in it" reads alike everywhere */
    char *peer[MCOLL_MAX_RANKS];          /* rank q's memory as mapped here; [rank] = base */
    mcoll_symmetric memory;               /* ALLOCATED: the allocations and their mappings */
    mcoll_peer_map *maps[MCOLL_MAX_RANKS];/* REGISTERED, CALL*: the cached peer mappings held */
    int parked;                           /* CALL*: kept between calls, its mappings parked */
} mcoll_window;

/* The most buffers one call maps (call_windows.h). */
#define MCOLL_CALL_BUFFERS 2

/* A team's windows, newest first. */
typedef struct {
    mcoll_window *head;
    uint64_t last_id;                     /* advanced by every collective creation, failed ones too */
    int calls_unmapped;                   /* mapping a call's buffers failed once (agreed by every
                                             rank): later calls are not mapped (call_windows.h) */
    unsigned long long calls_mapped;      /* calls whose buffers were mapped for them */
    unsigned long long requests_mapped;   /* persistent requests whose buffers were mapped for them */
    /* The last call's windows, kept out of the list between calls with every rank's description
     * of them (call_windows.c): the next call that every rank describes alike takes them again. */
    mcoll_window *kept[MCOLL_CALL_BUFFERS];
    int nkept;
    void *kept_records;                   /* every rank's record, as exchanged (malloc'd, team size) */
    unsigned long long calls_kept;        /* calls that took the last call's windows again */
} mcoll_windows;

/* A new window with the next id (not yet linked). NULL when out of memory; the id is used up
 * either way, so every rank's next one still matches. */
mcoll_window *mcoll_window_new(mcoll_windows *windows, mcoll_window_kind kind);
void mcoll_window_link(mcoll_windows *windows, mcoll_window *w);
void mcoll_window_unlink(mcoll_windows *windows, mcoll_window *w);
mcoll_window *mcoll_window_by_id(const mcoll_windows *windows, mcoll_window_kind kind, uint64_t id);
mcoll_window *mcoll_window_by_base(const mcoll_windows *windows, mcoll_window_kind kind, const void *base);
/* The window holding [ptr, ptr + bytes) within its usable bytes, or NULL. */
const mcoll_window *mcoll_window_find(const mcoll_windows *windows, const void *ptr, size_t bytes);

/* A call's windows kept for the next call (call_windows.c): their peer mappings parked between
 * calls (reg_cache.h), held again for a call. */
void mcoll_window_park(mcoll_window *w);
void mcoll_window_unpark(mcoll_window *w);

/* Every rank's result, agreed: MCOLL_SUCCESS when all succeeded, else the largest error code
 * any rank had (every rank returns the same). */
mcoll_result mcoll_window_agree(mcoll_team *team, mcoll_result mine);

/* Wait until no kernel of this process, then of any rank, can still touch the memory of a
 * window about to go (collective). */
void mcoll_window_quiesce(mcoll_team *team);

/* Collective creation and removal (alloc.c, register.c). Refusals are agreed, so every rank
 * returns the same result and nothing is left half made. */
mcoll_result mcoll_window_alloc(mcoll_team *team, mcoll_windows *windows, size_t bytes, void **ptr);
mcoll_result mcoll_window_free(mcoll_team *team, mcoll_windows *windows, void *ptr);
mcoll_result mcoll_window_register(mcoll_team *team, mcoll_windows *windows, void *ptr, size_t bytes,
                                   uint64_t *id);
mcoll_result mcoll_window_deregister(mcoll_team *team, mcoll_windows *windows, uint64_t id);

/* Map into w every peer's buffer described in all[q] (q != this rank; kind 0: rank q has none)
 * through the registration cache, exchanging VMM handles first where some rank's memory is
 * cuMemCreate memory (`retained`: this rank's, released here). Collective; the result is this
 * rank's alone, for the caller to agree on. */
mcoll_result mcoll_window_map(mcoll_team *team, mcoll_window *w, const mcoll_user_buffer *all,
                              CUmemGenericAllocationHandle retained, int have_retained);

/* Local: release one window that is in no list. */
void mcoll_window_destroy(mcoll_team *team, mcoll_window *w);

/* Local: release every window the team still has (its communicator is going away and every
 * rank has passed a barrier). */
void mcoll_windows_destroy(mcoll_team *team, mcoll_windows *windows);

#endif /* MCOLL_WINDOW_H */
