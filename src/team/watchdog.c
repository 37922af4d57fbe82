/* The watchdog thread and the teams' abort flags (see watchdog.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <mpi.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include "checks.h"
#include "clock.h"
#include "watchdog.h"

/* How often the peers are looked at, and how long a process may keep running once a flag is
 * up without any call taking the failure before the watchdog ends the job. */
#define WATCH_PERIOD_MS 500
#define WATCH_GRACE_S 5.0

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
/* MPI_COMM_WORLD ranks of the processes seen to exit, for the life of the process. */
#define MAX_LOST 64
static int lost[MAX_LOST], nlost;
static int any_lost; /* atomic: nlost > 0 */
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
static mcoll_watch *watched;
static pthread_t thread;
static int running, stopping;

static double now_s(void) { return (double)mcoll_now_ns() * 1e-9; }

static void raise_flag(mcoll_watch *w, double now)
{
    *w->flag = 1;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    w->raised_at = now;
}

/* The first peer of this node whose process no longer exists, or -1. EPERM means it exists. */
static int dead_peer(const mcoll_watch *w)
{
    int i;
    for (i = 0; i < w->size; i++)
        if (i != w->rank && w->pids[i] > 0 && kill(w->pids[i], 0) != 0 && errno == ESRCH) return i;
    return -1;
}

/* Under the lock. */
static void remember_lost(int world_rank)
{
    int i;
    if (world_rank == MPI_UNDEFINED || world_rank < 0) return;
    for (i = 0; i < nlost; i++)
        if (lost[i] == world_rank) return;
    if (nlost < MAX_LOST) lost[nlost++] = world_rank;
    __atomic_store_n(&any_lost, 1, __ATOMIC_RELEASE);
}

static void check(mcoll_watch *w, double now)
{
    int dead;
    if (w->raised_at > 0) {
        if (!w->taken && now - w->raised_at > WATCH_GRACE_S) {
            MCOLL_WARN("no call has taken the failure of local rank %d's team within %.0f s (the process may be "
                       "blocked in MPI with a dead peer): aborting the job",
                       w->rank, WATCH_GRACE_S);
            PMPI_Abort(MPI_COMM_WORLD, 1);
        }
        return;
    }
    dead = dead_peer(w);
    if (dead >= 0) {
        MCOLL_WARN("local rank %d (pid %d) of this communicator's team has exited while this rank may wait for "
                   "it on the GPU: the team's GPU waits end now and its calls fail",
                   dead, (int)w->pids[dead]);
        raise_flag(w, now);
        remember_lost(w->world[dead]);
    } else if (w->timeout_s > 0 && w->call_started > 0 && now - w->call_started > w->timeout_s) {
        MCOLL_WARN("a collective of local rank %d has waited %.0f s for its peers (MCOLL_TIMEOUT=%d): a peer left "
                   "the collective or called another one; the team's GPU waits end now and the call fails",
                   w->rank, now - w->call_started, w->timeout_s);
        raise_flag(w, now);
    }
}

static void *watch_loop(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&lock);
    while (!stopping) {
        struct timespec until;
        mcoll_watch *w;
        double now = now_s();
        for (w = watched; w; w = w->next) check(w, now);
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += WATCH_PERIOD_MS * 1000000L;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&wake, &lock, &until);
    }
    pthread_mutex_unlock(&lock);
    return NULL;
}

mcoll_result mcoll_watch_start(mcoll_watch *w)
{
    void *host = NULL;
    sigset_t all, old;
    int rc;
    CU_RETURN(cuMemHostAlloc(&host, sizeof(uint32_t), CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE));
    w->flag = host;
    *w->flag = 0;
    if (mcoll_cu.cuMemHostGetDevicePointer(&w->flag_device, host, 0) != CUDA_SUCCESS) {
        CU_WARN(cuMemFreeHost(host));
        w->flag = NULL;
        return MCOLL_ERR_CUDA;
    }
    w->call_started = w->raised_at = 0;
    w->taken = 0;
    pthread_mutex_lock(&lock);
    w->next = watched;
    watched = w;
    rc = 0;
    if (!running) {
        /* The thread must not take the application's signals. */
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old);
        stopping = 0;
        rc = pthread_create(&thread, NULL, watch_loop, NULL);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        running = rc == 0;
        /* Named for ps and debuggers (and the fault tests, which wait for it to appear). */
        if (running) pthread_setname_np(thread, "mcoll-watchdog");
    }
    pthread_mutex_unlock(&lock);
    if (rc) MCOLL_WARN("cannot start the watchdog thread (%s): a dead peer will not be noticed", strerror(rc));
    return MCOLL_SUCCESS;
}

void mcoll_watch_stop(mcoll_watch *w)
{
    mcoll_watch **p;
    int join = 0;
    if (!w->flag) return;
    pthread_mutex_lock(&lock);
    for (p = &watched; *p; p = &(*p)->next)
        if (*p == w) {
            *p = w->next;
            break;
        }
    if (!watched && running) {
        stopping = 1;
        pthread_cond_signal(&wake);
        running = 0;
        join = 1;
    }
    pthread_mutex_unlock(&lock);
    if (join) pthread_join(thread, NULL);
    CU_WARN(cuMemFreeHost((void *)(uintptr_t)w->flag));
    w->flag = NULL;
}

void mcoll_watch_call_begin(mcoll_watch *w)
{
    pthread_mutex_lock(&lock);
    w->call_started = now_s();
    pthread_mutex_unlock(&lock);
}

void mcoll_watch_call_end(mcoll_watch *w)
{
    pthread_mutex_lock(&lock);
    w->call_started = 0;
    pthread_mutex_unlock(&lock);
}

int mcoll_watch_aborted(mcoll_watch *w)
{
    int up;
    if (!w->flag || !*w->flag) return 0;
    pthread_mutex_lock(&lock);
    up = w->raised_at > 0;
    if (up) w->taken = 1;
    pthread_mutex_unlock(&lock);
    return up;
}

/* The first of `n` processes (MPI_COMM_WORLD ranks) that is in `group`, or -1. */
static int first_in(MPI_Group world, MPI_Group group, const int *ranks, int n)
{
    int in[MAX_LOST], i;
    if (PMPI_Group_translate_ranks(world, n, ranks, group, in) != MPI_SUCCESS) return -1;
    for (i = 0; i < n; i++)
        if (in[i] != MPI_UNDEFINED) return ranks[i];
    return -1;
}

int mcoll_watch_lost_member(MPI_Comm comm, int *world_rank)
{
    int mine[MAX_LOST], n, inter = 0, found = -1;
    MPI_Group world, group;
    if (!__atomic_load_n(&any_lost, __ATOMIC_ACQUIRE)) return 0;
    pthread_mutex_lock(&lock);
    n = nlost;
    memcpy(mine, lost, (size_t)n * sizeof *mine);
    pthread_mutex_unlock(&lock);
    if (PMPI_Comm_group(MPI_COMM_WORLD, &world) != MPI_SUCCESS) return 0;
    if (PMPI_Comm_group(comm, &group) == MPI_SUCCESS) {
        found = first_in(world, group, mine, n);
        PMPI_Group_free(&group);
    }
    if (found < 0 && PMPI_Comm_test_inter(comm, &inter) == MPI_SUCCESS && inter &&
        PMPI_Comm_remote_group(comm, &group) == MPI_SUCCESS) {
        found = first_in(world, group, mine, n);
        PMPI_Group_free(&group);
    }
    PMPI_Group_free(&world);
    if (found < 0) return 0;
    *world_rank = found;
    return 1;
}
