/* The memory API (mcoll_mem_*) against the contract driver, under mpirun (2 to 8 ranks):
 *   - mcoll_mem_alloc: symmetric memory, every rank's part readable through the window's peer
 *     pointers; sizes that differ between ranks, a second free and a foreign pointer refused on
 *     every rank alike;
 *   - mcoll_mem_register of cudaMalloc memory (CUDA IPC) and of cuMemCreate memory (the team's
 *     handle exchange): what each rank wrote is what its peers read through the window;
 *   - the registration cache: the same buffer registered again is not mapped again; memory
 *     freed and allocated again (at the same address where the allocator gives it back) is
 *     mapped afresh and never read stale; MCOLL_REG_CACHE bounds the unused entries, while
 *     entries in use are never unmapped however many there are;
 *   - refusals, agreed by every rank: host memory, a range crossing two allocations (cudaMalloc
 *     and VMM), VMM memory without the shared handle type, a second deregistration;
 *   - mcoll_mem_import_external: rank 0 exports cuMemCreate memory as a POSIX fd, rank 1 imports
 *     it and reads what rank 0 wrote; a misaligned offset and the driver's INVALID_HANDLE are
 *     clear refusals; release frees the buffer before it destroys the object, a second release
 *     is refused;
 *   - no broken rule of the driver documents, and nothing left alive at the end.
 * Multicast is off (the test needs no multicast object). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <sys/types.h>
#include "comm_internal.h"
#include "reg_cache.h"
#include "contract/team_common.h"

static const mcoll_driver *cu;
static int rank, size;
static mcoll_comm *mc;

static void report(const char *name, int ok)
{
    ok = all_ranks(ok);
    if (rank == 0) printf("%s %s\n", ok ? "ok  " : "FAIL", name);
    CHECK(ok);
}

static int same_result(mcoll_result rc, mcoll_result expected)
{
    return all_ranks(rc == expected);
}

/* Fill n bytes with a pattern naming the rank and a round; check one. */
static void fill(void *p, size_t n, int owner, int round)
{
    for (size_t i = 0; i < n; i++) ((unsigned char *)p)[i] = (unsigned char)(owner * 31 + round * 7 + i % 251);
}

static int holds(const void *p, size_t n, int owner, int round)
{
    for (size_t i = 0; i < n; i++)
        if (((const unsigned char *)p)[i] != (unsigned char)(owner * 31 + round * 7 + i % 251)) return 0;
    return 1;
}

/* Every rank wrote its part of [ptr, ptr + n) with `round`; each reads every peer's through the
 * window that holds it. */
static int peers_read_back(const void *ptr, size_t n, int round)
{
    MPI_Barrier(MPI_COMM_WORLD);
    const mcoll_window *w = mcoll_window_find(&mc->windows, ptr, n);
    int ok = w != NULL;
    for (int q = 0; ok && q < size; q++) ok = holds(w->peer[q] + ((const char *)ptr - w->base), n, q, round);
    MPI_Barrier(MPI_COMM_WORLD);
    return ok;
}

static void test_alloc(void)
{
    void *p = NULL, *q = NULL;
    int live = mcoll_contract_live_objects();
    mcoll_result rc = mcoll_mem_alloc(mc, 3 * TEAM_MIB, &p);
    report("alloc: 3 MiB on every rank", same_result(rc, MCOLL_SUCCESS) && p);
    fill(p, 3 * TEAM_MIB, rank, 1);
    report("alloc: every rank's part seen by every rank", peers_read_back(p, 3 * TEAM_MIB, 1));
    report("alloc: buffers in it are found, buffers past it are not",
           mcoll_window_find(&mc->windows, (char *)p + 4096, TEAM_MIB) &&
               !mcoll_window_find(&mc->windows, (char *)p + 4096, 4 * TEAM_MIB));

    rc = mcoll_mem_alloc(mc, (size_t)(rank + 1) * TEAM_MIB, &q);
    report("alloc: sizes that differ between ranks refused on every rank",
           same_result(rc, MCOLL_ERR_INVALID_ARG) && !q);
    int local;
    rc = mcoll_mem_free(mc, rank == size - 1 ? (void *)&local : p);
    report("free: a pointer that is not from mcoll_mem_alloc refused on every rank",
           same_result(rc, MCOLL_ERR_INVALID_ARG));
    report("free", same_result(mcoll_mem_free(mc, p), MCOLL_SUCCESS));
    report("free: a second time refused", same_result(mcoll_mem_free(mc, p), MCOLL_ERR_INVALID_ARG));
    report("alloc/free: nothing left", mcoll_contract_live_objects() == live);
}

static int opens_since(long from) { return log_count("cuIpcOpenMemHandle", from, -1); }
static int closes_since(long from) { return log_count("cuIpcCloseMemHandle", from, -1); }

static void test_register_ipc(void)
{
    const size_t n = TEAM_MIB;
    CUdeviceptr d = 0, d2 = 0;
    mcoll_mem_handle h = 0, h2 = 0;
    long at = log_end();

    CHECK_OK(cu->cuMemAlloc(&d, n));
    fill((void *)(uintptr_t)(d + 4096), n - 8192, rank, 2);
    mcoll_result rc = mcoll_mem_register(mc, (void *)(uintptr_t)(d + 4096), n - 8192, &h);
    report("register cudaMalloc memory (IPC)", same_result(rc, MCOLL_SUCCESS) && h != 0);
    report("register: one IPC open per peer", opens_since(at) == size - 1);
    report("register: peers read what each rank wrote", peers_read_back((void *)(uintptr_t)(d + 4096), n - 8192, 2));
    report("deregister", same_result(mcoll_mem_deregister(mc, h), MCOLL_SUCCESS));
    report("deregister: a second time refused", same_result(mcoll_mem_deregister(mc, h), MCOLL_ERR_INVALID_ARG));

    at = log_end();
    rc = mcoll_mem_register(mc, (void *)(uintptr_t)(d + 4096), n - 8192, &h);
    report("register again: the cache maps nothing new", same_result(rc, MCOLL_SUCCESS) && opens_since(at) == 0);
    report("register again: same data", peers_read_back((void *)(uintptr_t)(d + 4096), n - 8192, 2));
    report("deregister again", same_result(mcoll_mem_deregister(mc, h), MCOLL_SUCCESS));

    /* Free and allocate again: the address usually comes back, the buffer id never does. */
    CHECK_OK(cu->cuMemFree(d));
    CHECK_OK(cu->cuMemAlloc(&d2, n));
    int reused = all_ranks(d2 == d);
    fill((void *)(uintptr_t)d2, n, rank, 3);
    at = log_end();
    rc = mcoll_mem_register(mc, (void *)(uintptr_t)d2, n, &h2);
    report("free + allocate again: registered", same_result(rc, MCOLL_SUCCESS));
    report("free + allocate again: mapped afresh (new buffer id)", opens_since(at) == size - 1);
    if (reused)
        report("free + allocate again at the same address: the stale mapping unmapped", closes_since(at) == size - 1);
    report("free + allocate again: peers read the new data, never the old",
           peers_read_back((void *)(uintptr_t)d2, n, 3));
    report("deregister the new buffer", same_result(mcoll_mem_deregister(mc, h2), MCOLL_SUCCESS));
    CHECK_OK(cu->cuMemFree(d2));
}

/* MCOLL_REG_CACHE=CACHE_LIMIT unused peer mappings at most; in-use ones are all kept. */
#define CACHE_LIMIT 14

static void test_cache_bound(void)
{
    enum { N = 5 };
    CUdeviceptr d[N];
    mcoll_mem_handle h[N];
    int ok = 1, entries, in_use;
    long mapped, at;
    mcoll_reg_cache_flush(); /* start empty: no stale entry to be evicted on the way */
    at = log_end();
    for (int i = 0; i < N; i++) {
        CHECK_OK(cu->cuMemAlloc(&d[i], TEAM_MIB));
        fill((void *)(uintptr_t)d[i], TEAM_MIB, rank, 10 + i);
        ok &= mcoll_mem_register(mc, (void *)(uintptr_t)d[i], TEAM_MIB, &h[i]) == MCOLL_SUCCESS;
    }
    mcoll_reg_cache_stats(&entries, &in_use, &mapped);
    report("cache: every registration in use stays mapped, beyond the bound too", ok && in_use == N * (size - 1));
    for (int i = 0; i < N; i++) ok &= peers_read_back((void *)(uintptr_t)d[i], TEAM_MIB, 10 + i);
    report("cache: each of them reads its own data", ok);
    for (int i = 0; i < N; i++) ok &= mcoll_mem_deregister(mc, h[i]) == MCOLL_SUCCESS;
    mcoll_reg_cache_stats(&entries, &in_use, &mapped);
    const int total = N * (size - 1), kept = total < CACHE_LIMIT ? total : CACHE_LIMIT;
    report("cache: after deregistration the unused entries are bounded by MCOLL_REG_CACHE",
           ok && in_use == 0 && entries == kept && closes_since(at) == total - kept);
    for (int i = 0; i < N; i++) CHECK_OK(cu->cuMemFree(d[i]));
}

static void test_refusals(void)
{
    static char host[1 << 16];
    CUdeviceptr d = 0;
    mcoll_mem_handle h = 0;
    CHECK_OK(cu->cuMemAlloc(&d, TEAM_MIB));
    mcoll_result rc = mcoll_mem_register(mc, rank == 0 ? (void *)host : (void *)(uintptr_t)d, sizeof host, &h);
    report("refused on every rank: host memory on rank 0", same_result(rc, MCOLL_ERR_INVALID_ARG) && h == 0);
    rc = mcoll_mem_register(mc, (void *)(uintptr_t)d, 2 * TEAM_MIB, &h);
    report("refused: a range past its cudaMalloc allocation", same_result(rc, MCOLL_ERR_INVALID_ARG));
    rc = mcoll_mem_register(mc, NULL, TEAM_MIB, &h);
    report("refused: NULL", same_result(rc, MCOLL_ERR_INVALID_ARG));
    report("deregister: a handle never given refused",
           same_result(mcoll_mem_deregister(mc, 12345), MCOLL_ERR_INVALID_ARG));
    CHECK_OK(cu->cuMemFree(d));
}

/* Two cuMemCreate allocations mapped end to end in one reservation. */
typedef struct {
    CUmemGenericAllocationHandle handle[2];
    CUdeviceptr base;
    size_t gran;
} vmm_pair;

/* cuMemCreate properties on this rank's device, exportable as `type`. */
static CUmemAllocationProp vmm_prop(CUmemAllocationHandleType type)
{
    CUmemAllocationProp prop;
    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = rank;
    prop.requestedHandleTypes = type;
    return prop;
}

static void vmm_make(vmm_pair *v, CUmemAllocationHandleType type)
{
    CUmemAllocationProp prop = vmm_prop(type);
    CHECK_OK(cu->cuMemGetAllocationGranularity(&v->gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    CHECK_OK(cu->cuMemAddressReserve(&v->base, 2 * v->gran, 0, 0, 0));
    for (int i = 0; i < 2; i++) {
        CUmemAccessDesc access = {{CU_MEM_LOCATION_TYPE_DEVICE, rank}, CU_MEM_ACCESS_FLAGS_PROT_READWRITE};
        CHECK_OK(cu->cuMemCreate(&v->handle[i], v->gran, &prop, 0));
        CHECK_OK(cu->cuMemMap(v->base + i * v->gran, v->gran, 0, v->handle[i], 0));
        CHECK_OK(cu->cuMemSetAccess(v->base + i * v->gran, v->gran, &access, 1));
    }
}

static void vmm_free(vmm_pair *v)
{
    for (int i = 0; i < 2; i++) {
        CHECK_OK(cu->cuMemUnmap(v->base + i * v->gran, v->gran));
        CHECK_OK(cu->cuMemRelease(v->handle[i]));
    }
    CHECK_OK(cu->cuMemAddressFree(v->base, 2 * v->gran));
}

static void test_register_vmm(void)
{
    vmm_pair v;
    mcoll_mem_handle h = 0;
    mcoll_comm_info_t info;
    CHECK(mcoll_comm_info(mc, &info) == MCOLL_SUCCESS);
    /* The memory must be exportable as the team exports its own. */
    vmm_make(&v, strcmp(info.handle_type, "fabric") == 0 ? CU_MEM_HANDLE_TYPE_FABRIC
                                                         : CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
    char *second = (char *)(uintptr_t)(v.base + v.gran);
    fill(second + 512, 65536, rank, 4);
    long at = log_end();
    mcoll_result rc = mcoll_mem_register(mc, second + 512, 65536, &h);
    report("register cuMemCreate memory (handle exchange)", same_result(rc, MCOLL_SUCCESS) &&
           log_count("cuMemRetainAllocationHandle", at, -1) == 1 && log_count("cuIpcGetMemHandle", at, -1) == 0);
    report("register VMM: peers read what each rank wrote", peers_read_back(second + 512, 65536, 4));
    report("deregister VMM", same_result(mcoll_mem_deregister(mc, h), MCOLL_SUCCESS));
    rc = mcoll_mem_register(mc, (char *)(uintptr_t)v.base + v.gran - 4096, 8192, &h);
    report("refused: a range across two cuMemCreate allocations", same_result(rc, MCOLL_ERR_INVALID_ARG));
    vmm_free(&v);

    vmm_make(&v, CU_MEM_HANDLE_TYPE_NONE);
    rc = mcoll_mem_register(mc, (void *)(uintptr_t)v.base, 4096, &h);
    report("refused: cuMemCreate memory without a shareable handle type", same_result(rc, MCOLL_ERR_UNSUPPORTED));
    vmm_free(&v);
}

/* Rank 0 exports cuMemCreate memory as an fd; rank 1 opens that fd through /proc and imports it. */
static void test_import_external(void)
{
    CUmemGenericAllocationHandle handle = 0;
    CUdeviceptr va = 0;
    size_t gran = 0;
    int owner[2] = {-1, -1};
    CUmemAllocationProp prop = vmm_prop(CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
    CHECK_OK(cu->cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    if (rank == 0) {
        CUmemAccessDesc access = {{CU_MEM_LOCATION_TYPE_DEVICE, 0}, CU_MEM_ACCESS_FLAGS_PROT_READWRITE};
        CHECK_OK(cu->cuMemCreate(&handle, 2 * gran, &prop, 0));
        CHECK_OK(cu->cuMemAddressReserve(&va, 2 * gran, 0, 0, 0));
        CHECK_OK(cu->cuMemMap(va, 2 * gran, 0, handle, 0));
        CHECK_OK(cu->cuMemSetAccess(va, 2 * gran, &access, 1));
        fill((void *)(uintptr_t)(va + gran), gran, 0, 5);
        CHECK_OK(cu->cuMemExportToShareableHandle(&owner[1], handle, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
        owner[0] = (int)getpid();
    }
    MPI_Bcast(owner, 2, MPI_INT, 0, MPI_COMM_WORLD);
    const int failures_before = check_failures;
    if (rank == 1) {
        char path[64];
        void *p = NULL;
        snprintf(path, sizeof path, "/proc/%d/fd/%d", owner[0], owner[1]);
        int fd = open(path, O_RDWR | O_CLOEXEC);
        CHECK(fd >= 0);
        int live = mcoll_contract_live_objects();
        /* A misaligned offset breaks the exporter's rule: the driver's refusal (and the model's
         * record of the broken rule, the one this test expects) becomes a clear result. */
        CHECK(mcoll_mem_import_external(fd, 2 * gran, 4096, gran, &p) == MCOLL_ERR_INVALID_ARG && !p);
        CHECK(mcoll_contract_violations_matching("offset is not aligned") == 1);
        CHECK(mcoll_mem_import_external(fd, 2 * gran, gran, 2 * gran, &p) == MCOLL_ERR_INVALID_ARG);
        mcoll_contract_fail("cuExternalMemoryGetMappedBuffer", 1, CUDA_ERROR_INVALID_HANDLE);
        CHECK(mcoll_mem_import_external(fd, 2 * gran, gran, gran, &p) == MCOLL_ERR_INVALID_ARG);
        CHECK(mcoll_contract_live_objects() == live); /* the object was destroyed again */
        long at = log_end();
        /* The caller's fd survives every refusal: the same one imports now. */
        CHECK(mcoll_mem_import_external(fd, 2 * gran, gran, gran, &p) == MCOLL_SUCCESS && p);
        CHECK(log_count("cuExternalMemoryGetMappedBuffer", at, -1) == 1 &&
              log_arg(log_find("cuExternalMemoryGetMappedBuffer", at), "flags", 9) == 0);
        CHECK(p && holds(p, gran, 0, 5));
        at = log_end();
        CHECK(mcoll_mem_release_external(p) == MCOLL_SUCCESS);
        long freed = log_find("cuMemFree", at), destroyed = log_find("cuDestroyExternalMemory", at);
        CHECK(freed >= 0 && destroyed > freed);
        CHECK(mcoll_mem_release_external(p) == MCOLL_ERR_INVALID_ARG);
        CHECK(mcoll_contract_live_objects() == live);
        close(fd);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        close(owner[1]);
        CHECK_OK(cu->cuMemUnmap(va, 2 * gran));
        CHECK_OK(cu->cuMemRelease(handle));
        CHECK_OK(cu->cuMemAddressFree(va, 2 * gran));
    }
    report("import external memory from another process", check_failures == failures_before);
}

int main(int argc, char **argv)
{
    int code;
    mcoll_config config;
    CUcontext context = NULL;
    setenv("MCOLL_REG_CACHE", "14", 1); /* CACHE_LIMIT */
    if ((code = team_test_start(&argc, &argv, "mpi_memory")) != 0) return code;
    rank = world_rank;
    size = world_size;
    cu = mcoll_contract_driver();
    mcoll_contract_set_quiet(1); /* the one provoked violation is counted, not printed */
    CHECK_OK(cu->cuDevicePrimaryCtxRetain(&context, rank));
    CHECK_OK(cu->cuCtxSetCurrent(context));
    int live = mcoll_contract_live_objects();
    mcoll_config_init(&config);
    config.nvls = MCOLL_OFF;
    CHECK(mcoll_comm_create(MPI_COMM_WORLD, &config, &mc) == MCOLL_SUCCESS);
    if (mc) {
        test_alloc();
        test_register_ipc();
        test_cache_bound();
        test_refusals();
        test_register_vmm();
        test_import_external();
        CHECK(mcoll_comm_destroy(mc) == MCOLL_SUCCESS);
    }
    report("no broken rule of the driver documents but the one provoked",
           mcoll_contract_violations() == (rank == 1 ? 1 : 0));
    report("nothing left alive", mcoll_contract_live_objects() == live);
    CHECK_OK(cu->cuCtxSetCurrent(NULL));
    CHECK_OK(cu->cuDevicePrimaryCtxRelease(rank));
    MPI_Finalize();
    return check_exit("mpi_memory");
}
