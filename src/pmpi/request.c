/* mcoll's requests (see request.h): the registry of operations, their generalized requests,
 * progress, and the ends of their lives.
 *
 * Locking. One recursive lock guards the registry (the list of operations in flight, the two
 * hash tables, each operation's lifetime flags); MPI functions are never called while holding
 * it, since the MPI may call back into mcoll (the generalized requests' functions) from any
 * thread. One thread at a time advances the operations; only that thread takes operations off
 * the list in flight, so it walks the list without holding the lock.
 *
 * Lifetime of one start. The MPI may call the free function before or after the request is
 * completed (MPICH calls it from MPI_Request_free at once, Open MPI when both have happened), so
 * a start ends when both have: the free function ran (mpi_freed) and MPI_Grequest_complete was
 * called (completed). Whichever comes second ends it: a nonblocking operation is freed, a
 * persistent one becomes inactive (or is freed, when the user freed it while it was active). */
#define _GNU_SOURCE /* PTHREAD_MUTEX_RECURSIVE under -std=c11 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "operation.h"
#include "validate.h"
#include "clock.h"
#include "log.h"

#define BUCKETS 1024

static pthread_once_t lock_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t lock;
static pthread_mutex_t advancing = PTHREAD_MUTEX_INITIALIZER;
static mcoll_nbop *in_flight;
static atomic_int live, pending;

static void lock_init(void)
{
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&lock, &a);
    pthread_mutexattr_destroy(&a);
}

static void enter(void)
{
    pthread_once(&lock_once, lock_init);
    pthread_mutex_lock(&lock);
}

static void leave(void) { pthread_mutex_unlock(&lock); }

/* A request handle is a pointer (Open MPI) or an integer (MPICH): hash its bytes. */
static size_t bucket(MPI_Request r)
{
    uint64_t v = 0;
    memcpy(&v, &r, sizeof r < sizeof v ? sizeof r : sizeof v);
    return (size_t)((v * 0x9e3779b97f4a7c15ull) >> 54) & (BUCKETS - 1);
}

/* The registry; all with the lock held. Two hash tables: operations by the generalized
 * request of their current start, persistent ones by the handle the user holds. */
enum { BY_GREQ, BY_HANDLE };
static mcoll_nbop *table[2][BUCKETS];

static MPI_Request key(const mcoll_nbop *op, int t) { return t == BY_GREQ ? op->greq : op->handle; }

static mcoll_nbop *find(int t, MPI_Request r)
{
    mcoll_nbop *op;
    for (op = table[t][bucket(r)]; op; op = op->chain[t])
        if (key(op, t) == r) return op;
    return NULL;
}

static void add(int t, mcoll_nbop *op)
{
    size_t b = bucket(key(op, t));
    op->chain[t] = table[t][b];
    table[t][b] = op;
    atomic_fetch_add(&live, 1);
}

static void drop(int t, mcoll_nbop *op)
{
    mcoll_nbop **at;
    for (at = &table[t][bucket(key(op, t))]; *at; at = &(*at)->chain[t])
        if (*at == op) {
            *at = op->chain[t];
            atomic_fetch_sub(&live, 1);
            return;
        }
}

static void push_in_flight(mcoll_nbop *op)
{
    op->prev = NULL;
    op->next = in_flight;
    if (in_flight) in_flight->prev = op;
    in_flight = op;
    atomic_fetch_add(&pending, 1);
}

static void drop_in_flight(mcoll_nbop *op)
{
    if (op->prev) op->prev->next = op->next;
    else in_flight = op->next;
    if (op->next) op->next->prev = op->prev;
    op->prev = op->next = NULL;
    atomic_fetch_sub(&pending, 1);
}

/* ---------------------------------------------------------------------------------------------
 * Ends of lives
 * ------------------------------------------------------------------------------------------- */
static void destroy(mcoll_nbop *op)
{
    mcoll_nbop_release(op);
    free(op);
}

/* Both the free function and MPI_Grequest_complete have happened for the current start. */
static void start_over(mcoll_nbop *op)
{
    int gone;
    if (!op->persistent) {
        destroy(op);
        return;
    }
    enter();
    op->active = 0;
    op->state = MCOLL_NB_IDLE;
    op->greq = MPI_REQUEST_NULL;
    gone = op->user_freed;
    leave();
    if (gone) destroy(op);
}

/* The operation is done: complete its generalized request. */
static void complete(mcoll_nbop *op)
{
    MPI_Request greq;
    int freed;
    enter();
    op->completed = 1;
    greq = op->greq;
    freed = op->mpi_freed;
    leave();
    /* The MPI may run the free function inside (Open MPI does when the request was freed). */
    PMPI_Grequest_complete(greq);
    if (freed) start_over(op);
}

/* ---------------------------------------------------------------------------------------------
 * The generalized request's functions
 * ------------------------------------------------------------------------------------------- */
/* A collective's status: no source, tag or data; the error class of the operation. */
static int query_fn(void *state, MPI_Status *status)
{
    mcoll_nbop *op = (mcoll_nbop *)state;
    int err;
    enter();
    err = op->error;
    leave();
    PMPI_Status_set_elements(status, MPI_BYTE, 0);
    PMPI_Status_set_cancelled(status, 0);
    status->MPI_SOURCE = MPI_ANY_SOURCE;
    status->MPI_TAG = MPI_ANY_TAG;
    if (err != MPI_SUCCESS) status->MPI_ERROR = err;
    return err;
}

static int free_fn(void *state)
{
    mcoll_nbop *op = (mcoll_nbop *)state;
    int err, done;
    enter();
    err = op->error;
    drop(BY_GREQ, op);
    op->mpi_freed = 1;
    done = op->completed;
    leave();
    if (done) start_over(op);
    return err;
}

/* MPI makes cancelling a collective erroneous; nothing is cancelled. */
static int cancel_fn(void *state, int complete)
{
    (void)state;
    (void)complete;
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------------------------------------------
 * Starts
 * ------------------------------------------------------------------------------------------- */
/* Launch the current start and give it a generalized request. */
static int start(mcoll_nbop *op)
{
    MPI_Request greq = MPI_REQUEST_NULL;
    const uint64_t t0 = mcoll_trace_ns();
    int err = mcoll_nbop_launch(op);
    uint64_t t1;
    if (err != MPI_SUCCESS) return err;
    t1 = mcoll_trace_ns();
    err = PMPI_Grequest_start(query_fn, free_fn, cancel_fn, op, &greq);
    /* Where a start's time goes (what overlap with computation cannot hide). */
    MCOLL_TRACE("%s: %.2f us to launch, post or queue, %.2f us for the generalized request", op->nb->name,
                mcoll_trace_us(t0, t1), mcoll_trace_us(t1, mcoll_trace_ns()));
    if (err == MPI_SUCCESS) {
        enter();
        op->completed = op->mpi_freed = 0;
        op->greq = greq;
        op->active = 1;
        add(BY_GREQ, op);
        push_in_flight(op);
        leave();
        return MPI_SUCCESS;
    }
    /* Without a request the work is still under way on every rank: finish it here. */
    while (!mcoll_nbop_advance(op)) sched_yield();
    return err;
}

int mcoll_nbop_create(const mcoll_call *c, const mcoll_decision *d, const mcoll_nb_coll *nb, int persistent,
                    MPI_Request *request)
{
    mcoll_nbop *op = (mcoll_nbop *)calloc(1, sizeof *op);
    int err;
    if (!op) return mcoll_raise(c->comm, MPI_ERR_NO_MEM);
    op->call = *c;
    op->d = *d;
    op->nb = nb;
    op->persistent = persistent;
    op->greq = op->handle = op->inner = MPI_REQUEST_NULL;
    if (persistent) {
        /* What the user holds between starts: an inactive request of the MPI's own. */
        err = PMPI_Recv_init(NULL, 0, MPI_BYTE, MPI_PROC_NULL, 0, MPI_COMM_SELF, &op->handle);
        if (err != MPI_SUCCESS) {
            free(op);
            return mcoll_raise(c->comm, err);
        }
        mcoll_nbop_map_once(op);
        enter();
        add(BY_HANDLE, op);
        leave();
        *request = op->handle;
        mcoll_pmpi_log_path(&op->call, &op->d);
        return MPI_SUCCESS;
    }
    err = start(op);
    if (err == MCOLL_NB_DECLINED) {
        mcoll_decide_without_engine(&op->call, &op->d, "declined");
        if (op->d.path != MCOLL_PATH_STAGED) {
            free(op);
            return MCOLL_PMPI_FORWARD;
        }
        err = start(op);
    }
    if (err != MPI_SUCCESS) {
        destroy(op);
        return err;
    }
    mcoll_pmpi_log_path(&op->call, &op->d);
    *request = op->greq;
    return MPI_SUCCESS;
}

int mcoll_nbop_start(mcoll_nbop *op)
{
    int busy, gone, err;
    enter();
    busy = op->active;
    gone = !op->call.cs;
    leave();
    /* A freed communicator's handle is no longer valid: MPI_COMM_WORLD's handler. */
    if (busy || gone) return mcoll_raise(gone ? MPI_COMM_NULL : op->call.comm, MPI_ERR_REQUEST);
    err = start(op);
    if (err == MCOLL_NB_DECLINED) {
        MCOLL_WARN("%s: the GPU engine of a persistent request is gone; MPI_ERR_OTHER raised", op->nb->name);
        err = mcoll_raise(op->call.comm, MPI_ERR_OTHER);
    }
    return err;
}

void mcoll_nbop_free_persistent(mcoll_nbop *op)
{
    MPI_Request handle, greq;
    int active;
    enter();
    drop(BY_HANDLE, op);
    handle = op->handle;
    op->handle = MPI_REQUEST_NULL;
    active = op->active;
    op->user_freed = active;
    greq = op->greq;
    leave();
    PMPI_Request_free(&handle);
    if (!active) destroy(op);
    /* Active: MPI frees the start's request once it is complete, and start_over then frees op. */
    else PMPI_Request_free(&greq);
}

/* ---------------------------------------------------------------------------------------------
 * Lookups
 * ------------------------------------------------------------------------------------------- */
mcoll_nbop *mcoll_request_persistent(MPI_Request r)
{
    mcoll_nbop *op;
    if (r == MPI_REQUEST_NULL || !atomic_load(&live)) return NULL;
    enter();
    op = find(BY_HANDLE, r);
    leave();
    return op;
}

int mcoll_request_pending(MPI_Request r)
{
    mcoll_nbop *op;
    int yes;
    if (r == MPI_REQUEST_NULL || !atomic_load(&pending)) return 0;
    enter();
    op = find(BY_GREQ, r);
    yes = op && !op->completed;
    leave();
    return yes;
}

MPI_Request mcoll_request_active(const mcoll_nbop *op)
{
    MPI_Request r;
    enter();
    r = op->active ? op->greq : MPI_REQUEST_NULL;
    leave();
    return r;
}

int mcoll_nbop_is_persistent(const mcoll_nbop *op) { return op->persistent; }

/* An operation whose request was freed early (MPICH runs the free function in MPI_Request_free)
 * is no longer in the tables but still in flight: it counts until it is done. */
int mcoll_requests_live(void) { return atomic_load(&live) + atomic_load(&pending); }

/* ---------------------------------------------------------------------------------------------
 * Progress
 * ------------------------------------------------------------------------------------------- */
void mcoll_requests_progress(void)
{
    static _Thread_local int inside; /* an error handler called from in here calls MPI again */
    mcoll_nbop *op, *next;
    int done;
    if (inside || !atomic_load(&pending)) return;
    if (pthread_mutex_trylock(&advancing) != 0) return; /* another thread is at it */
    inside = 1;
    enter();
    op = in_flight;
    leave();
    while (op) {
        done = mcoll_nbop_advance(op); /* driver and MPI calls: without the lock */
        enter();
        next = op->next;
        if (done) drop_in_flight(op);
        leave();
        if (done) complete(op);
        op = next;
    }
    inside = 0;
    pthread_mutex_unlock(&advancing);
}

/* Until `busy` says no operation in flight matches. */
static void drain(int (*busy)(const mcoll_nbop *op, const void *arg), const void *arg)
{
    mcoll_nbop *op;
    int left = 1;
    while (left) {
        left = 0;
        enter();
        for (op = in_flight; op && !left; op = op->next) left = busy(op, arg);
        leave();
        if (!left) break;
        mcoll_requests_progress();
        sched_yield();
    }
}

static int uses_engine(const mcoll_nbop *op, const void *engine)
{
    return (op->state == MCOLL_NB_RING || op->state == MCOLL_NB_QUEUED || op->state == MCOLL_NB_KERNEL) &&
           op->engine == (const mcoll_comm *)engine;
}

/* An operation whose MPI calls on the communicator (or its hierarchy's sub-communicators) are
 * still to come or in flight: those must end before it goes, and Open MPI 4.1 crashes in its
 * progress when a communicator is freed under a pending nonblocking collective, which MPI
 * allows. */
static int uses_comm(const mcoll_nbop *op, const void *comm)
{
    return (op->state == MCOLL_NB_MPI || op->state == MCOLL_NB_HIER) && op->call.comm == *(const MPI_Comm *)comm;
}

static int any(const mcoll_nbop *op, const void *arg)
{
    (void)op;
    (void)arg;
    return 1;
}

void mcoll_requests_comm_freed(mcoll_comm_state *cs)
{
    mcoll_nbop *op;
    int b;
    if (!mcoll_requests_live()) return;
    enter();
    for (b = 0; b < BUCKETS; b++)
        for (op = table[BY_HANDLE][b]; op; op = op->chain[BY_HANDLE])
            if (op->call.cs == cs) op->call.cs = NULL;
    leave();
    drain(uses_comm, &cs->comm);
    if (!cs->engine) return;
    drain(uses_engine, cs->engine);
    /* Persistent requests outlive the communicator (they can no longer be started): the peers'
     * buffers they hold mapped go now, before the team. */
    enter();
    for (b = 0; b < BUCKETS; b++)
        for (op = table[BY_HANDLE][b]; op; op = op->chain[BY_HANDLE])
            if (op->held.engine == cs->engine) mcoll_engine_release_held(&op->held);
    leave();
}

void mcoll_requests_finalize(void)
{
    mcoll_nbop *op, *next;
    int b;
    /* Operations whose requests were freed, or never waited for, finish here; their launches
     * have then all run, and the launcher thread ends before the engines go. */
    drain(any, NULL);
    mcoll_async_shutdown();
    enter();
    for (b = 0; b < BUCKETS; b++) {
        for (op = table[BY_HANDLE][b]; op; op = next) {
            next = op->chain[BY_HANDLE];
            PMPI_Request_free(&op->handle);
            atomic_fetch_sub(&live, 1);
            /* Active: its start's request is the user's; MPI may still call its functions. */
            if (op->active) mcoll_nbop_release(op);
            else destroy(op);
        }
        table[BY_HANDLE][b] = NULL;
        /* Requests completed but never waited for: their memory stays for the MPI. */
        for (op = table[BY_GREQ][b]; op; op = op->chain[BY_GREQ]) mcoll_nbop_release(op);
    }
    leave();
    mcoll_pool_finalize();
}
