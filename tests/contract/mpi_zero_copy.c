/* MPI calls through the plug-in on ordinary device buffers (cuMemAlloc memory of the contract
 * driver, never registered) at or above MCOLL_ZERO_COPY_MIN: the plug-in maps the peers' buffers
 * for each call and runs the engine's zero-copy kernels on them (src/mem/call_windows.h). No GPU
 * runs here, so the kernel launchers are replaced (linked with --wrap, tests/build.mk): the
 * zero-copy ones do on the host what the kernels do, through the peer pointers they are given
 * (the model's memory is host memory, and CUDA IPC mappings are real mappings of the owner's
 * memory), between two barriers, and declare what they touch to the model; the staged ones only
 * count. Each rank checks, on 2 to 8 ranks:
 *   - allreduce (in place too), reduce (root 0; last rank in place), bcast, reduce_scatter_block,
 *     reduce_scatter and allgather run zero-copy (mcoll_comm_info's zero_copy_calls, the
 *     zero-copy launcher, not the staged one) and their results are those computed here;
 *   - below the threshold, and with MCOLL_ZERO_COPY_MIN=off's decision, the staged kernels run;
 *   - the same buffers again: the last call's windows serve again (no mapping, no agreement),
 *     no IPC handle made or opened, and they stay held between the calls (and only they);
 *   - a buffer freed and allocated again at the same address between calls: mapped afresh (new
 *     buffer id), and the peers read the new data;
 *   - one rank's buffer changed, the others' the same: every rank maps afresh;
 *   - a buffer freed and allocated again while a communicator keeps its windows: another
 *     communicator's first call maps the new buffer zero-copy (the kept mapping of the old one
 *     lets go, which the driver requires), and the first communicator maps afresh;
 *   - one rank's buffer that peers cannot map (cuMemCreate memory without a shareable handle
 *     type): every rank takes the staged kernels;
 *   - an IPC open that fails on one rank: every rank stages that call, the next one is zero-copy;
 *   - mappings are in use while a kernel runs, released after; the unused ones stay within
 *     MCOLL_REG_CACHE however many buffers pass;
 *   - persistent allreduce, reduce and bcast (where the MPI has persistent collectives) map
 *     their buffers once, at initialization, and run zero-copy at every start with no mapping
 *     made or opened; between starts their windows are invisible to other calls (a blocking
 *     call on one rank's persistent buffer alone stays staged on every rank); MPI_Request_free,
 *     and MPI_Comm_free of the communicator before it, release the mappings; a start on an input
 *     freed and allocated again at its address (erroneous) says so in a warning;
 *   - no broken rule of the driver documents, no device pointer reaches the MPI. */
#define _GNU_SOURCE
#include <mpi.h>
#include "comm_attr.h"
#include "comm_internal.h"
#include "launch.h"
#include "reg_cache.h"
#include "contract/devmem.h"
#include "common/pcoll.h"

#define COUNT (64 * 1024)      /* ints per rank's block: 256 KiB, above the threshold below */
#define SMALL 1024             /* ints: 4 KiB, below it */
#define CACHE_LIMIT 14         /* MCOLL_REG_CACHE: one call's mappings on 8 ranks */

static int rank, size;
static int direct_launches, staged_launches, expect_in_use;

/* ---------------------------------------------------------------------------------------------
 * The launchers
 * ------------------------------------------------------------------------------------------- */
/* What a kernel touches, declared to the model (mapped, accessible for the access). */
static void touch(void *stream, const void *p, size_t bytes, int write)
{
    if (mcoll_contract_kernel_access((CUstream)stream, (CUdeviceptr)(uintptr_t)p, bytes, write) != CUDA_SUCCESS)
        CT_FAIL("a zero-copy kernel would touch %p (+%zu) that is not mapped for it", p, bytes);
}

/* The kernels' barriers, and the mappings held meanwhile. */
static void enter(void)
{
    int entries, in_use;
    long mapped;
    direct_launches++;
    mcoll_reg_cache_stats(&entries, &in_use, &mapped);
    if (in_use < expect_in_use) CT_FAIL("%d peer mappings in use during a call, %d expected", in_use, expect_in_use);
    PMPI_Barrier(MPI_COMM_WORLD);
}

static void leave(void) { PMPI_Barrier(MPI_COMM_WORLD); }

/* Elements [*lo, *hi) of n: rank r's slice. */
static void slice(size_t n, int r, size_t *lo, size_t *hi)
{
    *lo = n * (size_t)r / (size_t)size;
    *hi = n * (size_t)(r + 1) / (size_t)size;
}

static int is_int_sum(mcoll_dtype dtype, mcoll_op op)
{
    if (dtype == MCOLL_I32 && op == MCOLL_SUM) return 1;
    CT_FAIL("the test's launchers do MPI_INT and MPI_SUM only");
    return 0;
}

int __wrap_mcoll_launch_allreduce_direct(const mcoll_dev_team *send, const mcoll_dev_team *recv, size_t count,
                                         mcoll_dtype dtype, mcoll_op op, void *stream)
{
    size_t lo, hi;
    int q;
    enter();
    slice(count, rank, &lo, &hi);
    for (q = 0; q < size && is_int_sum(dtype, op); q++) {
        touch(stream, send->peer_data[q], count * sizeof(int), 0);
        touch(stream, recv->peer_data[q], count * sizeof(int), 1);
    }
    for (size_t i = lo; i < hi; i++) {
        int sum = 0;
        for (q = 0; q < size; q++) sum += ((const int *)send->peer_data[q])[i];
        for (q = 0; q < size; q++) ((int *)recv->peer_data[q])[i] = sum;
    }
    leave();
    return MCOLL_LAUNCH_OK;
}

int __wrap_mcoll_launch_reduce_scatter_direct(const mcoll_dev_team *send, const mcoll_dev_team *recv,
                                              size_t recvcount, mcoll_dtype dtype, mcoll_op op, void *stream)
{
    int q;
    enter();
    for (q = 0; q < size && is_int_sum(dtype, op); q++) touch(stream, send->peer_data[q], recvcount * size * 4, 0);
    for (size_t i = 0; i < recvcount; i++) {
        int sum = 0;
        for (q = 0; q < size; q++) sum += ((const int *)send->peer_data[q])[(size_t)rank * recvcount + i];
        ((int *)recv->peer_data[rank])[i] = sum;
    }
    leave();
    return MCOLL_LAUNCH_OK;
}

/* Root tells the others, as the kernel does through its signal pad, whether it is in place and
 * where its recvbuf lies from recv->peer_data[root]; each rank then reduces its slice into it. */
int __wrap_mcoll_launch_reduce_direct(const mcoll_dev_team *send, const mcoll_dev_team *recv, size_t count,
                                      mcoll_dtype dtype, mcoll_op op, int root, int in_place, size_t root_recv_at,
                                      void *stream)
{
    unsigned long long told[2] = {(unsigned long long)in_place, (unsigned long long)root_recv_at};
    size_t lo, hi;
    int q;
    enter();
    PMPI_Bcast(told, 2, MPI_UNSIGNED_LONG_LONG, root, MPI_COMM_WORLD);
    if (told[1] == (unsigned long long)(size_t)-1) CT_FAIL("reduce: root's recvbuf was not mapped for the others");
    else if (is_int_sum(dtype, op)) {
        int *out = (int *)(recv->peer_data[root] + (rank == root ? 0 : told[1]));
        const int *root_in = told[0] ? out : (const int *)send->peer_data[root];
        touch(stream, out, count * sizeof(int), 1);
        slice(count, rank, &lo, &hi);
        for (size_t i = lo; i < hi; i++) {
            int sum = 0;
            for (q = 0; q < size; q++) sum += q == root ? root_in[i] : ((const int *)send->peer_data[q])[i];
            out[i] = sum;
        }
    }
    leave();
    return MCOLL_LAUNCH_OK;
}

int __wrap_mcoll_launch_bcast_direct(const mcoll_dev_team *buf, size_t bytes, int root, void *stream)
{
    size_t lo, hi;
    enter();
    slice(bytes, rank, &lo, &hi);
    touch(stream, buf->peer_data[root], bytes, 0);
    for (int q = 0; q < size; q++)
        if (q != root) memcpy(buf->peer_data[q] + lo, buf->peer_data[root] + lo, hi - lo);
    leave();
    return MCOLL_LAUNCH_OK;
}

int __wrap_mcoll_launch_allgather_direct(const mcoll_dev_team *recv, const void *sendbuf, size_t sendbytes,
                                         void *stream)
{
    enter();
    for (int q = 0; q < size; q++) {
        touch(stream, recv->peer_data[q] + (size_t)rank * sendbytes, sendbytes, 1);
        memmove(recv->peer_data[q] + (size_t)rank * sendbytes, sendbuf, sendbytes);
    }
    leave();
    return MCOLL_LAUNCH_OK;
}

/* The staged kernels are only counted (their results are not computed here). */
static int staged(void)
{
    staged_launches++;
    return MCOLL_LAUNCH_OK;
}

int __wrap_mcoll_launch_allreduce(const mcoll_dev_team *t, mcoll_access a, const void *s, void *r, size_t n,
                                  mcoll_dtype d, mcoll_op o, void *st)
{
    (void)t, (void)a, (void)s, (void)r, (void)n, (void)d, (void)o, (void)st;
    return staged();
}

int __wrap_mcoll_launch_reduce(const mcoll_dev_team *t, mcoll_access a, const void *s, void *r, size_t n,
                               mcoll_dtype d, mcoll_op o, int root, void *st)
{
    (void)t, (void)a, (void)s, (void)r, (void)n, (void)d, (void)o, (void)root, (void)st;
    return staged();
}

/* ---------------------------------------------------------------------------------------------
 * Buffers and expected values
 * ------------------------------------------------------------------------------------------- */
static int value(int owner, int round, size_t i) { return owner * 1000 + round * 7 + (int)(i % 977); }

static void fill(int *p, size_t n, int owner, int round)
{
    for (size_t i = 0; i < n; i++) p[i] = value(owner, round, i);
}

static int sum_of(int round, size_t i)
{
    int s = 0;
    for (int q = 0; q < size; q++) s += value(q, round, i);
    return s;
}

static MPI_Comm comm; /* the communicator of the calls */

/* Calls that took the last call's windows again (call_windows.h). */
static unsigned long long kept_calls(void)
{
    mcoll_comm_state *cs = mcoll_comm_state_get(comm);
    return cs && cs->engine ? cs->engine->windows.calls_kept : 0;
}

static unsigned long long zero_copy_calls(void)
{
    mcoll_comm_state *cs = mcoll_comm_state_get(comm);
    mcoll_comm_info_t info;
    if (!cs || !cs->engine || mcoll_comm_info(cs->engine, &info) != MCOLL_SUCCESS) return 0;
    return info.zero_copy_calls;
}

/* Counters before a call, and the check after it: zero-copy or staged on this rank. */
typedef struct {
    unsigned long long calls;
    int direct, staged;
} marks;

static marks mark(void)
{
    marks m = {zero_copy_calls(), direct_launches, staged_launches};
    return m;
}

static void took(const char *what, marks m, int zero_copy)
{
    ct_checks++;
    if (zero_copy && (zero_copy_calls() != m.calls + 1 || direct_launches != m.direct + 1 || staged_launches != m.staged))
        CT_FAIL("%s: not zero-copy (zero_copy_calls %+lld, zero-copy launches %+d, staged %+d)", what,
                (long long)(zero_copy_calls() - m.calls), direct_launches - m.direct, staged_launches - m.staged);
    if (!zero_copy && (zero_copy_calls() != m.calls || direct_launches != m.direct || staged_launches != m.staged + 1))
        CT_FAIL("%s: not staged (zero_copy_calls %+lld, zero-copy launches %+d, staged %+d)", what,
                (long long)(zero_copy_calls() - m.calls), direct_launches - m.direct, staged_launches - m.staged);
}

static void expect(const char *what, const int *got, size_t n, int (*want)(size_t i, int arg), int arg)
{
    ct_checks++;
    for (size_t i = 0; i < n; i++)
        if (got[i] != want(i, arg)) {
            CT_FAIL("%s: element %zu is %d, %d expected", what, i, got[i], want(i, arg));
            return;
        }
}

static int want_sum(size_t i, int round) { return sum_of(round, i); }
static int want_block(size_t i, int round) { return sum_of(round, (size_t)rank * COUNT + i); }
static int want_root(size_t i, int root) { return value(root, 3, i); }
static int want_gathered(size_t i, int round) { return value((int)(i / COUNT), round, i % COUNT); }

/* One out-of-place allreduce of new input (round) on comm: zero-copy or staged, and, zero-copy,
 * its result. */
static void allreduce_case(const char *what, int *send, int *recv, int round, int zero_copy)
{
    marks m;
    fill(send, COUNT, rank, round);
    m = mark();
    if (MPI_Allreduce(send, recv, COUNT, MPI_INT, MPI_SUM, comm) != MPI_SUCCESS) CT_FAIL("%s: failed", what);
    took(what, m, zero_copy);
    if (zero_copy) expect(what, recv, COUNT, want_sum, round);
}

/* ---------------------------------------------------------------------------------------------
 * Cases
 * ------------------------------------------------------------------------------------------- */
static void check_collectives(void)
{
    int *send = d_alloc((size_t)COUNT * size * sizeof(int)), *recv = d_alloc((size_t)COUNT * size * sizeof(int));
    int counts[64];
    marks m;

    expect_in_use = 2 * (size - 1);
    fill(send, COUNT, rank, 1);
    m = mark();
    MPI_Allreduce(send, recv, COUNT, MPI_INT, MPI_SUM, comm);
    took("allreduce", m, 1);
    expect("allreduce", recv, COUNT, want_sum, 1);

    expect_in_use = size - 1;
    fill(recv, COUNT, rank, 2);
    m = mark();
    MPI_Allreduce(MPI_IN_PLACE, recv, COUNT, MPI_INT, MPI_SUM, comm);
    took("allreduce in place", m, 1);
    expect("allreduce in place", recv, COUNT, want_sum, 2);

    /* Root 0's recvbuf is mapped for the call (size - 1 inputs, and root's recvbuf by the others). */
    expect_in_use = rank == 0 ? size - 1 : size - 1 + 1;
    fill(send, COUNT, rank, 1);
    m = mark();
    MPI_Reduce(send, recv, COUNT, MPI_INT, MPI_SUM, 0, comm);
    took("reduce to 0", m, 1);
    if (rank == 0) expect("reduce to 0", recv, COUNT, want_sum, 1);
    expect_in_use = size - 1;
    if (rank == size - 1) fill(recv, COUNT, rank, 1);
    m = mark();
    MPI_Reduce(rank == size - 1 ? MPI_IN_PLACE : send, recv, COUNT, MPI_INT, MPI_SUM, size - 1, comm);
    took("reduce in place to the last rank", m, 1);
    if (rank == size - 1) expect("reduce in place to the last rank", recv, COUNT, want_sum, 1);

    fill(recv, COUNT, rank, 3);
    m = mark();
    MPI_Bcast(recv, COUNT, MPI_INT, 1 % size, comm);
    took("bcast", m, 1);
    expect("bcast", recv, COUNT, want_root, 1 % size);

    expect_in_use = size - 1;
    fill(send, (size_t)COUNT * size, rank, 4);
    m = mark();
    MPI_Reduce_scatter_block(send, recv, COUNT, MPI_INT, MPI_SUM, comm);
    took("reduce_scatter_block", m, 1);
    expect("reduce_scatter_block", recv, COUNT, want_block, 4);
    for (int q = 0; q < size; q++) counts[q] = COUNT;
    m = mark();
    MPI_Reduce_scatter(send, recv, counts, MPI_INT, MPI_SUM, comm);
    took("reduce_scatter", m, 1);
    expect("reduce_scatter", recv, COUNT, want_block, 4);

    fill(send, COUNT, rank, 5);
    m = mark();
    MPI_Allgather(send, COUNT, MPI_INT, recv, COUNT, MPI_INT, comm);
    took("allgather", m, 1);
    expect("allgather", recv, (size_t)COUNT * size, want_gathered, 5);

    m = mark();
    MPI_Allreduce(send, recv, SMALL, MPI_INT, MPI_SUM, comm);
    took("allreduce below MCOLL_ZERO_COPY_MIN", m, 0);
    d_release(send);
    d_release(recv);
}

/* The same buffers again: the peers' mappings come from the cache and the IPC handles from the
 * handles kept per buffer id. Then send is freed and allocated again: a new buffer id. */
static void check_reuse(void)
{
    int *send = d_alloc(COUNT * sizeof(int)), *recv = d_alloc(COUNT * sizeof(int)), *again, *other;
    int entries, in_use;
    long mapped, mapped_before;
    unsigned long long kept;
    const int held = 2 * (size - 1); /* the last call's two buffers, every peer's */

    expect_in_use = held;
    fill(send, COUNT, rank, 6);
    MPI_Allreduce(send, recv, COUNT, MPI_INT, MPI_SUM, comm);
    mcoll_reg_cache_stats(&entries, &in_use, &mapped_before);
    long made = mcoll_contract_calls("cuIpcGetMemHandle"), opened = mcoll_contract_calls("cuIpcOpenMemHandle");
    kept = kept_calls();
    allreduce_case("allreduce on the same buffers", send, recv, 7, 1);
    mcoll_reg_cache_stats(&entries, &in_use, &mapped);
    ct_checks++;
    if (mapped != mapped_before || mcoll_contract_calls("cuIpcGetMemHandle") != made ||
        mcoll_contract_calls("cuIpcOpenMemHandle") != opened)
        CT_FAIL("the same buffers again: %ld new mappings, %ld IPC handles made, %ld opened", mapped - mapped_before,
                mcoll_contract_calls("cuIpcGetMemHandle") - made, mcoll_contract_calls("cuIpcOpenMemHandle") - opened);
    if (kept_calls() != kept + 1) CT_FAIL("the same buffers again: the last call's windows not taken again");
    if (in_use != held) CT_FAIL("%d peer mappings held between calls, %d expected (the last call's)", in_use, held);

    d_release(send);
    again = d_alloc(COUNT * sizeof(int));
    int same_address = again == send, everywhere = 0;
    PMPI_Allreduce(&same_address, &everywhere, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    kept = kept_calls();
    allreduce_case("allreduce after free and allocate: zero-copy on the new data, never the old", again, recv, 8, 1);
    mcoll_reg_cache_stats(&entries, &in_use, &mapped_before);
    ct_checks++;
    if (mapped_before != mapped + size - 1)
        CT_FAIL("free and allocate%s: %ld new mappings, %d expected (one per peer)",
                everywhere ? " at the same address" : "", mapped_before - mapped, size - 1);
    if (kept_calls() != kept) CT_FAIL("free and allocate: the last call's windows taken for new memory");
    if (in_use != held) CT_FAIL("%d peer mappings held after free and allocate, %d expected", in_use, held);
    if (rank == 0) printf("free and allocate again: %s address on every rank\n", everywhere ? "the same" : "not the same");

    /* Only the last rank changes buffers: the others' records match, but every rank must map. */
    other = d_alloc(COUNT * sizeof(int));
    kept = kept_calls();
    allreduce_case("allreduce where one rank changed its buffer", rank == size - 1 ? other : again, recv, 9, 1);
    mcoll_reg_cache_stats(&entries, &in_use, &mapped);
    ct_checks++;
    if (kept_calls() != kept) CT_FAIL("one rank's buffer changed: the last call's windows taken again");
    if (mapped != mapped_before + (rank == size - 1 ? 0 : 1))
        CT_FAIL("one rank's buffer changed: %ld new mappings here, %d expected", mapped - mapped_before,
                rank == size - 1 ? 0 : 1);
    d_release(other);
    d_release(again);
    d_release(recv);
}

/* A communicator keeps its last call's windows, and with them the peers' mappings, between
 * calls. A peer then frees that buffer and allocates again (at the same address, where the
 * allocator gives it back), and the first call on another communicator maps the new buffer: the
 * mapping the first communicator keeps must go first, or the driver refuses the new one
 * (ALREADY_MAPPED) and the second communicator would stage every call. The first communicator,
 * called again, maps afresh. */
static void check_freed_under_kept(void)
{
    int *send = d_alloc(COUNT * sizeof(int)), *recv = d_alloc(COUNT * sizeof(int)), *again;
    const MPI_Comm first = comm;
    MPI_Comm second;
    int same_address, everywhere = 0;
    long opened;

    expect_in_use = 2 * (size - 1);
    allreduce_case("allreduce whose windows are kept", send, recv, 10, 1);
    allreduce_case("allreduce on the kept windows", send, recv, 11, 1);
    d_release(send);
    again = d_alloc(COUNT * sizeof(int));
    same_address = again == send;
    PMPI_Allreduce(&same_address, &everywhere, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Comm_dup(MPI_COMM_WORLD, &second);
    comm = second;
    opened = mcoll_contract_calls("cuIpcOpenMemHandle");
    allreduce_case("another communicator's first call, on memory allocated again under the first one's kept windows",
                   again, recv, 12, 1);
    ct_checks++;
    if (mcoll_contract_calls("cuIpcOpenMemHandle") == opened)
        CT_FAIL("another communicator's first call opened no IPC handle");
    allreduce_case("another communicator's second call", again, recv, 13, 1);
    comm = first;
    allreduce_case("the first communicator again, on the new memory", again, recv, 14, 1);
    if (rank == 0)
        printf("freed under kept windows: %s address on every rank\n", everywhere ? "the same" : "not the same");
    MPI_Comm_free(&second);
    d_release(again);
    d_release(recv);
}

/* cuMemCreate memory without a shareable handle type on rank 1: peers cannot map it. */
static void check_unmappable(void)
{
    CUmemAllocationProp prop;
    CUmemGenericAllocationHandle handle = 0;
    CUdeviceptr va = 0;
    size_t gran = 0;
    const int dev = rank % 8; /* devmem_start's */
    int *send, *recv = d_alloc(COUNT * sizeof(int));
    marks m;

    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = dev;
    prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_NONE;
    if (rank == 1) {
        CUmemAccessDesc access = {{CU_MEM_LOCATION_TYPE_DEVICE, dev}, CU_MEM_ACCESS_FLAGS_PROT_READWRITE};
        cu->cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM);
        if (cu->cuMemCreate(&handle, gran, &prop, 0) != CUDA_SUCCESS || cu->cuMemAddressReserve(&va, gran, 0, 0, 0) ||
            cu->cuMemMap(va, gran, 0, handle, 0) || cu->cuMemSetAccess(va, gran, &access, 1))
            CT_FAIL("cuMemCreate memory for the test");
        send = (int *)(uintptr_t)va;
    } else {
        send = d_alloc(COUNT * sizeof(int));
    }
    fill(send, COUNT, rank, 9);
    m = mark();
    MPI_Allreduce(send, recv, COUNT, MPI_INT, MPI_SUM, comm);
    took("allreduce with one rank's buffer unmappable: staged everywhere", m, 0);
    if (rank == 1) {
        cu->cuMemUnmap(va, gran);
        cu->cuMemRelease(handle);
        cu->cuMemAddressFree(va, gran);
    } else {
        d_release(send);
    }
    d_release(recv);
}

/* An IPC open fails on rank 1 (fresh buffers: nothing cached): every rank stages the call, one
 * INFO line says why, and the communicator's later calls are staged without trying again; a new
 * communicator maps them. */
static void check_map_failure(void)
{
    int *send = d_alloc(COUNT * sizeof(int)), *recv = d_alloc(COUNT * sizeof(int));
    int entries, in_use;
    long mapped;
    MPI_Comm world = comm;
    if (rank == 1 % size) mcoll_contract_fail("cuIpcOpenMemHandle", 1, CUDA_ERROR_OUT_OF_MEMORY);
    allreduce_case("allreduce whose mapping fails on one rank: staged everywhere", send, recv, 10, 0);
    mcoll_reg_cache_stats(&entries, &in_use, &mapped);
    if (in_use) CT_FAIL("%d peer mappings left in use by the failed mapping", in_use);
    long opened = mcoll_contract_calls("cuIpcOpenMemHandle");
    allreduce_case("the next allreduce on that communicator: staged", send, recv, 11, 0);
    if (mcoll_contract_calls("cuIpcOpenMemHandle") != opened) CT_FAIL("mapping tried again after it failed");

    MPI_Comm_dup(world, &comm);
    MPI_Allreduce(send, recv, SMALL, MPI_INT, MPI_SUM, comm); /* builds its engine */
    allreduce_case("allreduce on a new communicator", send, recv, 12, 1);
    MPI_Comm_free(&comm);
    comm = world;
    d_release(send);
    d_release(recv);
}

/* Many buffers, each mapped once: the unused mappings stay within MCOLL_REG_CACHE. */
static void check_cache_bound(void)
{
    enum { N = 8 }; /* 8 x 2 x (ranks - 1) mappings: more than the cache keeps on 2 ranks too */
    int entries, in_use;
    long mapped;
    expect_in_use = 2 * (size - 1);
    for (int i = 0; i < N; i++) {
        int *send = d_alloc(COUNT * sizeof(int)), *recv = d_alloc(COUNT * sizeof(int));
        allreduce_case("allreduce on new buffers", send, recv, 20 + i, 1);
        d_release(send);
        d_release(recv);
    }
    mcoll_reg_cache_stats(&entries, &in_use, &mapped);
    ct_checks++;
    /* Held: the last call's mappings, kept for the next call. */
    if (in_use != 2 * (size - 1) || entries > CACHE_LIMIT)
        CT_FAIL("registration cache: %d entries (%d in use) after the calls, MCOLL_REG_CACHE=%d", entries, in_use,
                CACHE_LIMIT);
}

#ifdef INIT
/* Peer mappings the registration cache holds in use now. */
static int mappings_in_use(void)
{
    int entries, in_use;
    long mapped;
    mcoll_reg_cache_stats(&entries, &in_use, &mapped);
    return in_use;
}

/* One start of a persistent request, waited for: zero-copy or staged on this rank. */
static void start_case(const char *what, MPI_Request *req, int zero_copy)
{
    marks m = mark();
    if (MPI_Start(req) != MPI_SUCCESS || MPI_Wait(req, MPI_STATUS_IGNORE) != MPI_SUCCESS)
        CT_FAIL("%s: start or wait failed", what);
    took(what, m, zero_copy);
}

static void check_persistent(void)
{
    int *send = d_alloc(COUNT * sizeof(int)), *recv = d_alloc(COUNT * sizeof(int));
    int *other = d_alloc(COUNT * sizeof(int));
    MPI_Request ar, rd, bc, small;
    MPI_Comm dup;
    long opened;
    int before;

    /* The last blocking call's windows are kept for the next; on `other`, alive throughout, they
     * hold the same mappings until the end (kept windows of memory freed since would be
     * unmapped when a request maps the memory allocated again over it). */
    expect_in_use = size - 1;
    MPI_Allreduce(MPI_IN_PLACE, other, COUNT, MPI_INT, MPI_SUM, comm);
    before = mappings_in_use();

    INIT(Allreduce)(send, recv, COUNT, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, &ar);
    ct_checks++;
    if (mappings_in_use() != before + 2 * (size - 1))
        CT_FAIL("persistent allreduce: %d peer mappings held after its initialization, %d expected",
                mappings_in_use() - before, 2 * (size - 1));
    opened = mcoll_contract_calls("cuIpcOpenMemHandle");
    expect_in_use = 2 * (size - 1);
    for (int round = 30; round < 33; round++) {
        fill(send, COUNT, rank, round);
        start_case("persistent allreduce", &ar, 1);
        expect("persistent allreduce", recv, COUNT, want_sum, round);
    }
    ct_checks++;
    if (mcoll_contract_calls("cuIpcOpenMemHandle") != opened)
        CT_FAIL("persistent allreduce: its starts opened %ld IPC handles (mapped at initialization only)",
                mcoll_contract_calls("cuIpcOpenMemHandle") - opened);

    /* Rank 0 alone uses the request's buffer: a window left linked would make it zero-copy there. */
    {
        marks m = mark();
        MPI_Allreduce(rank == 0 ? send : other, recv, SMALL, MPI_INT, MPI_SUM, comm);
        took("a blocking call on one rank's persistent buffer: staged everywhere", m, 0);
    }

    /* Root 0's recvbuf is mapped for the others, as for a blocking reduce. */
    INIT(Reduce)(send, recv, COUNT, MPI_INT, MPI_SUM, 0, comm, MPI_INFO_NULL, &rd);
    INIT(Bcast)(other, COUNT, MPI_INT, size - 1, comm, MPI_INFO_NULL, &bc);
    INIT(Allreduce)(send, recv, SMALL, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, &small);
    expect_in_use = 2 * (size - 1); /* the allreduce's at least (the others' may share its entries) */
    fill(send, COUNT, rank, 34);
    start_case("persistent reduce", &rd, 1);
    if (rank == 0) expect("persistent reduce", recv, COUNT, want_sum, 34);
    fill(other, COUNT, rank, 3);
    start_case("persistent bcast", &bc, 1);
    expect("persistent bcast", other, COUNT, want_root, size - 1);
    start_case("persistent allreduce below MCOLL_ZERO_COPY_MIN", &small, 0);
    MPI_Request_free(&rd);
    MPI_Request_free(&bc);
    MPI_Request_free(&small);
    MPI_Request_free(&ar);
    ct_checks++;
    if (mappings_in_use() != before)
        CT_FAIL("%d peer mappings still in use after MPI_Request_free", mappings_in_use() - before);

    /* Erroneous: the request's input freed and allocated again at its address on every rank.
     * Each start then says so (the peers map the old memory, which the model keeps). */
    {
        int *in = d_alloc(COUNT * sizeof(int)), *again;
        MPI_Request q;
        INIT(Allreduce)(in, recv, COUNT, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, &q);
        fill(in, COUNT, rank, 35);
        start_case("persistent allreduce before its input is freed", &q, 1);
        d_release(in);
        again = d_alloc(COUNT * sizeof(int));
        int same = again == in, everywhere = 0;
        PMPI_Allreduce(&same, &everywhere, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        if (everywhere) {
            const char *said;
            start_case("persistent allreduce on memory allocated again at its input's address", &q, 1);
            said = mcoll_last_warning();
            ct_checks++;
            if (!said || !strstr(said, "freed and allocated again"))
                CT_FAIL("a start on a freed and reallocated buffer said nothing (last warning: %s)", said ? said : "none");
        } else if (rank == 0) {
            printf("persistent: memory not allocated again at the same address; the stale-buffer warning is not checked\n");
        }
        MPI_Request_free(&q);
        d_release(again);
    }

    /* A communicator freed before its persistent request: the mappings go with it. */
    MPI_Comm_dup(comm, &dup);
    MPI_Allreduce(send, recv, SMALL, MPI_INT, MPI_SUM, dup); /* builds its engine */
    INIT(Allreduce)(send, recv, COUNT, MPI_INT, MPI_SUM, dup, MPI_INFO_NULL, &ar);
    MPI_Comm_free(&dup);
    ct_checks++;
    if (mappings_in_use() != before)
        CT_FAIL("%d peer mappings still in use after MPI_Comm_free", mappings_in_use() - before);
    MPI_Request_free(&ar);
    d_release(other);
    d_release(send);
    d_release(recv);
}
#endif

int main(int argc, char **argv)
{
    char limit[16];
    CUdevice dev;
    (void)check_host; /* no PMPI hook here: MCOLL_CUDA_AWARE=0 keeps device pointers from the MPI */
    snprintf(limit, sizeof limit, "%d", CACHE_LIMIT);
    setenv("MCOLL_REG_CACHE", limit, 1);
    setenv("MCOLL_ZERO_COPY_MIN", "128K", 1);
    setenv("MCOLL_ENGINE", "auto", 1);
    setenv("MCOLL_NVLS", "0", 1);          /* zero-copy runs on unicast teams */
    setenv("MCOLL_CUDA_AWARE", "0", 1);
    setenv("MCOLL_RESIDENT", "0", 1);
    setenv("MCOLL_LL_MAX", "0", 1);        /* every engine call launches a kernel */
    devmem_mpi_init(&argc, &argv, &rank, &size, &dev);
    mcoll_contract_set_quiet(1);
    if (size < 2 || size > 8) {
        if (rank == 0) printf("skip: mpi_zero_copy needs 2 to 8 ranks, got %d\n", size);
        MPI_Finalize();
        return 77;
    }
    comm = MPI_COMM_WORLD;
    check_collectives();
    checkpoint();
    check_reuse();
    checkpoint();
    check_freed_under_kept();
    checkpoint();
    check_unmappable();
    checkpoint();
    check_cache_bound();
    checkpoint();
#ifdef INIT
    check_persistent();
    checkpoint();
#endif
    check_map_failure(); /* last: MPI_COMM_WORLD's calls are staged from here on */
    mcoll_contract_fail_clear();
    checkpoint();
    return devmem_finish("mpi_zero_copy", dev);
}
