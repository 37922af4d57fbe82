/* The registration cache (reg_cache.h): a list under one lock. Lookups are rare (one per peer
 * per registration), so a list is enough. */
#include <pthread.h>
#include <stdlib.h>
#include "checks.h"
#include "config.h"
#include "reg_cache.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static mcoll_peer_map *entries;
static uint64_t clock_ticks;
static long mapped_total;

/* One process: pids repeat on other nodes of a team that spans nodes. */
static int same_owner(const mcoll_user_buffer *a, const mcoll_user_buffer *b)
{
    return a->pid == b->pid && a->host == b->host;
}

static int same_range(const mcoll_user_buffer *a, const mcoll_user_buffer *b)
{
    return same_owner(a, b) && a->base == b->base && a->size == b->size;
}

static int overlaps(const mcoll_user_buffer *a, const mcoll_user_buffer *b)
{
    return same_owner(a, b) && a->base < b->base + b->size && b->base < a->base + a->size;
}

/* Unmap the entry and take it out of the cache; freed now unless parked windows still point at
 * it (then dead until they let go). */
static void drop(mcoll_peer_map **link)
{
    mcoll_peer_map *m = *link;
    *link = m->next;
    m->next = NULL;
    mcoll_peer_map_close(m);
    if (m->parked) m->dead = 1;
    else free(m);
}

/* Unused entries beyond the limit go, least recently used first; entries of memory that was
 * freed (another buffer id now lies over their range) go at once, parked ones too: nothing can
 * use them again, and the new buffer cannot be mapped while they are. */
static void evict(const mcoll_user_buffer *now_there)
{
    const int limit = mcoll_settings_get()->reg_cache;
    for (;;) {
        mcoll_peer_map **link, **oldest = NULL;
        int unused = 0;
        for (link = &entries; *link;) {
            mcoll_peer_map *m = *link;
            if (!m->users && now_there && overlaps(&m->key, now_there) && m->key.buffer_id != now_there->buffer_id) {
                MCOLL_INFO("registration cache: pid %d freed the buffer at %#llx: unmapping its old mapping%s",
                           m->key.pid, (unsigned long long)m->key.base,
                           m->parked ? " (kept for a communicator's next call)" : "");
                drop(link);
                continue;
            }
            if (!m->users && !m->parked) {
                unused++;
                if (!oldest || m->last_use < (*oldest)->last_use) oldest = link;
            }
            link = &m->next;
        }
        if (unused <= limit || !oldest) return;
        drop(oldest);
    }
}

/* After a holder let go: a dead entry is freed with its last holder; a live one may make the
 * cache evict. */
static void settle(mcoll_peer_map *m)
{
    if (!m->dead) evict(NULL);
    else if (!m->users && !m->parked) free(m);
}

mcoll_result mcoll_reg_cache_acquire(int device, const mcoll_user_buffer *peer, CUmemGenericAllocationHandle imported,
                                     mcoll_peer_map **out)
{
    mcoll_peer_map *m;
    mcoll_result rc;
    pthread_mutex_lock(&lock);
    evict(peer);
    for (m = entries; m; m = m->next)
        if (m->device == device && same_range(&m->key, peer) && m->key.buffer_id == peer->buffer_id) break;
    if (m) {
        m->users++;
        pthread_mutex_unlock(&lock);
        if (peer->kind == MCOLL_USER_VMM) CU_WARN(cuMemRelease(imported)); /* mapped already */
        *out = m;
        return MCOLL_SUCCESS;
    }
    m = calloc(1, sizeof *m);
    if (!m) {
        pthread_mutex_unlock(&lock);
        if (peer->kind == MCOLL_USER_VMM) CU_WARN(cuMemRelease(imported));
        return MCOLL_ERR_NO_MEMORY;
    }
    m->key = *peer;
    m->device = device;
    rc = mcoll_peer_map_open(m, imported);
    if (rc != MCOLL_SUCCESS) {
        pthread_mutex_unlock(&lock);
        free(m);
        return rc;
    }
    m->users = 1;
    m->next = entries;
    entries = m;
    mapped_total++;
    pthread_mutex_unlock(&lock);
    *out = m;
    return MCOLL_SUCCESS;
}

void mcoll_reg_cache_release(mcoll_peer_map *map)
{
    pthread_mutex_lock(&lock);
    map->users--;
    map->last_use = ++clock_ticks;
    settle(map);
    pthread_mutex_unlock(&lock);
}

void mcoll_reg_cache_park(mcoll_peer_map *map)
{
    pthread_mutex_lock(&lock);
    map->users--;
    map->parked++;
    map->last_use = ++clock_ticks;
    pthread_mutex_unlock(&lock);
}

void mcoll_reg_cache_unpark(mcoll_peer_map *map)
{
    pthread_mutex_lock(&lock);
    map->parked--;
    map->users++;
    pthread_mutex_unlock(&lock);
}

void mcoll_reg_cache_release_parked(mcoll_peer_map *map)
{
    pthread_mutex_lock(&lock);
    map->parked--;
    settle(map);
    pthread_mutex_unlock(&lock);
}

void mcoll_reg_cache_flush(void)
{
    mcoll_peer_map **link;
    pthread_mutex_lock(&lock);
    for (link = &entries; *link;)
        if (!(*link)->users && !(*link)->parked) drop(link);
        else link = &(*link)->next;
    pthread_mutex_unlock(&lock);
}

void mcoll_reg_cache_stats(int *count, int *in_use, long *mapped)
{
    mcoll_peer_map *m;
    pthread_mutex_lock(&lock);
    *count = *in_use = 0;
    for (m = entries; m; m = m->next) {
        (*count)++;
        *in_use += m->users > 0 || m->parked > 0;
    }
    *mapped = mapped_total;
    pthread_mutex_unlock(&lock);
}
