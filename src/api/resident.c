/* The resident kernel's life (resident.h): the ring's memory, the kernel's (re)start, the checks
 * before a call goes to it, its end. The calls through the ring are in ring.c. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include "checks.h"
#include "config.h"
#include "resident_kernel.h"

/* How many fork()s this process is a child of: a ring made before one is the parent's. */
static atomic_uint forks;
static pthread_once_t fork_once = PTHREAD_ONCE_INIT;

static void in_child(void) { atomic_fetch_add(&forks, 1); }

/* The communicators whose ring exists: a thread that waits on one ring starts again the kernel
 * of another whose calls it left undone (ring.c). */
static pthread_mutex_t rings_lock = PTHREAD_MUTEX_INITIALIZER;
static mcoll_comm *rings;

void mcoll_resident_each(void (*visit)(mcoll_comm *comm, void *arg), void *arg)
{
    mcoll_comm *c;
    pthread_mutex_lock(&rings_lock);
    for (c = rings; c; c = c->resident.next_ring) visit(c, arg);
    pthread_mutex_unlock(&rings_lock);
}

static void unlist(mcoll_comm *comm)
{
    mcoll_comm **at;
    pthread_mutex_lock(&rings_lock);
    for (at = &rings; *at; at = &(*at)->resident.next_ring)
        if (*at == comm) {
            *at = comm->resident.next_ring;
            break;
        }
    pthread_mutex_unlock(&rings_lock);
}

static void watch_forks(void) { pthread_atfork(NULL, NULL, in_child); }

int mcoll_resident_forked(const mcoll_resident *r) { return r->ring && r->forks != atomic_load(&forks); }

int mcoll_resident_trylock(mcoll_resident *r)
{
    int free_ = 0;
    return atomic_compare_exchange_strong(&r->lock, &free_, 1);
}

void mcoll_resident_lock(mcoll_resident *r)
{
    while (!mcoll_resident_trylock(r)) sched_yield();
}

void mcoll_resident_unlock(mcoll_resident *r) { atomic_store(&r->lock, 0); }

void mcoll_resident_say(mcoll_resident *r, unsigned what, const char *text)
{
    if (r->said & what) return;
    r->said |= what;
    MCOLL_INFO("resident kernel: %s", text);
}

/* Ring and stream on first use; a failure turns the resident kernel off for the communicator. */
static int ready(mcoll_comm *comm)
{
    mcoll_resident *r = &comm->resident;
    void *host = NULL;
    CUdeviceptr device = 0;
    if (r->ring) return 1;
    pthread_once(&fork_once, watch_forks);
    if (mcoll_cu.cuMemHostAlloc(&host, sizeof(mcoll_ring), CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE) !=
            CUDA_SUCCESS ||
        mcoll_cu.cuMemHostGetDevicePointer(&device, host, 0) != CUDA_SUCCESS ||
        mcoll_cu.cuStreamCreate(&r->stream, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS) {
        if (host) CU_WARN(cuMemFreeHost(host));
        r->unusable = 1;
        MCOLL_INFO("no resident kernel for this communicator: its ring or stream could not be made");
        return 0;
    }
    memset(host, 0, sizeof(mcoll_ring));
    r->ring = host;
    r->ring_device = (mcoll_ring *)(uintptr_t)device;
    r->forks = atomic_load(&forks);
    pthread_mutex_lock(&rings_lock);
    r->next_ring = rings;
    rings = comm;
    pthread_mutex_unlock(&rings_lock);
    return 1;
}

int mcoll_resident_exit_owed(const mcoll_resident *r)
{
    return r->exit_at && __atomic_load_n(&r->ring->done, __ATOMIC_ACQUIRE) + 1 < r->exit_at;
}

int mcoll_resident_start(mcoll_comm *comm)
{
    mcoll_resident *r = &comm->resident;
    const uint64_t idle_ns = (uint64_t)mcoll_settings_get()->resident_idle_us * 1000;
    /* Calls before an EXIT not done yet (the kernel told to end had ended idle just before
     * them): this kernel runs them and must end on that EXIT, so it is made this kernel's. A
     * lone EXIT left unread stays the earlier kernel's, and this one passes over it. */
    const int owed = mcoll_resident_exit_owed(r);
    int status;
    if (owed) r->ring->call[(r->exit_at - 1) % MCOLL_RING_SLOTS].reserved = r->generation + 1;
    status = mcoll_launch_resident(&comm->team->dev, r->ring_device, ++r->generation, idle_ns, r->stream);
    if (status != MCOLL_LAUNCH_OK) {
        (void)mcoll_comm_launched(status, "resident");
        return 0;
    }
    r->running = !owed;
    mcoll_resident_say(r, MCOLL_SAID_STARTED, "started; blocking LL calls through MPI run there");
    MCOLL_TRACE("resident kernel of ring %p: generation %llu launched", (void *)r, (unsigned long long)r->generation);
    return 1;
}

int mcoll_resident_take(mcoll_comm *comm)
{
    mcoll_resident *r = &comm->resident;
    if (!mcoll_settings_get()->resident) return 0;
    if (mcoll_comm_enter_context(comm) != MCOLL_SUCCESS) return 0;
    mcoll_resident_lock(r);
    if (r->unusable || mcoll_resident_forked(r) || !ready(comm)) goto launch_instead;
    /* MPI's users may count on a call seeing what they enqueued on the legacy default stream
     * before it; the launched kernels honour that (call_streams.c).
     * Programs that synchronize first (as CUDA-aware MPIs require) may spare the query. */
    if (mcoll_settings_get()->legacy_stream_order && mcoll_cu.cuStreamQuery(CU_STREAM_LEGACY) != CUDA_SUCCESS) {
        mcoll_resident_say(r, MCOLL_SAID_LEGACY_BUSY,
                           "the legacy default stream had work queued: that call was launched after it");
        goto launch_instead;
    }
    if (!r->running) {
        /* Calls launched on the team's streams come before this one, and so do ring calls a
         * kernel told to end must still run. */
        if (mcoll_resident_exit_owed(r) || mcoll_comm_calls_running(comm)) {
            mcoll_resident_say(r, MCOLL_SAID_TEAM_BUSY,
                               "calls were still running on the team's stream: that call was launched after them");
            goto launch_instead;
        }
        if (!mcoll_resident_start(comm)) goto launch_instead;
    }
    return 1;
launch_instead:
    mcoll_resident_unlock(r);
    return 0;
}

void mcoll_resident_free(mcoll_comm *comm)
{
    mcoll_resident *r = &comm->resident;
    if (!r->ring) return;
    if (mcoll_resident_forked(r)) { /* the parent's: its memory and stream are not ours to free */
        memset(r, 0, sizeof *r);
        return;
    }
    (void)mcoll_resident_drain(comm);
    unlist(comm);
    if (mcoll_comm_enter_context(comm) == MCOLL_SUCCESS) CU_WARN(cuStreamSynchronize(r->stream));
    CU_WARN(cuStreamDestroy(r->stream));
    CU_WARN(cuMemFreeHost(r->ring));
    memset(r, 0, sizeof *r);
}
