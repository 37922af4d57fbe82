/* Nonblocking and persistent calls of the LL protocol through the resident kernel's ring
 * (src/api/resident.h), on the contract driver with real teams. No GPU runs here: the resident
 * kernel's launcher is replaced (linked with --wrap, tests/build.mk) by a thread that plays the
 * kernel on the ring, which the model keeps in host memory (its own device address): it runs the
 * posted calls in order, ends on an EXIT call or after MCOLL_RESIDENT_IDLE_US without one (saying
 * `closing` first and looking once more), and writes `done` and `exited` as the kernel does. The launchers of LL and allreduce kernels are
 * replaced too. Every call, ring or launched, reads its index from the first word of its send
 * buffer, writes a stamp into its receive buffer and appends the index to one log. Each rank
 * checks:
 *   - many outstanding calls: 150 small nonblocking calls of five collectives, the ring's kernel
 *     held until a launch waits for it, so the ring fills: a start that finds it full launches
 *     its call behind the calls in it (its stream waits on the GPU, cuStreamWaitValue32, while calls are still in the
 *     ring: the start did not wait for them), never more than MCOLL_RING_SLOTS - 1 calls and
 *     that EXIT in the ring, the calls run in the order issued, a request that tests complete
 *     has its stamp;
 *   - persistent starts between blocking calls (small ones through the ring, large ones
 *     launched) and large nonblocking calls: one order for all; each launch finds no call
 *     waiting in the ring (the stream wait of mcoll_comm_enter_on); repeated starts carry the ring's
 *     repeated-call mark, which is checked against the slots every time it is set;
 *   - two communicators: two rings, each in its own order;
 *   - a kernel that ended before reaching a call (as one that went idle just then) is started
 *     again, and one that went idle between calls too;
 *   - a kernel that cannot be started again: the request completes with MPI_ERR_OTHER and the
 *     communicator's later calls are launched;
 *   - MPI_Comm_free with ring calls outstanding: they run before the team goes;
 *   - MPI_Finalize with ring calls outstanding (requests freed): they run, and the ring's
 *     pinned memory is freed.
 * With MCOLL_RESIDENT_NONBLOCKING=0 (test_ring_off.sh) no nonblocking call reaches the ring, and
 * with MCOLL_ASYNC_START=1 the large calls are launched by the launcher thread. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <time.h>
#include <mpi.h>
#include "common/pcoll.h"
#include "driver.h"
#include "launch.h"
#include "contract/devmem.h"

#define SMALL 8     /* ints per block: the LL protocol */
#define LARGE 4096  /* ints: past MCOLL_LL_MAX, launched */
#define MAX_LOG 8192
#define MAX_RINGS 16

static int ring_nonblocking; /* MCOLL_RESIDENT_NONBLOCKING */
static int slow_us;          /* the ring's kernel: time per call */
static atomic_int hold;      /* the ring's kernel runs no call until a launch waits for it */
static _Atomic uint64_t hold_since;
static atomic_int hold_expired; /* nothing waited within 5 s: a start waited for the kernel instead */

static void sleep_us(int us)
{
    struct timespec ts = {us / 1000000, (long)(us % 1000000) * 1000};
    if (us) nanosleep(&ts, NULL);
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t load(const volatile uint64_t *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
static void store(volatile uint64_t *p, uint64_t v) { __atomic_store_n(p, v, __ATOMIC_RELEASE); }

/* ---------------------------------------------------------------------------------------------
 * The log of calls run, in the order they ran
 * ------------------------------------------------------------------------------------------- */
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static int ran[MAX_LOG], nran;
static atomic_int ring_runs, launched_runs;

static void run_call(const void *send, void *recv, int in_ring)
{
    int index = *(const int *)send;
    pthread_mutex_lock(&log_lock);
    if (nran < MAX_LOG) ran[nran] = index;
    nran++;
    pthread_mutex_unlock(&log_lock);
    if (recv) ((int *)recv)[0] = 1000000 + index;
    atomic_fetch_add(in_ring ? &ring_runs : &launched_runs, 1);
}

/* ---------------------------------------------------------------------------------------------
 * The resident kernel, played by a thread per launch
 * ------------------------------------------------------------------------------------------- */
typedef struct {
    const void *team_key;  /* the team's own signal pad: one per team */
    mcoll_ring *ring;
    CUstream stream;
    pthread_t thread;
    int alive;             /* a thread was started and not joined */
    uint64_t generation, idle_ns;
    int launches;
    int failed;            /* a launch was made to fail: its posted calls will never be done */
} fake_ring;

static pthread_mutex_t rings_lock = PTHREAD_MUTEX_INITIALIZER;
static fake_ring rings[MAX_RINGS];
static int nrings, fail_at = -1;
static fake_ring *_Atomic last_started;
static atomic_int most_in_ring, same_marks, quit_early, stale_exits;

/* The ring of a team (a new one when `ring` is given and the team has none). */
static fake_ring *ring_of(const void *key, mcoll_ring *ring)
{
    fake_ring *f = NULL;
    pthread_mutex_lock(&rings_lock);
    for (int i = 0; i < nrings && !f; i++)
        if (rings[i].team_key == key) f = &rings[i];
    if (!f && ring && nrings < MAX_RINGS) {
        f = &rings[nrings++];
        f->team_key = key;
        f->ring = ring;
    }
    pthread_mutex_unlock(&rings_lock);
    return f;
}

static int total_launches(void)
{
    int n = 0;
    pthread_mutex_lock(&rings_lock);
    for (int i = 0; i < nrings; i++) n += rings[i].launches;
    pthread_mutex_unlock(&rings_lock);
    return n;
}

static void *kernel_thread(void *arg)
{
    fake_ring *f = (fake_ring *)arg;
    mcoll_ring *r = f->ring;
    uint64_t done = load(&r->done), since = now_ns();
    int quit = atomic_exchange(&quit_early, 0);
    while (!quit) {
        uint64_t posted = load(&r->posted), n = posted >> 1;
        if (atomic_load(&hold)) { /* as a GPU busy elsewhere: not idle either */
            since = now_ns();
            if (since - atomic_load(&hold_since) > 5000000000ull && atomic_exchange(&hold, 0))
                atomic_fetch_add(&hold_expired, 1);
            sched_yield();
            continue;
        }
        if (n <= done) {
            if (now_ns() - since > f->idle_ns) {
                /* As the kernel: say so, look once more, end only when nothing came. */
                store(&r->closing, f->generation);
                atomic_thread_fence(memory_order_seq_cst);
                if (load(&r->posted) >> 1 == done) break;
                store(&r->closing, 0);
            }
            sched_yield();
            continue;
        }
        if ((int)(n - done) > atomic_load(&most_in_ring)) atomic_store(&most_in_ring, (int)(n - done));
        if ((posted & MCOLL_RING_SAME) && n == done + 1 && done) {
            atomic_fetch_add(&same_marks, 1);
            if (memcmp(&r->call[done % MCOLL_RING_SLOTS], &r->call[(done - 1) % MCOLL_RING_SLOTS], sizeof(mcoll_ll_call)))
                CT_FAIL("call %llu marked the same as the one before, and it is not", (unsigned long long)done + 1);
        }
        mcoll_ll_call c = r->call[done % MCOLL_RING_SLOTS];
        if (c.kind == MCOLL_LL_EXIT && c.reserved != f->generation) { /* for a kernel that had ended */
            atomic_fetch_add(&stale_exits, 1);
            store(&r->done, ++done);
            continue;
        }
        if (c.kind == MCOLL_LL_EXIT) {
            done++;
            break;
        }
        sleep_us(slow_us);
        run_call(c.send, c.recv, 1);
        store(&r->done, ++done);
        since = now_ns();
    }
    store(&r->done, done);
    store(&r->exited, f->generation);
    return NULL;
}

/* The kernel before it on the stream has ended (or ends soon: it was told to), as on a GPU. */
static void join(fake_ring *f)
{
    if (!f->alive) return;
    pthread_join(f->thread, NULL);
    f->alive = 0;
}

int __wrap_mcoll_launch_resident(const mcoll_dev_team *team, mcoll_ring *ring, uint64_t generation, uint64_t idle_ns,
                                 void *stream)
{
    fake_ring *f = ring_of(team->peer_signal[team->rank], ring);
    if (!f) return MCOLL_LAUNCH_UNSUPPORTED;
    join(f);
    if (generation == 1) f->failed = 0; /* a new ring (the team's memory may be a freed one's) */
    if (f->launches++ == fail_at) {
        f->failed = 1;
        return MCOLL_LAUNCH_CUDA_ERROR;
    }
    f->ring = ring;
    f->stream = (CUstream)stream;
    f->generation = generation;
    f->idle_ns = idle_ns;
    f->alive = pthread_create(&f->thread, NULL, kernel_thread, f) == 0;
    atomic_store(&last_started, f);
    return f->alive ? MCOLL_LAUNCH_OK : MCOLL_LAUNCH_CUDA_ERROR;
}

static CUresult (*model_sync)(CUstream);
static CUresult (*model_wait_value)(CUstream, CUdeviceptr, cuuint32_t, unsigned);
static atomic_int gpu_waits, gpu_waits_pending;

/* A launch's wait on the GPU for the kernel to end (the model waits in the caller, as if the
 * stream ran at once): counted, and counted again when the kernel had not ended yet, which is
 * when a start that drained on the host would have waited for the peers. */
static CUresult wait_value(CUstream stream, CUdeviceptr addr, cuuint32_t value, unsigned flags)
{
    atomic_fetch_add(&gpu_waits, 1);
    if ((int32_t)(*(volatile uint32_t *)(uintptr_t)addr - value) < 0) atomic_fetch_add(&gpu_waits_pending, 1);
    atomic_store(&hold, 0); /* what the GPU waits for must be able to run */
    return model_wait_value(stream, addr, value, flags);
}

/* cuStreamSynchronize of the kernel's stream waits for the thread. */
static CUresult sync_stream(CUstream stream)
{
    for (int i = 0; i < nrings; i++)
        if (rings[i].stream == stream) join(&rings[i]);
    return model_sync(stream);
}

/* Queries of the legacy default stream, counted; `legacy_busy` of them answer that work is
 * queued there. */
static CUresult (*model_query)(CUstream);
static atomic_int legacy_queries, legacy_busy;

static CUresult query_stream(CUstream stream)
{
    if (stream != CU_STREAM_LEGACY) return model_query(stream);
    atomic_fetch_add(&legacy_queries, 1);
    if (atomic_load(&legacy_busy) > 0) {
        atomic_fetch_sub(&legacy_busy, 1);
        return CUDA_ERROR_NOT_READY;
    }
    return model_query(stream);
}

/* ---------------------------------------------------------------------------------------------
 * Launched kernels: nothing may wait in the ring of their team
 * ------------------------------------------------------------------------------------------- */
static void launched(const mcoll_dev_team *team, const void *send, void *recv)
{
    fake_ring *f = ring_of(team->peer_signal[team->rank], NULL);
    if (f && !f->failed) {
        mcoll_ring *r = f->ring;
        for (uint64_t i = load(&r->done); i < load(&r->posted) >> 1; i++)
            if (r->call[i % MCOLL_RING_SLOTS].kind != MCOLL_LL_EXIT)
                CT_FAIL("call %d launched while call %llu waited in the ring", *(const int *)send,
                        (unsigned long long)i + 1);
    }
    run_call(send, recv, 0);
}

int __wrap_mcoll_launch_ll(const mcoll_dev_team *team, const mcoll_ll_call *call, void *stream)
{
    (void)stream;
    launched(team, call->send, call->recv);
    return MCOLL_LAUNCH_OK;
}

int __wrap_mcoll_launch_allreduce(const mcoll_dev_team *team, mcoll_access access, const void *sendbuf, void *recvbuf,
                                  size_t count, mcoll_dtype dtype, mcoll_op op, void *stream)
{
    (void)access, (void)count, (void)dtype, (void)op, (void)stream;
    launched(team, sendbuf, recvbuf);
    return MCOLL_LAUNCH_OK;
}

/* ---------------------------------------------------------------------------------------------
 * Calls
 * ------------------------------------------------------------------------------------------- */
typedef struct {
    int *send, *recv;
    int index;
} bufs;

static int issued[MAX_LOG], nissued;

static bufs make_bufs(int ints, int index)
{
    bufs b;
    if (ints < 1024) ints = 1024; /* a block per rank, for any number of ranks */
    b.send = (int *)d_alloc((size_t)ints * sizeof(int));
    b.recv = (int *)d_alloc((size_t)ints * sizeof(int));
    b.send[0] = index; /* the contract model's device memory is host memory */
    b.recv[0] = -1;
    b.index = index;
    return b;
}

static void free_bufs(bufs *b)
{
    d_release(b->send);
    d_release(b->recv);
}

static void note(int index)
{
    if (nissued < MAX_LOG) issued[nissued] = index;
    nissued++;
}

/* Small call `index` as the (index % 5)th collective (bcast carries its index in its buffer). */
static int small_call(bufs *b, MPI_Comm comm, MPI_Request *q)
{
    note(b->index);
    switch (b->index % 5) {
    case 0: return MPI_Iallreduce(b->send, b->recv, SMALL, MPI_INT, MPI_SUM, comm, q);
    case 1:
        b->recv[0] = b->index;
        return MPI_Ibcast(b->recv, SMALL, MPI_INT, 0, comm, q);
    case 2: return MPI_Iallgather(b->send, SMALL / 4, MPI_INT, b->recv, SMALL / 4, MPI_INT, comm, q);
    case 3: return MPI_Ireduce_scatter_block(b->send, b->recv, SMALL / 4, MPI_INT, MPI_SUM, comm, q);
    default: return MPI_Ireduce(b->send, b->recv, SMALL, MPI_INT, MPI_SUM, 0, comm, q);
    }
}

/* Reduce writes its stamp on the root only. */
static int stamp_ok(const bufs *b, int rank) { return b->index % 5 == 4 && rank ? 1 : b->recv[0] == 1000000 + b->index; }

static void blocking(MPI_Comm comm, int ints, int index)
{
    bufs b = make_bufs(ints, index);
    note(index);
    if (MPI_Allreduce(b.send, b.recv, ints, MPI_INT, MPI_SUM, comm) != MPI_SUCCESS) CT_FAIL("blocking call %d", index);
    if (b.recv[0] != 1000000 + index) CT_FAIL("blocking call %d: no result", index);
    free_bufs(&b);
}

/* The log from `first` on, restricted to indices in [lo, hi), against the calls issued. */
static void check_log(int first_ran, int first_issued, int lo, int hi, const char *what)
{
    int i = first_ran, j = first_issued;
    for (;; i++, j++) {
        while (i < nran && i < MAX_LOG && (ran[i] < lo || ran[i] >= hi)) i++;
        while (j < nissued && j < MAX_LOG && (issued[j] < lo || issued[j] >= hi)) j++;
        if (i >= nran || j >= nissued) break;
        if (ran[i] != issued[j]) {
            CT_FAIL("%s: call %d ran where call %d was issued", what, ran[i], issued[j]);
            return;
        }
    }
    if ((i < nran) != (j < nissued)) CT_FAIL("%s: %s", what, i < nran ? "a call ran twice" : "a call never ran");
}

/* ---------------------------------------------------------------------------------------------
 * Cases
 * ------------------------------------------------------------------------------------------- */
#define MANY 150

static void check_many(int rank)
{
    bufs b[MANY];
    MPI_Request q[MANY];
    int first_ran = nran, first_issued = nissued, runs = atomic_load(&ring_runs), flag;
    int launches = atomic_load(&launched_runs), waits = atomic_load(&gpu_waits_pending);
    slow_us = 200;
    atomic_store(&most_in_ring, 0);
    /* The kernel held until a launch waits for it: the ring fills whatever this machine's speed. */
    atomic_store(&hold_since, now_ns());
    atomic_store(&hold, ring_nonblocking);
    for (int i = 0; i < MANY; i++) {
        b[i] = make_bufs(SMALL, 1000 + i);
        if (small_call(&b[i], MPI_COMM_WORLD, &q[i]) != MPI_SUCCESS) CT_FAIL("call %d", 1000 + i);
        flag = 0;
        MPI_Test(&q[i], &flag, MPI_STATUS_IGNORE);
        if (flag && !stamp_ok(&b[i], rank)) CT_FAIL("call %d complete before it ran", 1000 + i);
    }
    atomic_store(&hold, 0);
    if (MPI_Waitall(MANY, q, MPI_STATUSES_IGNORE) != MPI_SUCCESS) CT_FAIL("MPI_Waitall of %d small calls", MANY);
    for (int i = 0; i < MANY; i++) {
        if (!stamp_ok(&b[i], rank)) CT_FAIL("call %d: no result after MPI_Waitall", 1000 + i);
        free_bufs(&b[i]);
    }
    check_log(first_ran, first_issued, 1000, 1000 + MANY, "many");
    if (ring_nonblocking) {
        /* A full ring never makes a start wait: the call is launched behind the calls in it,
         * its stream waiting on the GPU for them, and a slot is always kept for that EXIT. */
        const int in_ring = atomic_load(&ring_runs) - runs, launched = atomic_load(&launched_runs) - launches;
        if (in_ring + launched != MANY) CT_FAIL("%d in the ring + %d launched of %d small calls", in_ring, launched, MANY);
        if (in_ring < MANY / 2) CT_FAIL("only %d of %d small calls ran in the ring", in_ring, MANY);
        if (launched < 1) CT_FAIL("%d outstanding calls, and none found the ring full", MANY);
        if (atomic_load(&hold_expired)) CT_FAIL("a start waited for the calls in a full ring");
        if (atomic_load(&gpu_waits_pending) == waits) CT_FAIL("no launch waited on the GPU for calls in the ring");
        /* 63 calls and the launch's EXIT at most (a 64th call would have left the EXIT no slot:
         * it would have overwritten a call not yet run, and the order check above would fail). */
        if (atomic_load(&most_in_ring) > MCOLL_RING_SLOTS)
            CT_FAIL("%d calls in a ring of %d slots", atomic_load(&most_in_ring), MCOLL_RING_SLOTS);
        if (atomic_load(&most_in_ring) < 2) CT_FAIL("the ring never held two calls");
    } else if (atomic_load(&ring_runs) != runs) {
        CT_FAIL("MCOLL_RESIDENT_NONBLOCKING=0, and nonblocking calls ran in the ring");
    }
    ct_checks++;
}

#ifdef INIT
static void check_interleaved(void)
{
    bufs a = make_bufs(SMALL, 2000), g = make_bufs(SMALL, 2001), big[6];
    MPI_Request q[2], bq[6];
    int first_ran = nran, first_issued = nissued, marks = atomic_load(&same_marks);
    slow_us = 100;
    if (INIT(Allreduce)(a.send, a.recv, SMALL, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &q[0]) != MPI_SUCCESS ||
        INIT(Allgather)(g.send, SMALL / 4, MPI_INT, g.recv, SMALL / 4, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &q[1]) !=
            MPI_SUCCESS) {
        CT_FAIL("persistent initialization");
        return;
    }
    for (int k = 0; k < 6; k++) {
        a.recv[0] = g.recv[0] = -1;
        note(2000);
        if (MPI_Start(&q[0]) != MPI_SUCCESS) CT_FAIL("MPI_Start %d", k);
        note(2001);
        if (MPI_Start(&q[1]) != MPI_SUCCESS) CT_FAIL("MPI_Start %d", k);
        /* Behind them: a blocking small call, a blocking large one, or a large nonblocking one. */
        big[k] = make_bufs(LARGE, 2100 + k);
        if (k % 3 == 0) blocking(MPI_COMM_WORLD, SMALL, 2200 + k);
        if (k % 3 == 1) blocking(MPI_COMM_WORLD, LARGE, 2200 + k);
        note(2100 + k);
        if (MPI_Iallreduce(big[k].send, big[k].recv, LARGE, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &bq[k]) != MPI_SUCCESS)
            CT_FAIL("large call %d", 2100 + k);
        if (MPI_Waitall(2, q, MPI_STATUSES_IGNORE) != MPI_SUCCESS) CT_FAIL("MPI_Waitall of start %d", k);
        if (a.recv[0] != 1002000 || g.recv[0] != 1002001) CT_FAIL("start %d: no result after MPI_Waitall", k);
    }
    if (MPI_Waitall(6, bq, MPI_STATUSES_IGNORE) != MPI_SUCCESS) CT_FAIL("MPI_Waitall of the large calls");
    for (int k = 0; k < 6; k++) {
        if (big[k].recv[0] != 1002100 + k) CT_FAIL("large call %d: no result", 2100 + k);
        free_bufs(&big[k]);
    }
    /* The same start twice in a row, with nothing between them. */
    for (int k = 0; k < 4; k++) {
        note(2000);
        if (MPI_Start(&q[0]) != MPI_SUCCESS || MPI_Wait(&q[0], MPI_STATUS_IGNORE) != MPI_SUCCESS) CT_FAIL("repeat %d", k);
    }
    check_log(first_ran, first_issued, 2000, 2300, "interleaved");
    if (ring_nonblocking && atomic_load(&same_marks) == marks) CT_FAIL("repeated starts never carried the ring's mark");
    MPI_Request_free(&q[0]);
    MPI_Request_free(&q[1]);
    free_bufs(&a);
    free_bufs(&g);
    ct_checks++;
}
#endif

static void check_two_comms(int rank)
{
    MPI_Comm c[2];
    bufs b[2][20];
    MPI_Request q[2][20];
    int first_ran = nran, first_issued = nissued, before = nrings;
    slow_us = 100;
    MPI_Comm_dup(MPI_COMM_WORLD, &c[0]);
    MPI_Comm_dup(MPI_COMM_WORLD, &c[1]);
    blocking(c[0], SMALL, 2990); /* their teams, in one order on every rank */
    blocking(c[1], SMALL, 2991);
    for (int i = 0; i < 20; i++)
        for (int k = 0; k < 2; k++) {
            b[k][i] = make_bufs(SMALL, 3000 + 1000 * k + i);
            if (small_call(&b[k][i], c[k], &q[k][i]) != MPI_SUCCESS) CT_FAIL("call %d", b[k][i].index);
        }
    for (int k = 0; k < 2; k++) {
        if (MPI_Waitall(20, q[k], MPI_STATUSES_IGNORE) != MPI_SUCCESS) CT_FAIL("MPI_Waitall on communicator %d", k);
        for (int i = 0; i < 20; i++) {
            if (!stamp_ok(&b[k][i], rank)) CT_FAIL("call %d: no result", b[k][i].index);
            free_bufs(&b[k][i]);
        }
    }
    check_log(first_ran, first_issued, 3000, 4000, "first communicator");
    check_log(first_ran, first_issued, 4000, 5000, "second communicator");
    if (nrings - before != 2) CT_FAIL("%d new rings for two communicators", nrings - before);
    MPI_Comm_free(&c[0]);
    MPI_Comm_free(&c[1]);
    ct_checks++;
}

/* The kernel ended before reaching a call: idle (it went idle between calls), or at once (as it
 * would going idle just as the call came). The post or a test starts it again. */
static void check_restart(void)
{
    slow_us = 0;
    for (int k = 0; k < 4; k++) {
        bufs b = make_bufs(SMALL, 5000 + 5 * k); /* allreduces */
        MPI_Request q;
        int flag = 0, launches;
        sleep_us(20000); /* past MCOLL_RESIDENT_IDLE_US */
        if (k % 2) atomic_store(&quit_early, 1);
        launches = total_launches();
        if (small_call(&b, MPI_COMM_WORLD, &q) != MPI_SUCCESS) CT_FAIL("call %d", b.index);
        while (!flag) MPI_Test(&q, &flag, MPI_STATUS_IGNORE);
        if (b.recv[0] != 1000000 + b.index) CT_FAIL("call %d: no result after a restart", b.index);
        launches = total_launches() - launches;
        if (ring_nonblocking && launches < 1 + k % 2)
            CT_FAIL("call %d: %d kernel launches for a kernel ended %s", b.index, launches, k % 2 ? "at once" : "idle");
        free_bufs(&b);
    }
    atomic_store(&quit_early, 0);
    ct_checks++;
}

/* A kernel that ended idle, then a launch: the EXIT posted for it lies in the ring unread. The
 * next kernel passes over it and runs the call after it, with no restart by the test. */
static void check_stale_exit(void)
{
    bufs b = make_bufs(SMALL, 7000);
    MPI_Request q;
    int flag = 0, launches, stale = atomic_load(&stale_exits);
    slow_us = 0;
    blocking(MPI_COMM_WORLD, SMALL, 7001); /* the kernel running */
    sleep_us(20000);                        /* past MCOLL_RESIDENT_IDLE_US: it ends */
    blocking(MPI_COMM_WORLD, LARGE, 7002); /* a launch: the ring gets an EXIT nobody reads */
    launches = total_launches();
    if (small_call(&b, MPI_COMM_WORLD, &q) != MPI_SUCCESS) CT_FAIL("call %d", b.index);
    while (!flag) MPI_Test(&q, &flag, MPI_STATUS_IGNORE);
    if (b.recv[0] != 1000000 + b.index) CT_FAIL("call %d: no result after a stale EXIT", b.index);
    if (ring_nonblocking && atomic_load(&stale_exits) == stale) CT_FAIL("no stale EXIT was passed over");
    if (ring_nonblocking && total_launches() - launches != 1)
        CT_FAIL("%d kernel launches for one call after a stale EXIT (the kernel ended on it)",
                total_launches() - launches);
    free_bufs(&b);
    ct_checks++;
}

/* MCOLL_LEGACY_STREAM_ORDER: on, every blocking call the ring would take asks whether the legacy
 * default stream is idle, and one that finds work queued there is launched (behind that work);
 * off, nobody asks and the ring takes it. */
static void check_legacy_stream(int legacy_order)
{
    int queries = atomic_load(&legacy_queries), runs = atomic_load(&ring_runs), launches;
    slow_us = 0;
    for (int k = 0; k < 4; k++) blocking(MPI_COMM_WORLD, SMALL, 7100 + k);
    queries = atomic_load(&legacy_queries) - queries;
    if (atomic_load(&ring_runs) - runs != 4) CT_FAIL("4 small blocking calls: %d in the ring", atomic_load(&ring_runs) - runs);
    if (legacy_order && queries < 4) CT_FAIL("MCOLL_LEGACY_STREAM_ORDER=1: %d queries of the legacy stream for 4 calls", queries);
    if (!legacy_order && queries) CT_FAIL("MCOLL_LEGACY_STREAM_ORDER=0: %d queries of the legacy stream", queries);
    runs = atomic_load(&ring_runs);
    launches = atomic_load(&launched_runs);
    atomic_store(&legacy_busy, 1);
    blocking(MPI_COMM_WORLD, SMALL, 7104);
    if (legacy_order && (atomic_load(&launched_runs) != launches + 1 || atomic_load(&ring_runs) != runs))
        CT_FAIL("a call finding work on the legacy stream was not launched behind it");
    if (!legacy_order && atomic_load(&ring_runs) != runs + 1)
        CT_FAIL("MCOLL_LEGACY_STREAM_ORDER=0: a call did not go to the ring");
    atomic_store(&legacy_busy, 0);
    ct_checks++;
}

/* A kernel that cannot be started again: the request fails, the communicator goes on launched. */
static void check_restart_fails(int rank)
{
    MPI_Comm comm;
    bufs b = make_bufs(SMALL, 6000), after = make_bufs(SMALL, 6005);
    MPI_Request q;
    int rc, launched_before;
    fake_ring *f;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    blocking(comm, SMALL, 6001);  /* the team, and its kernel started */
    blocking(comm, LARGE, 6002);  /* a launch: the kernel is told to end */
    f = atomic_load(&last_started);
    if (ring_nonblocking) {
        /* The next kernel (started by the post) leaves at once; starting it again fails. */
        pthread_mutex_lock(&rings_lock);
        fail_at = f->launches + 1;
        pthread_mutex_unlock(&rings_lock);
        atomic_store(&quit_early, 1);
        rc = small_call(&b, comm, &q);
        if (rc != MPI_SUCCESS) CT_FAIL("call 6000 failed at the post: %d", rc);
        rc = MPI_Wait(&q, MPI_STATUS_IGNORE);
        if (error_class(rc) != MPI_ERR_OTHER) CT_FAIL("a ring call whose kernel could not be started again: %d", rc);
        if (!f->failed) CT_FAIL("the kernel's restart was not the launch made to fail");
        fail_at = -1;
        atomic_store(&quit_early, 0);
    }
    launched_before = atomic_load(&launched_runs);
    if (small_call(&after, comm, &q) != MPI_SUCCESS || MPI_Wait(&q, MPI_STATUS_IGNORE) != MPI_SUCCESS)
        CT_FAIL("a call after the failed restart");
    if (!stamp_ok(&after, rank)) CT_FAIL("call 6005: no result");
    if (atomic_load(&launched_runs) == launched_before) CT_FAIL("the call after a failed restart was not launched");
    MPI_Comm_free(&comm);
    free_bufs(&b);
    free_bufs(&after);
    ct_checks++;
}

static void check_comm_free(int rank)
{
    bufs b[6];
    MPI_Request q[6];
    MPI_Comm comm;
    int runs;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    blocking(comm, SMALL, 7000);
    slow_us = 2000;
    runs = atomic_load(&ring_runs) + atomic_load(&launched_runs);
    for (int i = 0; i < 6; i++) {
        b[i] = make_bufs(SMALL, 7001 + i);
        if (small_call(&b[i], comm, &q[i]) != MPI_SUCCESS) CT_FAIL("call %d", b[i].index);
    }
    MPI_Comm_free(&comm);
    if (atomic_load(&ring_runs) + atomic_load(&launched_runs) - runs != 6) CT_FAIL("MPI_Comm_free returned before its calls ran");
    if (MPI_Waitall(6, q, MPI_STATUSES_IGNORE) != MPI_SUCCESS) CT_FAIL("MPI_Waitall after MPI_Comm_free");
    for (int i = 0; i < 6; i++) {
        if (!stamp_ok(&b[i], rank)) CT_FAIL("call %d: no result after MPI_Comm_free", b[i].index);
        free_bufs(&b[i]);
    }
    ct_checks++;
}

#define LEFT 6
static bufs left[LEFT];
static int left_runs;

static void leave_outstanding(void)
{
    MPI_Request q;
    slow_us = 2000;
    left_runs = atomic_load(&ring_runs) + atomic_load(&launched_runs);
    for (int i = 0; i < LEFT; i++) {
        left[i] = make_bufs(SMALL, 8000 + 5 * i); /* allreduces */
        if (small_call(&left[i], MPI_COMM_WORLD, &q) != MPI_SUCCESS) CT_FAIL("call %d", left[i].index);
        MPI_Request_free(&q);
    }
}

/* After MPI_Finalize (stderr only). */
static int check_after_finalize(int rank)
{
    int bad = 0;
    if (atomic_load(&ring_runs) + atomic_load(&launched_runs) - left_runs != LEFT) {
        fprintf(stderr, "rank %d: calls outstanding at MPI_Finalize did not all run\n", rank);
        bad++;
    }
    for (int i = 0; i < LEFT; i++)
        if (left[i].recv[0] != 1000000 + left[i].index) {
            fprintf(stderr, "rank %d: call %d outstanding at MPI_Finalize has no result\n", rank, left[i].index);
            bad++;
        }
    if (mcoll_contract_live("host_memory") || mcoll_contract_live("stream")) {
        mcoll_contract_live_print(stderr);
        fprintf(stderr, "rank %d: the ring's memory or stream still alive after MPI_Finalize\n", rank);
        bad++;
    }
    bad += devmem_violations_after_finalize();
    return bad;
}

int main(int argc, char **argv)
{
    int rank, size, rc;
    CUdevice dev;

    (void)devmem_finish; /* its end is spread out here: checks after MPI_Finalize */
    (void)check_host;
    /* The ring takes nonblocking calls only when asked (off by default). */
    ring_nonblocking = devmem_setting_on("MCOLL_RESIDENT_NONBLOCKING");
    const int legacy_order = devmem_setting_on("MCOLL_LEGACY_STREAM_ORDER");
    setenv("MCOLL_RESIDENT_IDLE_US", "5000", 1);
    devmem_engine_init(&argc, &argv, &rank, &size, &dev, 1);
    mcoll_driver_load();
    model_sync = mcoll_cu.cuStreamSynchronize;
    mcoll_cu.cuStreamSynchronize = sync_stream;
    model_wait_value = mcoll_cu.cuStreamWaitValue32;
    mcoll_cu.cuStreamWaitValue32 = wait_value;
    model_query = mcoll_cu.cuStreamQuery;
    mcoll_cu.cuStreamQuery = query_stream;

    blocking(MPI_COMM_WORLD, SMALL, 1); /* builds the team and starts its kernel */
    check_many(rank);
#ifdef INIT
    check_interleaved();
#endif
    checkpoint();
    check_two_comms(rank);
    check_restart();
    check_stale_exit();
    check_legacy_stream(legacy_order);
    checkpoint();
    check_restart_fails(rank);
    check_comm_free(rank);
    checkpoint();
    leave_outstanding();
    if (!atomic_load(&ring_runs)) CT_FAIL("no call reached the resident kernel's ring");
    rc = devmem_before_finalize("mpi_ring");
    MPI_Finalize();
    rc += check_after_finalize(rank);
    for (int i = 0; i < LEFT; i++) d_release(left[i].send), d_release(left[i].recv);
    cu->cuDevicePrimaryCtxRelease(dev);
    if (rank == 0 && !rc)
        printf("mpi_ring: PASS (%d calls in the ring, %d launched, %d repeated-call marks)\n", atomic_load(&ring_runs),
               atomic_load(&launched_runs), atomic_load(&same_marks));
    return rc ? 1 : 0;
}
