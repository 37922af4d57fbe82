/* The calls through the resident kernel's ring (resident.h): posts, the waits and tests on its
 * done count, the fence and the drain before other launches. Calls are numbered from 1 in the
 * order posted; call n is done once the ring's done count is n or more. */
#define _POSIX_C_SOURCE 200809L
#include <sched.h>
#include <stdatomic.h>
#include <string.h>
#include "clock.h"
#include "config.h"
#include "log.h"
#include "resident_kernel.h"

static uint64_t load(volatile uint64_t *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }

/* With the lock held and a free slot. The slot is written even for a call marked the same as
 * the last: a kernel started since (it holds no call) reads it. */
static void put(mcoll_resident *r, const mcoll_ll_call *call)
{
    const int same = r->posted && memcmp(call, &r->ring->call[(r->posted - 1) % MCOLL_RING_SLOTS], sizeof *call) == 0;
    r->ring->call[r->posted % MCOLL_RING_SLOTS] = *call;
    r->posted++;
    __atomic_store_n(&r->ring->posted, r->posted << 1 | (same ? MCOLL_RING_SAME : 0), __ATOMIC_RELEASE);
}

/* The kernel ended (idle, or on an EXIT posted after it had ended) before doing call n. */
static int ended_before(const mcoll_resident *r, uint64_t n)
{
    return load(&r->ring->exited) == r->generation && load(&r->ring->done) < n;
}

/* With the lock held, just after a post: 1 when the kernel ended without seeing it, so another
 * must be started. A kernel about to end idle writes `closing`, then looks at `posted` once more;
 * here `posted` was written before `closing` is read, with a full fence between, so one side
 * sees the other (launch.h, mcoll_ring). While the kernel decides (a few instructions, nothing
 * that waits for a peer) this waits; a stream that went idle meanwhile, or broke, ends the wait. */
static int ended_unseen(mcoll_resident *r)
{
    unsigned spins = 0;
    atomic_thread_fence(memory_order_seq_cst);
    while (load(&r->ring->exited) != r->generation) {
        if (load(&r->ring->closing) != r->generation) return 0;
        if (++spins % 1024 == 0 && mcoll_cu.cuStreamQuery(r->stream) != CUDA_ERROR_NOT_READY) break;
    }
    return load(&r->ring->done) < r->posted;
}

/* Another communicator's kernel that ended (idle, just as a call was posted) before the calls
 * posted to it: started again, where no other thread holds its ring. Without this, a thread
 * waiting here on one ring could wait for a peer that waits for this process's calls on
 * another ring, which only a test of their requests would otherwise start again. */
typedef struct {
    mcoll_comm *waiting;
    int switched; /* another team's context was made current */
} other_rings;

static void restart_ended(mcoll_comm *comm, void *arg)
{
    other_rings *o = arg;
    mcoll_resident *r = &comm->resident;
    if (comm == o->waiting || !mcoll_resident_trylock(r)) return;
    if (r->running && !r->unusable && !mcoll_resident_forked(r) && ended_before(r, r->posted)) {
        MCOLL_TRACE("ring %p: kernel ended before call %llu, started again from another ring's wait", (void *)r,
                    (unsigned long long)r->posted);
        o->switched = 1;
        if (mcoll_comm_current(comm) != MCOLL_SUCCESS || !mcoll_resident_start(comm)) {
            r->running = 0;
            r->unusable = 1;
        }
    }
    mcoll_resident_unlock(r);
}

/* Now and then while waiting: the other rings' kernels that ended before their calls. */
static void restart_others(mcoll_comm *comm)
{
    other_rings o = {comm, 0};
    mcoll_resident_each(restart_ended, &o);
    if (o.switched) (void)mcoll_comm_current(comm);
}

/* With the lock held: until the kernel has done call `n`, started again when it ended before
 * reaching it. An error leaves the ring unusable: what was posted will never be done. */
static mcoll_result wait_done(mcoll_comm *comm, uint64_t n)
{
    mcoll_resident *r = &comm->resident;
    mcoll_watch *watch = &comm->team->watch;
    mcoll_result rc = MCOLL_SUCCESS;
    uint64_t spins = 0;
    mcoll_watch_call_begin(watch);
    while (load(&r->ring->done) < n) {
        if (++spins % 4096 == 0 && mcoll_settings_get()->resident_nonblocking) restart_others(comm);
        if (mcoll_watch_aborted(watch)) {
            rc = MCOLL_ERR_ABORTED;
            break;
        }
        if (ended_before(r, n) && !mcoll_resident_start(comm)) {
            rc = MCOLL_ERR_CUDA;
            break;
        }
    }
    mcoll_watch_call_end(watch);
    if (rc != MCOLL_SUCCESS) {
        r->running = 0;
        r->unusable = 1;
    }
    return rc;
}

/* With the lock held, after a post: the kernel started again when it ended without seeing it. */
static void settle(mcoll_comm *comm)
{
    mcoll_resident *r = &comm->resident;
    if (ended_unseen(r) && !mcoll_resident_start(comm)) {
        r->running = 0;
        r->unusable = 1;
    }
}

/* With the lock held: a slot free for the next post (the kernel has read the call that was in it
 * and is done with it once it has done that call). */
static mcoll_result free_slot(mcoll_comm *comm)
{
    mcoll_resident *r = &comm->resident;
    if (r->posted < MCOLL_RING_SLOTS || load(&r->ring->done) > r->posted - MCOLL_RING_SLOTS) return MCOLL_SUCCESS;
    return wait_done(comm, r->posted - MCOLL_RING_SLOTS + 1);
}

/* With the lock held: tell a running kernel to end after its calls (a slot is free: a
 * nonblocking post never takes the last one, a blocking one is done before the lock goes). */
static void quiesce(mcoll_resident *r)
{
    mcoll_ll_call end;
    if (!r->running) return;
    memset(&end, 0, sizeof end);
    end.kind = MCOLL_LL_EXIT;
    /* The kernel may have ended idle already: then the next one, started on the same stream
     * after it, finds this EXIT first and must pass over it, not end on it (unless it was
     * started to run calls before it: mcoll_resident_start). */
    end.reserved = r->generation;
    put(r, &end);
    r->exit_at = r->posted;
    r->running = 0;
}

int mcoll_resident_run(mcoll_comm *comm, const mcoll_ll_call *call, mcoll_result *rc)
{
    mcoll_resident *r = &comm->resident;
    const uint64_t t0 = mcoll_trace_ns();
    uint64_t t1;
    if (!mcoll_resident_take(comm)) return 0;
    *rc = free_slot(comm);
    if (*rc == MCOLL_SUCCESS) {
        put(r, call);
        settle(comm);
        t1 = mcoll_trace_ns();
        *rc = wait_done(comm, r->posted);
        /* Where a call's time goes: the checks before the post (the legacy-stream query among
         * them), then the kernel's round trip (the ring both ways and the LL exchange). */
        MCOLL_TRACE("resident call %d, %llu B: %.2f us to post, %.2f us to done", call->kind,
                    (unsigned long long)call->bytes, mcoll_trace_us(t0, t1), mcoll_trace_us(t1, mcoll_trace_ns()));
    }
    mcoll_resident_unlock(r);
    return 1;
}

int mcoll_resident_post(mcoll_comm *comm, const mcoll_ll_call *call, uint64_t *ticket)
{
    mcoll_resident *r = &comm->resident;
    int posted = 0;
    if (!mcoll_settings_get()->resident_nonblocking || !mcoll_resident_take(comm)) return 0;
    /* Never wait for a slot (the peers would have to reach the calls in the ring first), and
     * keep the last one for the EXIT a launch posts: with the ring full the call is launched,
     * behind the calls in it. */
    if (r->posted - load(&r->ring->done) < MCOLL_RING_SLOTS - 1) {
        put(r, call);
        *ticket = r->posted;
        posted = 1;
        MCOLL_TRACE("ring %p: posted call %llu (kind %d), done %llu, generation %llu, exited %llu", (void *)r,
                    (unsigned long long)r->posted, call->kind, (unsigned long long)load(&r->ring->done),
                    (unsigned long long)r->generation, (unsigned long long)load(&r->ring->exited));
        mcoll_resident_say(r, MCOLL_SAID_NONBLOCKING, "nonblocking and persistent LL calls through MPI are posted to it");
        settle(comm);
    } else {
        mcoll_resident_say(r, MCOLL_SAID_RING_FULL, "a nonblocking call found the ring full: it was launched behind the calls there");
    }
    mcoll_resident_unlock(r);
    return posted;
}

int mcoll_resident_test(mcoll_comm *comm, uint64_t ticket, mcoll_result *rc)
{
    mcoll_resident *r = &comm->resident;
    *rc = MCOLL_SUCCESS;
    if (mcoll_resident_forked(r)) {
        *rc = MCOLL_ERR_CUDA;
        return 1;
    }
    if (load(&r->ring->done) >= ticket) return 1;
    if (mcoll_watch_aborted(&comm->team->watch)) {
        *rc = MCOLL_ERR_ABORTED;
        return 1;
    }
    /* Another thread posting or waiting moves the ring on itself. */
    if (!mcoll_resident_trylock(r)) return 0;
    if (load(&r->ring->done) < ticket) {
        if (r->unusable) {
            *rc = MCOLL_ERR_CUDA;
        } else if (ended_before(r, ticket) &&
                   (mcoll_comm_current(comm) != MCOLL_SUCCESS || !mcoll_resident_start(comm))) {
            r->running = 0;
            r->unusable = 1;
            *rc = MCOLL_ERR_CUDA;
        }
    }
    mcoll_resident_unlock(r);
    return *rc != MCOLL_SUCCESS || load(&r->ring->done) >= ticket;
}

mcoll_result mcoll_resident_fence(mcoll_comm *comm, struct CUstream_st *stream)
{
    mcoll_resident *r = &comm->resident;
    mcoll_result rc = MCOLL_SUCCESS;
    CUresult waited;
    if (!r->ring) return MCOLL_SUCCESS;
    if (r->host_waits || !mcoll_cu.cuStreamWaitValue32) return mcoll_resident_drain(comm);
    mcoll_resident_lock(r);
    if (mcoll_resident_forked(r) || r->unusable) goto out;
    if (r->running) {
        quiesce(r);
        /* The kernel, ended idle just before the EXIT, left calls before it undone: another runs
         * them and ends there (mcoll_resident_start gives it the EXIT). */
        if (ended_unseen(r) && mcoll_resident_exit_owed(r) && !mcoll_resident_start(comm)) {
            r->unusable = 1;
            goto out;
        }
    }
    /* Nothing owed: the kernel has ended, or has run every call and ends on the EXIT without
     * touching anything a launch uses. */
    if (!mcoll_resident_exit_owed(r)) goto out;
    MCOLL_TRACE("ring %p: launch on stream %p waits for kernel %llu to end at call %llu", (void *)r, (void *)stream,
                (unsigned long long)r->generation, (unsigned long long)r->exit_at);
    /* `exited` is 64 bits, little-endian: its low word holds the generation; the wait compares
     * cyclically, so a later generation passes too. */
    waited = mcoll_cu.cuStreamWaitValue32((CUstream)stream, (CUdeviceptr)(uintptr_t)&r->ring_device->exited,
                                          (cuuint32_t)r->generation, CU_STREAM_WAIT_VALUE_GEQ);
    if (waited != CUDA_SUCCESS) {
        MCOLL_INFO("resident kernel: the GPU cannot wait on its ring (%s): launches wait for it on the host",
                   mcoll_cu_errname(waited));
        r->host_waits = 1;
        rc = wait_done(comm, r->exit_at); /* the kernel owed the calls reads the EXIT too */
    }
out:
    mcoll_resident_unlock(r);
    return rc;
}

mcoll_result mcoll_resident_drain(mcoll_comm *comm)
{
    mcoll_resident *r = &comm->resident;
    mcoll_result rc = MCOLL_SUCCESS;
    mcoll_resident_lock(r);
    /* Calls are posted only while the kernel is running (told to end: none since, but those
     * before the EXIT may still be under way after a fence). */
    if (r->running && !mcoll_resident_forked(r)) {
        MCOLL_TRACE("ring %p: drain to call %llu, done %llu", (void *)r, (unsigned long long)r->posted,
                    (unsigned long long)load(&r->ring->done));
        rc = wait_done(comm, r->posted);
        quiesce(r);
    } else if (!mcoll_resident_forked(r) && !r->unusable && mcoll_resident_exit_owed(r)) {
        rc = wait_done(comm, r->exit_at - 1);
    }
    mcoll_resident_unlock(r);
    return rc;
}
