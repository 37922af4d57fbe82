/* Nonblocking and persistent calls on the GPU engines with their launches queued to the launcher
 * thread (MCOLL_ASYNC_START, src/api/async.h), on the contract driver with real teams. No GPU
 * runs here, so the kernel launchers are replaced (linked with --wrap, tests/build.mk) by ones
 * that record each launch: which call (its index, read from the first word of its send buffer),
 * in which thread, and write a stamp into the receive buffer; they touch the team's memory
 * through the model (mcoll_contract_kernel_access), so a launch on a team already torn down is
 * a broken rule. Each rank checks:
 *   - order: 40 nonblocking calls of five collectives on two communicators, every 8th followed
 *     by a blocking call, launch in the order issued; each blocking launch finds every
 *     nonblocking call issued before it launched, on either communicator (the wait in
 *     mcoll_comm_enter_context); a request that tests complete was launched; after MPI_Waitall
 *     every stamp is in place;
 *   - persistent requests started in a loop between blocking calls, the same way;
 *   - a launch that fails: with the setting on, the request completes with MPI_ERR_OTHER
 *     (MPI_Wait; MPI_Waitall: MPI_ERR_IN_STATUS and the status), the others succeed; with it off,
 *     the call itself returns MPI_ERR_OTHER;
 *   - MPI_Comm_free with launches still queued: they run before the team goes;
 *   - a communicator whose engine cannot be built: the call falls back to the staged path in the
 *     caller, never queued;
 *   - MPI_Finalize with launches still queued (their requests freed): every launch ran, before
 *     the engines went, and the launcher thread has ended.
 * In every case, the order of the GPU work as the model follows it (stream order, the legacy
 * default stream's implicit synchronization, events; model/order.c): each launch comes after the
 * team's launch before it and after the work the application queued on the legacy default
 * stream before the call (a memset queued before each call here; for nonblocking calls only with
 * MCOLL_LEGACY_STREAM_ORDER on, test_async_off.sh runs it off too), and for a nonblocking or
 * persistent call, work the application queues on the legacy default stream after the start
 * (a cudaMemcpy) does not wait for the kernel: a kernel that waits for its peers could hold it,
 * and a peer may reach the call only after a message this rank sends after that copy.
 * Launches are slowed (1-2 ms each) so the queue really holds several, and the waits find some
 * still queued and launch them themselves (mcoll_async_help) while the thread runs an earlier
 * one. Run as it is (setting on: no nonblocking launch inside the call that starts it) and by
 * test_async_off.sh with MCOLL_ASYNC_START=0 (every launch in the caller). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>
#include <mpi.h>
#include "common/pcoll.h"
#include "async.h"
#include "launch.h"
#include "contract/devmem.h"

#define MAX_LAUNCHES 4096
#define COUNT 4096 /* ints per rank's block: past the LL protocol, not that it is on */
#define BLOCKING_INDEX (-1)

static pthread_t main_thread;
static int async_on;
static atomic_int launches, launches_in_caller, launches_in_thread;
static int launched_index[MAX_LAUNCHES];
static int issued;            /* nonblocking calls issued by this rank so far */
static int fail_index = -2;   /* the call whose launch fails */
static int slow_us;
static int starting;          /* inside an MPI_I* or MPI_Start* call of this test */

/* ---------------------------------------------------------------------------------------------
 * The order of the GPU work (contract model, order.c)
 * ------------------------------------------------------------------------------------------- */
#define MAX_INDEX 1024
static uint64_t legacy_before[MAX_INDEX + 1]; /* by call index; the last one: blocking calls */
static int legacy_order;      /* MCOLL_LEGACY_STREAM_ORDER: nonblocking launches follow that work */
static void *legacy_target;
static pthread_mutex_t order_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    uintptr_t team;    /* rank 0's signal pad: one team */
    uint64_t last;     /* its last launch */
} team_launches[16];

/* Where call `index`'s legacy-stream work is kept. */
static uint64_t *legacy_slot(int index)
{
    return &legacy_before[index == BLOCKING_INDEX || index >= MAX_INDEX ? MAX_INDEX : index];
}

/* Work the application queues on the legacy default stream before call `index`; its id. */
static void legacy_work_before(int index)
{
    CUcontext cur = borrow();
    if (!legacy_target) legacy_target = d_alloc(1);
    if (cu->cuMemsetD8Async((CUdeviceptr)(uintptr_t)legacy_target, 0, 1, CU_STREAM_LEGACY) != CUDA_SUCCESS)
        CT_FAIL("memset on the legacy default stream");
    give_back(cur);
    *legacy_slot(index) = mcoll_contract_last_work(CU_STREAM_LEGACY);
}

/* After MPI_Comm_free: a new team may have the freed one's memory (and so its key). */
static void forget_teams(void)
{
    pthread_mutex_lock(&order_lock);
    memset(team_launches, 0, sizeof team_launches);
    pthread_mutex_unlock(&order_lock);
}

static uint64_t *last_launch_of(const mcoll_dev_team *team)
{
    const uintptr_t key = (uintptr_t)team->peer_signal[0];
    for (int i = 0; i < 16; i++)
        if (team_launches[i].team == key || !team_launches[i].team) {
            team_launches[i].team = key;
            return &team_launches[i].last;
        }
    return &team_launches[0].last;
}

/* Before the launch's work is queued: it comes after the team's last launch and after the
 * application's legacy-stream work queued before the call. */
static void check_order_before(const mcoll_dev_team *team, int index, CUstream stream)
{
    const uint64_t before = *legacy_slot(index);
    uint64_t last;
    pthread_mutex_lock(&order_lock);
    last = *last_launch_of(team);
    pthread_mutex_unlock(&order_lock);
    if (last && mcoll_contract_comes_after(stream, last) != 1)
        CT_FAIL("call %d's kernel would not wait for the team's kernel before it", index);
    /* Blocking calls follow it in any case (their stream is a blocking one). */
    if (before && (legacy_order || index == BLOCKING_INDEX) && mcoll_contract_comes_after(stream, before) != 1)
        CT_FAIL("call %d's kernel would not wait for the legacy-stream work queued before the call", index);
}

/* After: the launch is the team's last; a nonblocking call's kernel holds no legacy-stream work. */
static void check_order_after(const mcoll_dev_team *team, int index, CUstream stream)
{
    const uint64_t mine = mcoll_contract_last_work(stream);
    pthread_mutex_lock(&order_lock);
    *last_launch_of(team) = mine;
    pthread_mutex_unlock(&order_lock);
    if (index != BLOCKING_INDEX && mcoll_contract_comes_after(CU_STREAM_LEGACY, mine) != 0)
        CT_FAIL("work queued on the legacy default stream after call %d's start would wait for its kernel", index);
}

static void sleep_us(int us)
{
    struct timespec ts = {0, (long)us * 1000};
    if (us) nanosleep(&ts, NULL);
}

/* ---------------------------------------------------------------------------------------------
 * The launchers
 * ------------------------------------------------------------------------------------------- */
static int fake_launch(const mcoll_dev_team *team, const void *sendbuf, void *recvbuf, void *stream)
{
    int index = *(const int *)sendbuf, n, in_caller = pthread_equal(pthread_self(), main_thread);
    check_order_before(team, index, (CUstream)stream);
    /* What a kernel would touch: every rank's signal pad through the team's views. */
    for (int i = 0; i < team->size; i++)
        if (mcoll_contract_kernel_access((CUstream)stream, (CUdeviceptr)(uintptr_t)team->peer_signal[i],
                                         MCOLL_SIGNAL_BYTES, 1) != CUDA_SUCCESS)
            CT_FAIL("launch of call %d on a team that is gone", index);
    check_order_after(team, index, (CUstream)stream);
    if (index == BLOCKING_INDEX) {
        /* A blocking call: every nonblocking call issued before it has launched. */
        if (atomic_load(&launches_in_thread) + atomic_load(&launches_in_caller) < issued)
            CT_FAIL("a blocking call launched while %d nonblocking ones were still queued",
                    issued - atomic_load(&launches_in_thread) - atomic_load(&launches_in_caller));
        return MCOLL_LAUNCH_OK;
    }
    sleep_us(slow_us);
    atomic_fetch_add(in_caller ? &launches_in_caller : &launches_in_thread, 1);
    /* Setting on: never inside the MPI_I* or MPI_Start call itself (a wait may launch what is
     * still queued: mcoll_async_help). Off: always in the caller. */
    if (async_on ? in_caller && starting : !in_caller)
        CT_FAIL("call %d launched in the %s thread%s", index, in_caller ? "calling" : "launcher",
                in_caller ? " while it was being started" : "");
    n = atomic_fetch_add(&launches, 1);
    if (n < MAX_LAUNCHES) launched_index[n] = index;
    if (index == fail_index) return MCOLL_LAUNCH_CUDA_ERROR;
    ((int *)recvbuf)[0] = 1000000 + index; /* the "result" */
    return MCOLL_LAUNCH_OK;
}

int __wrap_mcoll_launch_allreduce(const mcoll_dev_team *team, mcoll_access access, const void *sendbuf, void *recvbuf,
                                  size_t count, mcoll_dtype dtype, mcoll_op op, void *stream)
{
    (void)access, (void)count, (void)dtype, (void)op;
    return fake_launch(team, sendbuf, recvbuf, stream);
}

int __wrap_mcoll_launch_bcast(const mcoll_dev_team *team, mcoll_access access, void *buf, size_t bytes, int root,
                              void *stream)
{
    (void)access, (void)bytes, (void)root;
    return fake_launch(team, buf, buf, stream);
}

int __wrap_mcoll_launch_reduce_scatter(const mcoll_dev_team *team, mcoll_access access, const void *sendbuf,
                                       void *recvbuf, size_t recvcount, mcoll_dtype dtype, mcoll_op op, void *stream)
{
    (void)access, (void)recvcount, (void)dtype, (void)op;
    return fake_launch(team, sendbuf, recvbuf, stream);
}

int __wrap_mcoll_launch_allgather(const mcoll_dev_team *team, mcoll_access access, const void *sendbuf,
                                  void *recvbuf, size_t sendbytes, void *stream)
{
    (void)access, (void)sendbytes;
    return fake_launch(team, sendbuf, recvbuf, stream);
}

/* ---------------------------------------------------------------------------------------------
 * Calls
 * ------------------------------------------------------------------------------------------- */
typedef struct {
    int *send, *recv;
} bufs;

static bufs make_bufs(int size, int index)
{
    bufs b;
    b.send = (int *)d_alloc((size_t)COUNT * size * sizeof(int));
    b.recv = (int *)d_alloc((size_t)COUNT * size * sizeof(int));
    b.send[0] = index; /* the contract model's device memory is host memory */
    b.recv[0] = -1;
    return b;
}

static void free_bufs(bufs *b)
{
    d_release(b->send);
    d_release(b->recv);
}

/* Call `index` as the (index % 5)th collective; bcast carries its index in the buffer itself. */
static int issue_call(bufs *b, int index, MPI_Comm comm, MPI_Request *q)
{
    static int counts[64];
    int size;
    MPI_Comm_size(comm, &size);
    for (int i = 0; i < size; i++) counts[i] = COUNT;
    legacy_work_before(index);
    issued++;
    switch (index % 5) {
    case 0: return MPI_Iallreduce(b->send, b->recv, COUNT, MPI_INT, MPI_SUM, comm, q);
    case 1:
        b->recv[0] = index;
        return MPI_Ibcast(b->recv, COUNT, MPI_INT, 0, comm, q);
    case 2: return MPI_Iallgather(b->send, COUNT, MPI_INT, b->recv, COUNT, MPI_INT, comm, q);
    case 3: return MPI_Ireduce_scatter_block(b->send, b->recv, COUNT, MPI_INT, MPI_SUM, comm, q);
    default: return MPI_Ireduce_scatter(b->send, b->recv, counts, MPI_INT, MPI_SUM, comm, q);
    }
}

static int start_call(bufs *b, int index, MPI_Comm comm, MPI_Request *q)
{
    int rc;
    starting = 1;
    rc = issue_call(b, index, comm, q);
    starting = 0;
    return rc;
}

static int stamp_ok(const bufs *b, int index) { return b->recv[0] == 1000000 + index; }

/* A blocking engine call on `comm`: its launch checks the queue is empty. */
static void blocking(MPI_Comm comm)
{
    bufs b = make_bufs(1, BLOCKING_INDEX);
    legacy_work_before(BLOCKING_INDEX);
    if (MPI_Allreduce(b.send, b.recv, COUNT, MPI_INT, MPI_SUM, comm) != MPI_SUCCESS) CT_FAIL("blocking allreduce");
    free_bufs(&b);
}

/* ---------------------------------------------------------------------------------------------
 * Cases
 * ------------------------------------------------------------------------------------------- */
#define ORDER_CALLS 40

static void check_order(int size)
{
    bufs b[ORDER_CALLS];
    MPI_Request q[ORDER_CALLS];
    MPI_Status st[ORDER_CALLS];
    MPI_Comm dup;
    int first = atomic_load(&launches), flag, rc;
    slow_us = 1000;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    blocking(dup); /* builds its team (blocking launches are not counted in `launches`) */
    for (int i = 0; i < ORDER_CALLS; i++) {
        b[i] = make_bufs(size, 100 + i);
        /* Every third call on the other communicator: the blocking calls on MPI_COMM_WORLD must
         * find its calls issued before them launched too. */
        if (start_call(&b[i], 100 + i, i % 3 == 2 ? dup : MPI_COMM_WORLD, &q[i]) != MPI_SUCCESS) CT_FAIL("call %d", 100 + i);
        /* Done only once launched (and its event passed). */
        flag = 0;
        MPI_Test(&q[i], &flag, MPI_STATUS_IGNORE);
        if (flag && !stamp_ok(&b[i], 100 + i)) CT_FAIL("call %d complete before its launch", 100 + i);
        if (i % 8 == 7) blocking(MPI_COMM_WORLD);
    }
    rc = MPI_Waitall(ORDER_CALLS, q, st);
    if (rc != MPI_SUCCESS) CT_FAIL("MPI_Waitall: %d", rc);
    for (int i = 0; i < ORDER_CALLS; i++) {
        if (first + i >= MAX_LAUNCHES || launched_index[first + i] != 100 + i)
            CT_FAIL("launch %d was call %d, not %d", i, launched_index[first + i], 100 + i);
        if (!stamp_ok(&b[i], 100 + i)) CT_FAIL("call %d: no result after MPI_Waitall", 100 + i);
        free_bufs(&b[i]);
    }
    MPI_Comm_free(&dup);
    forget_teams();
    ct_checks++;
}

#ifdef INIT
static void check_persistent(int size)
{
    bufs a = make_bufs(size, 200), g = make_bufs(size, 201);
    MPI_Request q[2];
    int first = atomic_load(&launches), rc;
    slow_us = 1000;
    if (INIT(Allreduce)(a.send, a.recv, COUNT, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &q[0]) != MPI_SUCCESS ||
        INIT(Allgather)(g.send, COUNT, MPI_INT, g.recv, COUNT, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &q[1]) !=
            MPI_SUCCESS) {
        CT_FAIL("persistent initialization");
        return;
    }
    for (int k = 0; k < 6; k++) {
        a.recv[0] = g.recv[0] = -1;
        issued += 2;
        legacy_work_before(200);
        legacy_work_before(201);
        starting = 1;
        rc = MPI_Startall(2, q);
        starting = 0;
        if (rc != MPI_SUCCESS) CT_FAIL("MPI_Startall %d", k);
        if (k % 2) blocking(MPI_COMM_WORLD);
        if (MPI_Waitall(2, q, MPI_STATUSES_IGNORE) != MPI_SUCCESS) CT_FAIL("MPI_Waitall of start %d", k);
        if (!stamp_ok(&a, 200) || !stamp_ok(&g, 201)) CT_FAIL("start %d: no result after MPI_Waitall", k);
    }
    for (int k = 0; k < 12; k++)
        if (launched_index[first + k] != 200 + k % 2) CT_FAIL("persistent launch %d was call %d", k, launched_index[first + k]);
    MPI_Request_free(&q[0]);
    MPI_Request_free(&q[1]);
    free_bufs(&a);
    free_bufs(&g);
    ct_checks++;
}
#endif

static void check_launch_error(int size)
{
    bufs b[3];
    MPI_Request q[3];
    MPI_Status st[3];
    int rc;
    slow_us = 1000;
    for (int i = 0; i < 3; i++) b[i] = make_bufs(size, 300 + i);
    fail_index = 301;
    /* MPI_Wait of the failing call alone. */
    rc = start_call(&b[1], 301, MPI_COMM_WORLD, &q[1]);
    if (async_on) {
        if (rc != MPI_SUCCESS) CT_FAIL("a queued call failed before its launch: %d", rc);
        rc = MPI_Wait(&q[1], &st[1]);
        if (error_class(rc) != MPI_ERR_OTHER) CT_FAIL("MPI_Wait after a failed launch: %d", rc);
        if (q[1] != MPI_REQUEST_NULL) CT_FAIL("MPI_Wait left a failed request set");
    } else if (error_class(rc) != MPI_ERR_OTHER) {
        CT_FAIL("a failed launch in the caller returned %d", rc);
    }
    /* Between two that succeed, in one MPI_Waitall. */
    if (async_on) {
        for (int i = 0; i < 3; i++) {
            st[i].MPI_ERROR = -1;
            if (start_call(&b[i], 300 + i, MPI_COMM_WORLD, &q[i]) != MPI_SUCCESS) CT_FAIL("call %d", 300 + i);
        }
        rc = MPI_Waitall(3, q, st);
        if (error_class(rc) != MPI_ERR_IN_STATUS || st[0].MPI_ERROR != MPI_SUCCESS ||
            error_class(st[1].MPI_ERROR) != MPI_ERR_OTHER || st[2].MPI_ERROR != MPI_SUCCESS)
            CT_FAIL("MPI_Waitall after a failed launch: %d, statuses %d %d %d", rc, st[0].MPI_ERROR, st[1].MPI_ERROR,
                    st[2].MPI_ERROR);
        if (!stamp_ok(&b[0], 300) || !stamp_ok(&b[2], 302)) CT_FAIL("the calls around a failed launch lost results");
    }
    fail_index = -2;
    blocking(MPI_COMM_WORLD); /* the communicator still works */
    for (int i = 0; i < 3; i++) free_bufs(&b[i]);
    ct_checks++;
}

static void check_comm_free(int size)
{
    bufs b[6];
    MPI_Request q[6];
    MPI_Comm comm;
    int first;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    blocking(comm); /* its team */
    first = atomic_load(&launches);
    slow_us = 2000;
    for (int i = 0; i < 6; i++) {
        b[i] = make_bufs(size, 400 + i);
        if (start_call(&b[i], 400 + i, comm, &q[i]) != MPI_SUCCESS) CT_FAIL("call %d", 400 + i);
    }
    MPI_Comm_free(&comm);
    forget_teams();
    if (atomic_load(&launches) - first != 6) CT_FAIL("MPI_Comm_free returned with launches still queued");
    if (MPI_Waitall(6, q, MPI_STATUSES_IGNORE) != MPI_SUCCESS) CT_FAIL("MPI_Waitall after MPI_Comm_free");
    for (int i = 0; i < 6; i++) {
        if (!stamp_ok(&b[i], 400 + i)) CT_FAIL("call %d: no result after MPI_Comm_free", 400 + i);
        free_bufs(&b[i]);
    }
    ct_checks++;
}

/* A communicator whose engine cannot be built (cuMemCreate fails on every rank): the
 * call declines before anything is queued (queue_engine asks for the engine in the caller) and
 * falls back to the staged path, with the setting on as off; the launcher thread never gets a
 * job whose hook could answer "unsupported" (operation.c, run_queued). */
static void check_declined(int size)
{
    bufs b = make_bufs(size, 600);
    MPI_Request q;
    MPI_Comm comm;
    int first = atomic_load(&launches), rc;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    mcoll_contract_fail("cuMemCreate", 0, CUDA_ERROR_OUT_OF_MEMORY); /* 0: every one */
    rc = MPI_Iallreduce(b.send, b.recv, COUNT, MPI_INT, MPI_SUM, comm, &q); /* not `issued`: never launched */
    mcoll_contract_fail_clear();
    if (rc != MPI_SUCCESS) CT_FAIL("a call on a communicator without engine: %d", rc);
    else if ((rc = MPI_Wait(&q, MPI_STATUS_IGNORE)) != MPI_SUCCESS) CT_FAIL("its request completed with %d", rc);
    if (b.recv[0] != 600 * size) CT_FAIL("a declined call gave %d, not the staged sum %d", b.recv[0], 600 * size);
    if (atomic_load(&launches) != first) CT_FAIL("a declined call reached a launcher");
    MPI_Comm_free(&comm);
    forget_teams();
    free_bufs(&b);
    ct_checks++;
}

/* Calls left queued for MPI_Finalize: their requests freed (they complete in the background). */
#define LEFT 6
static bufs left[LEFT];
static int left_first;

static void leave_queued(int size)
{
    MPI_Request q;
    left_first = atomic_load(&launches);
    slow_us = 2000;
    for (int i = 0; i < LEFT; i++) {
        left[i] = make_bufs(size, 500 + i);
        if (start_call(&left[i], 500 + i, MPI_COMM_WORLD, &q) != MPI_SUCCESS) CT_FAIL("call %d", 500 + i);
        MPI_Request_free(&q);
    }
}

/* After MPI_Finalize (stderr only: ct_* report through MPI). */
static int check_after_finalize(int rank)
{
    int bad = 0;
    if (atomic_load(&launches) - left_first != LEFT) {
        fprintf(stderr, "rank %d: %d of %d launches left queued at MPI_Finalize ran\n", rank,
                atomic_load(&launches) - left_first, LEFT);
        bad++;
    }
    for (int i = 0; i < LEFT; i++)
        if (!stamp_ok(&left[i], 500 + i)) {
            fprintf(stderr, "rank %d: call %d left queued at MPI_Finalize has no result\n", rank, 500 + i);
            bad++;
        }
    if (mcoll_async_running()) {
        fprintf(stderr, "rank %d: the launcher thread still runs after MPI_Finalize\n", rank);
        bad++;
    }
    if (async_on != (atomic_load(&launches_in_thread) > 0)) {
        fprintf(stderr, "rank %d: %d launches in the launcher thread with MCOLL_ASYNC_START=%d\n", rank,
                atomic_load(&launches_in_thread), async_on);
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
    main_thread = pthread_self();
    /* The launcher thread is what this test is about. */
    async_on = devmem_setting_on("MCOLL_ASYNC_START");
    legacy_order = devmem_setting_on("MCOLL_LEGACY_STREAM_ORDER");
    devmem_engine_init(&argc, &argv, &rank, &size, &dev, 0);

    blocking(MPI_COMM_WORLD); /* builds the team */
    check_order(size);
#ifdef INIT
    check_persistent(size);
#endif
    checkpoint();
    check_launch_error(size);
    checkpoint();
    check_comm_free(size);
    checkpoint();
    check_declined(size);
    checkpoint();
    leave_queued(size);
    if (!atomic_load(&launches)) CT_FAIL("no call reached the GPU engines' launchers");
    rc = devmem_before_finalize("mpi_async");
    MPI_Finalize();
    rc += check_after_finalize(rank);
    for (int i = 0; i < LEFT; i++) d_release(left[i].send), d_release(left[i].recv);
    cu->cuDevicePrimaryCtxRelease(dev);
    if (rank == 0 && !rc && async_on)
        printf("mpi_async: PASS (launches in the launcher thread, %d of them made by waits)\n",
               atomic_load(&launches_in_caller));
    else if (rank == 0 && !rc)
        printf("mpi_async: PASS (launches in the caller)\n");
    return rc ? 1 : 0;
}
