/* The launcher thread (see async.h). One mutex guards the queue, the thread's state and the
 * lanes' counts (which are also read without it, as a fast test); `wake` is what the sleeping
 * thread waits on, `idle` what callers waiting for a lane wait on. */
#define _POSIX_C_SOURCE 200809L /* pthread_sigmask under -std=c11 */
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include "async.h"
#include "clock.h"
#include "config.h"
#include "locality.h"
#include "log.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
static pthread_cond_t idle = PTHREAD_COND_INITIALIZER;
static pthread_once_t fork_once = PTHREAD_ONCE_INIT;
static pthread_t thread;
static int running;                   /* the thread exists */
static int stopping;                  /* asked to end once the queue is empty */
static int asleep;                    /* the thread waits on `wake` */
static int waiters;                   /* callers waiting on `idle` */
static mcoll_async_job *head, *tail;  /* queued, oldest first */
static atomic_int nqueued;            /* jobs in that queue: a test without the lock */
static mcoll_async_job *current;      /* the job being run (by the thread or a helping caller) */
static atomic_ullong submitted, finished; /* jobs queued, and run, since the process started */
static unsigned long sleeps, signals;
static _Thread_local int is_launcher;

/* Without the lock: poll the queue for up to `ns` (MCOLL_ASYNC_SPIN_US) before the thread
 * sleeps. A nonblocking call in a steady loop then finds the thread awake: its submit signals
 * nothing, and its launch starts at once instead of after a wake-up of several microseconds. */
static void stay_awake(uint64_t ns)
{
    const uint64_t since = mcoll_now_ns();
    while (!atomic_load_explicit(&nqueued, memory_order_relaxed) && mcoll_now_ns() - since < ns) {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
    }
}

/* With the lock held, the queue not empty and nobody running a job: run the oldest job, here,
 * without the lock (driver calls). The job launches behind the jobs before it, so its own launch
 * passes the lane wait (is_launcher), in the thread or in a caller that helps. */
static void run_head(void)
{
    mcoll_async_job *job = head;
    const int was_launcher = is_launcher;
    atomic_fetch_sub(&nqueued, 1);
    head = job->next;
    if (!head) tail = NULL;
    current = job;
    pthread_mutex_unlock(&lock);
    is_launcher = 1;
    job->run(job);
    is_launcher = was_launcher;
    pthread_mutex_lock(&lock);
    current = NULL;
    /* After the run: a caller waiting for the lane, or for every job before its call, may launch
     * behind this job now. */
    atomic_fetch_sub(&job->lane->queued, 1);
    atomic_fetch_add(&finished, 1);
    if (waiters) pthread_cond_broadcast(&idle);
}

static void *launcher(void *arg)
{
    const uint64_t spin_ns = (uint64_t)mcoll_settings_get()->async_spin_us * 1000;
    (void)arg;
    is_launcher = 1;
    pthread_mutex_lock(&lock);
    for (;;) {
        if (spin_ns && !head && !stopping) {
            pthread_mutex_unlock(&lock);
            stay_awake(spin_ns);
            pthread_mutex_lock(&lock);
        }
        /* While a caller runs jobs (mcoll_async_help) the thread waits: one runner at a time. */
        while (current || (!head && !stopping)) {
            asleep = 1;
            sleeps++;
            pthread_cond_wait(&wake, &lock);
            asleep = 0;
        }
        if (!head) break;
        run_head();
    }
    pthread_mutex_unlock(&lock);
    return NULL;
}

/* ---------------------------------------------------------------------------------------------
 * Fork: the child keeps the lock's state consistent (held across fork), has no thread, and
 * abandons what the parent's thread was to run.
 * ------------------------------------------------------------------------------------------- */
static void before_fork(void) { pthread_mutex_lock(&lock); }

static void after_fork_parent(void) { pthread_mutex_unlock(&lock); }

static void drop_job(mcoll_async_job *job)
{
    atomic_fetch_sub(&job->lane->queued, 1);
    if (job->abandon) job->abandon(job);
}

static void after_fork_child(void)
{
    mcoll_async_job *job = head, *next;
    if (current) drop_job(current);
    for (; job; job = next) {
        next = job->next;
        drop_job(job);
    }
    head = tail = current = NULL;
    atomic_store(&nqueued, 0);
    running = stopping = asleep = waiters = 0;
    pthread_cond_init(&wake, NULL);
    pthread_cond_init(&idle, NULL);
    pthread_mutex_unlock(&lock);
}

static void register_fork(void) { pthread_atfork(before_fork, after_fork_parent, after_fork_child); }

/* With the lock held, once per process: whether the caller may run on more than one core. A
 * caller bound to one core (mpirun --bind-to core, the default of Open MPI for two ranks or
 * fewer) would share it with the thread: the launch would then only take turns with the
 * caller's own work on that core, and the thread's polls would take from it. */
static int one_core_only(void)
{
    static int known, alone;
    if (known) return alone;
    known = 1;
    alone = mcoll_locality_thread_cores() == 1;
    if (alone)
        MCOLL_INFO("MCOLL_ASYNC_START: this rank is bound to one core, which a launcher thread would share with it: "
                   "nonblocking calls launch in the caller (bind each rank to two cores or more to use the thread)");
    return alone;
}

/* With the lock held. The thread takes no signals: they stay with the application's threads. */
static int start_thread(void)
{
    static int said_started; /* the INFO line below: once per process */
    sigset_t all, old;
    int rc;
    if (one_core_only()) return -1;
    pthread_once(&fork_once, register_fork);
    if (!said_started) {
        said_started = 1;
        MCOLL_INFO("MCOLL_ASYNC_START=1: nonblocking and persistent calls' launches go to a launcher thread, which "
                   "polls for %d us after each launch", mcoll_settings_get()->async_spin_us);
    }
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    rc = pthread_create(&thread, NULL, launcher, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        MCOLL_WARN("cannot start the launcher thread (error %d): nonblocking calls launch in the caller", rc);
        return -1;
    }
    running = 1;
    return 0;
}

int mcoll_async_submit(mcoll_async_job *job)
{
    int signal_it;
    pthread_mutex_lock(&lock);
    if (!running && start_thread() != 0) {
        pthread_mutex_unlock(&lock);
        return -1;
    }
    job->next = NULL;
    if (tail) tail->next = job;
    else head = job;
    tail = job;
    atomic_fetch_add(&nqueued, 1);
    atomic_fetch_add(&job->lane->queued, 1);
    atomic_fetch_add(&submitted, 1);
    /* A busy thread finds the job when it looks at the queue again: no system call. */
    signal_it = asleep;
    if (signal_it) {
        asleep = 0;
        signals++;
    }
    pthread_mutex_unlock(&lock);
    if (signal_it) pthread_cond_signal(&wake);
    return 0;
}

/* With the lock held: whether a job of `lane` is still in the queue (NULL: any job). */
static int lane_in_queue(const mcoll_async_lane *lane)
{
    for (const mcoll_async_job *job = head; job; job = job->next)
        if (!lane || job->lane == lane) return 1;
    return 0;
}

/* With the lock held, after a caller ran queued jobs: a thread asked to end waited for this
 * runner, and jobs queued meanwhile by other threads signalled a thread that then waited for it
 * too; wake it. */
static void resume_thread(void)
{
    if (asleep && (head || stopping)) {
        asleep = 0;
        pthread_cond_signal(&wake);
    }
}

void mcoll_async_help(mcoll_async_lane *lane)
{
    if (is_launcher || !atomic_load(&nqueued)) return;
    pthread_mutex_lock(&lock);
    for (;;) {
        while (current && lane_in_queue(lane)) { /* the thread runs an earlier job: after it */
            waiters++;
            pthread_cond_wait(&idle, &lock);
            waiters--;
        }
        if (!lane_in_queue(lane)) break;
        run_head();
    }
    resume_thread();
    pthread_mutex_unlock(&lock);
}

void mcoll_async_wait_earlier(void)
{
    const unsigned long long target = atomic_load(&submitted);
    if (is_launcher || atomic_load(&finished) >= target) return;
    pthread_mutex_lock(&lock);
    waiters++;
    /* Jobs run oldest first: those before the call are done once `finished` has reached it. */
    while (atomic_load(&finished) < target) {
        if (!current && head) {
            run_head();
            continue;
        }
        pthread_cond_wait(&idle, &lock);
    }
    waiters--;
    resume_thread();
    pthread_mutex_unlock(&lock);
}

void mcoll_async_wait_lane(mcoll_async_lane *lane)
{
    if (!atomic_load(&lane->queued) || is_launcher) return;
    mcoll_async_help(lane);
    if (!atomic_load(&lane->queued)) return;
    pthread_mutex_lock(&lock);
    waiters++;
    while (atomic_load(&lane->queued)) pthread_cond_wait(&idle, &lock);
    waiters--;
    pthread_mutex_unlock(&lock);
}

void mcoll_async_shutdown(void)
{
    pthread_t t;
    pthread_mutex_lock(&lock);
    if (!running || is_launcher) {
        pthread_mutex_unlock(&lock);
        return;
    }
    stopping = 1;
    t = thread;
    pthread_cond_signal(&wake);
    pthread_mutex_unlock(&lock);
    pthread_join(t, NULL);
    pthread_mutex_lock(&lock);
    running = stopping = 0;
    pthread_mutex_unlock(&lock);
}

int mcoll_async_in_launcher(void) { return is_launcher; }

int mcoll_async_running(void)
{
    int r;
    pthread_mutex_lock(&lock);
    r = running;
    pthread_mutex_unlock(&lock);
    return r;
}

void mcoll_async_counts(unsigned long *s, unsigned long *g)
{
    pthread_mutex_lock(&lock);
    *s = sleeps;
    *g = signals;
    pthread_mutex_unlock(&lock);
}
