/* The per-communicator set of decisions reported at INFO (see reported.h). */
#include <pthread.h>
#include "reported.h"
#include "comm_attr.h"
#include "log.h"

/* Calls on different communicators may report from different threads at once; one lock for all
 * sets is enough, since it is taken only when INFO is on. */
static pthread_mutex_t reported_lock = PTHREAD_MUTEX_INITIALIZER;

static int same(const mcoll_decision_key *a, const mcoll_decision_key *b)
{
    return a->call == b->call && a->form == b->form && a->path == b->path && a->why == b->why &&
           a->engine_why == b->engine_why;
}

int mcoll_reported_level(mcoll_reported *set, const mcoll_decision_key *key)
{
    int i, level = MCOLL_LOG_INFO;
    if (!set) return level;
    pthread_mutex_lock(&reported_lock);
    for (i = 0; i < set->count; i++)
        if (same(&set->keys[i], key)) level = MCOLL_LOG_TRACE;
    if (level == MCOLL_LOG_INFO && set->count < MCOLL_REPORTED_MAX) set->keys[set->count++] = *key;
    pthread_mutex_unlock(&reported_lock);
    return level;
}

int mcoll_reported_level_of(MPI_Comm comm, const char *name)
{
    mcoll_comm_state *cs = mcoll_comm_state_find(comm); /* not collective: no locality question */
    mcoll_decision_key key = {name, 0, 0, NULL, NULL};
    return mcoll_reported_level(cs ? &cs->reported : NULL, &key);
}
