/* The plug-in's per-communicator records (see comm_attr.h). They are kept in one list, newest
 * engine first, so that MPI_Finalize can free what MPI_Comm_free has not. */
#include <pthread.h>
#include <stdlib.h>
#include "comm_attr.h"
#include "config.h"
#include "driver.h"
#include "hier.h"
#include "log.h"
#include "mcoll.h"
#include "request.h"
#include "watchdog.h"

static int keyval = MPI_KEYVAL_INVALID;
static pthread_mutex_t list_lock = PTHREAD_MUTEX_INITIALIZER;
static mcoll_comm_state *list_head;
/* Set once MPI_Finalize has freed every state: callbacks that come later have nothing to free. */
static int states_gone;

/* Both with list_lock held. */
static void unlink_state(mcoll_comm_state *s)
{
    if (s->prev) s->prev->next = s->next;
    else list_head = s->next;
    if (s->next) s->next->prev = s->prev;
    s->prev = s->next = NULL;
}

static void push_state(mcoll_comm_state *s)
{
    s->prev = NULL;
    s->next = list_head;
    if (list_head) list_head->prev = s;
    list_head = s;
}

/* MPI_Comm_free (collective, so the engine's teardown barrier meets on every rank). */
static int delete_state(MPI_Comm comm, int key, void *value, void *extra)
{
    mcoll_comm_state *s = (mcoll_comm_state *)value;
    (void)comm; (void)key; (void)extra;
    if (states_gone) return MPI_SUCCESS;
    pthread_mutex_lock(&list_lock);
    unlink_state(s);
    pthread_mutex_unlock(&list_lock);
    mcoll_requests_comm_freed(s); /* operations still using the engine finish first */
    if (s->engine) mcoll_comm_destroy(s->engine);
    mcoll_hier_free(s->hier);
    free(s);
    return MPI_SUCCESS;
}

int mcoll_comm_attr_init(void)
{
    states_gone = 0;
    if (PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_state, &keyval, NULL) != MPI_SUCCESS) {
        MCOLL_WARN("MPI_Comm_create_keyval failed: every call goes to MPI");
        return MCOLL_ERR_MPI;
    }
    return MCOLL_SUCCESS;
}

/* Runs inside MPI_Finalize, from the MPI_COMM_SELF delete callback: the states are freed here
 * rather than through MPI_Comm_delete_attr, which must not touch MPI_COMM_SELF's attributes
 * while MPI is deleting them. Engines go first, newest first (see mcoll_comm_state_set_engine),
 * while MPI still works: their teardown ends in a barrier. */
void mcoll_comm_attr_finalize(void)
{
    mcoll_comm_state *s, *next, *all;
    pthread_mutex_lock(&list_lock);
    all = list_head;
    list_head = NULL;
    states_gone = 1;
    pthread_mutex_unlock(&list_lock);
    for (s = all; s; s = s->next) {
        if (s->engine) mcoll_comm_destroy(s->engine);
        mcoll_hier_free(s->hier);
    }
    for (s = all; s; s = next) {
        next = s->next;
        free(s);
    }
    if (keyval != MPI_KEYVAL_INVALID) PMPI_Comm_free_keyval(&keyval);
}

void mcoll_comm_state_set_engine(mcoll_comm_state *s, mcoll_comm *engine)
{
    s->engine_tried = 1;
    s->engine = engine;
    if (engine) mcoll_comm_state_engine_built(s);
}

void mcoll_comm_state_engine_built(mcoll_comm_state *s)
{
    /* To the head: the list then holds the engines newest first. */
    pthread_mutex_lock(&list_lock);
    unlink_state(s);
    push_state(s);
    pthread_mutex_unlock(&list_lock);
}

static int engines_possible(void)
{
    return mcoll_driver_available() && mcoll_settings_get()->engine != MCOLL_ENGINE_STAGED;
}

/* ask: find out now whether the communicator is one NVLink domain (see comm_attr.h). */
static mcoll_comm_state *state_of(MPI_Comm comm, int ask)
{
    mcoll_comm_state *s;
    void *value = NULL;
    int flag = 0, lost;

    if (keyval == MPI_KEYVAL_INVALID) return NULL;
    if (PMPI_Comm_get_attr(comm, keyval, &value, &flag) != MPI_SUCCESS) return NULL;
    s = (mcoll_comm_state *)value;
    if (flag) {
        if (ask && s->one_domain < 0 && engines_possible()) mcoll_comm_one_domain(s);
        return s;
    }

    s = (mcoll_comm_state *)calloc(1, sizeof *s);
    if (!s) return NULL;
    s->comm = comm;
    s->one_domain = -1;
    if (PMPI_Comm_rank(comm, &s->rank) != MPI_SUCCESS || PMPI_Comm_size(comm, &s->size) != MPI_SUCCESS ||
        PMPI_Comm_test_inter(comm, &s->is_inter) != MPI_SUCCESS) {
        free(s);
        return NULL;
    }
    s->remote_size = s->size;
    if (s->is_inter && PMPI_Comm_remote_size(comm, &s->remote_size) != MPI_SUCCESS) {
        free(s);
        return NULL;
    }
    if (PMPI_Comm_set_attr(comm, keyval, s) != MPI_SUCCESS) {
        free(s);
        return NULL;
    }
    pthread_mutex_lock(&list_lock);
    push_state(s);
    pthread_mutex_unlock(&list_lock);
    /* Asked now, in the first intercepted blocking collective on the communicator, which every
     * rank makes whatever its buffers are; asked later, only ranks with device buffers would
     * reach the collective split. Skipped where no engine can ever run. Nonblocking calls
     * (mcoll_comm_state_find) leave it to the decision, which asks only for device buffers.
     * Not where a rank has exited: the collective would wait for it (watchdog.h). */
    if (ask && engines_possible() && !mcoll_watch_lost_member(comm, &lost)) mcoll_comm_one_domain(s);
    return s;
}

mcoll_comm_state *mcoll_comm_state_get(MPI_Comm comm) { return state_of(comm, 1); }

mcoll_comm_state *mcoll_comm_state_find(MPI_Comm comm) { return state_of(comm, 0); }

int mcoll_comm_one_domain(mcoll_comm_state *s)
{
    if (s->one_domain >= 0) return s->one_domain;
    if (s->is_inter) return s->one_domain = 0;
    /* Its NVLink domains, learnt in one collective moment (hier.h: a few small collectives). A
     * failing MPI_Comm_split_type answers 0 on a communicator of several ranks. */
    s->one_domain = mcoll_hier_learn(s->comm, &s->hier);
    MCOLL_TRACE("communicator of %d ranks: %s, %s", s->size, s->one_domain ? "one NVLink domain" : "several domains",
                mcoll_hier_describe(s->hier));
    return s->one_domain;
}
