/* The resident kernel's host side (resident.h): the ring, the kernel's (re)launch, the wait. */
#define _POSIX_C_SOURCE 200809L
#include <string.h>
#include "checks.h"
#include "clock.h"
#include "comm_internal.h"
#include "config.h"
#include "resident.h"

/* Ring and stream on first use; a failure turns the resident kernel off for the communicator. */
static int ready(mcoll_comm *comm)
{
    mcoll_resident *r = &comm->resident;
    void *host = NULL;
    CUdeviceptr device = 0;
    if (r->ring) return 1;
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
    return 1;
}

/* Events worth one INFO line per communicator. */
enum { SAID_STARTED = 1, SAID_LEGACY_BUSY = 2, SAID_TEAM_BUSY = 4 };

static void say_once(mcoll_resident *r, unsigned what, const char *text)
{
    if (r->said & what) return;
    r->said |= what;
    MCOLL_INFO("resident kernel: %s", text);
}

static uint64_t load(volatile uint64_t *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }

/* The slot is written even for a call marked the same as the last: a kernel started since (it
 * holds no call) reads it. */
static void post(mcoll_resident *r, const mcoll_ll_call *call)
{
    const int same = r->posted && memcmp(call, &r->ring->call[(r->posted - 1) % MCOLL_RING_SLOTS], sizeof *call) == 0;
    r->ring->call[r->posted % MCOLL_RING_SLOTS] = *call;
    r->posted++;
    __atomic_store_n(&r->ring->posted, r->posted << 1 | (same ? MCOLL_RING_SAME : 0), __ATOMIC_RELEASE);
}

static int launch(mcoll_comm *comm)
{
    mcoll_resident *r = &comm->resident;
    const uint64_t idle_ns = (uint64_t)mcoll_settings_get()->resident_idle_us * 1000;
    int status = mcoll_launch_resident(&comm->team->dev, r->ring_device, ++r->generation, idle_ns, r->stream);
    if (status != MCOLL_LAUNCH_OK) {
        (void)mcoll_comm_launched(status, "resident");
        return 0;
    }
    r->running = 1;
    say_once(r, SAID_STARTED, "started; blocking LL calls through MPI run there");
    MCOLL_TRACE("resident kernel: generation %llu launched", (unsigned long long)r->generation);
    return 1;
}

/* Until the kernel has done call `n`; started again when it ended (idle) before reaching it. */
static mcoll_result wait_done(mcoll_comm *comm, uint64_t n)
{
    mcoll_resident *r = &comm->resident;
    mcoll_watch *watch = &comm->team->watch;
    mcoll_result rc = MCOLL_SUCCESS;
    mcoll_watch_call_begin(watch);
    while (load(&r->ring->done) < n) {
        if (mcoll_watch_aborted(watch)) {
            rc = MCOLL_ERR_ABORTED;
            break;
        }
        if (load(&r->ring->exited) == r->generation && load(&r->ring->done) < n && !launch(comm)) {
            rc = MCOLL_ERR_CUDA;
            break;
        }
    }
    mcoll_watch_call_end(watch);
    if (rc != MCOLL_SUCCESS) {
        /* What was posted will never be done: forget it, and launch from now on. */
        r->running = 0;
        r->unusable = 1;
    }
    return rc;
}

/* Microseconds, for the TRACE line of each call. */
static double now_us(void) { return (double)mcoll_now_ns() * 1e-3; }

int mcoll_resident_run(mcoll_comm *comm, const mcoll_ll_call *call, mcoll_result *rc)
{
    mcoll_resident *r = &comm->resident;
    const int timed = mcoll_log_level >= MCOLL_LOG_TRACE;
    const double t0 = timed ? now_us() : 0;
    double t1;
    if (!mcoll_settings_get()->resident || r->unusable) return 0;
    if (mcoll_comm_enter_context(comm) != MCOLL_SUCCESS || !ready(comm)) return 0;
    /* MPI's users may count on a call seeing what they enqueued on the legacy default stream
     * before it; the launched kernels, on the team's blocking stream, honour that by design. */
    if (mcoll_cu.cuStreamQuery(CU_STREAM_LEGACY) != CUDA_SUCCESS) {
        say_once(r, SAID_LEGACY_BUSY, "the legacy default stream had work queued: that call was launched after it");
        return 0;
    }
    if (!r->running) {
        /* Calls launched on the team's stream come before this one. */
        if (mcoll_cu.cuStreamQuery(comm->team->stream) != CUDA_SUCCESS) {
            say_once(r, SAID_TEAM_BUSY, "calls were still running on the team's stream: that call was launched after them");
            return 0;
        }
        if (!launch(comm)) return 0;
    }
    post(r, call);
    t1 = timed ? now_us() : 0;
    *rc = wait_done(comm, r->posted);
    /* Where a call's time goes: the checks before the post (the legacy-stream query among
     * them), then the kernel's round trip (the ring both ways and the LL exchange). */
    MCOLL_TRACE("resident call %d, %llu B: %.2f us to post, %.2f us to done", call->kind,
                (unsigned long long)call->bytes, t1 - t0, now_us() - t1);
    return 1;
}

void mcoll_resident_quiesce(mcoll_comm *comm)
{
    mcoll_resident *r = &comm->resident;
    mcoll_ll_call end;
    if (!r->running) return;
    memset(&end, 0, sizeof end);
    end.kind = MCOLL_LL_EXIT;
    post(r, &end);
    r->running = 0;
}

void mcoll_resident_free(mcoll_comm *comm)
{
    mcoll_resident *r = &comm->resident;
    if (!r->ring) return;
    mcoll_resident_quiesce(comm);
    if (mcoll_comm_enter_context(comm) == MCOLL_SUCCESS) CU_WARN(cuStreamSynchronize(r->stream));
    CU_WARN(cuStreamDestroy(r->stream));
    CU_WARN(cuMemFreeHost(r->ring));
    memset(r, 0, sizeof *r);
}
