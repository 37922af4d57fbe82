/* The memory API on GPUs (mcoll_mem_*), each collective checked against the host reference:
 *   mem/alloc/...      every buffer carved from mcoll_mem_alloc memory: allreduce, reduce,
 *                      bcast, reduce_scatter and allgather run zero-copy (mcoll_comm_info
 *                      counts them, per collective: .../<collective>/zero-copy-used): reduce
 *                      over the whole datatype x op matrix, every root for five pairs, in place
 *                      at root, unaligned, recvbuf NULL off the root; the others (the block
 *                      collectives, scans), and unaligned allreduce and reduce_scatter, take
 *                      the staged path;
 *   mem/cudamalloc/... carved from one registered cudaMalloc buffer (CUDA IPC): the five
 *                      zero-copy collectives;
 *   mem/vmm/...        the same on registered cuMemCreate memory (the team's handle exchange);
 *   mem/cache/...      plain buffers, each cudaMalloc'ed, registered, used, deregistered and
 *                      freed (so the next one often comes back at the same address); reduce
 *                      there has root's recvbuf in another window than the inputs (root then
 *                      reduces every slice itself; out of place, every root, odd counts); and a
 *                      buffer freed and allocated again at the same address between two calls,
 *                      whose second call must see the new data, never the old mapping;
 *   mem/external/...   the five collectives on memory imported with mcoll_mem_import_external
 *                      (cuMemCreate memory exported as a POSIX fd; staged: not a window); and
 *                      rank 0's export imported by rank 1 (when they share a GPU);
 *   mem/refusals       host memory, a range crossing two allocations, deregistering, freeing
 *                      and releasing twice.
 * Buffers are carved at the same offsets on every rank (the symmetric rule of mcoll.h).
 *   mpirun -np N gpu_memory [-q] [-f FILTER] [-s SEED]          (NCCL_NVLS_ENABLE=0 required) */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <mpi.h>
#include "common/api.h"
#include "common/devbuf.h"
#include "common/harness.h"
#include "common/prep.h"
#include "common/report.h"
#include "common/setup.h"
#include "common/suite.h"
#include "common/types.h"
#include "mcoll.h"

#define POOL_BYTES ((size_t)160 << 20)

static mcoll_comm *mc;
static cudaStream_t stream;
static int rank, size;

static const char *code_name(mcoll_result rc) { return mcoll_strerror(rc); }

/* ---------------------------------------------------------------------------------------------
 * A bump allocator over one region, reset when its last buffer is freed: every rank carves the
 * same sizes in the same order, so every buffer sits at the same offset on every rank.
 * ------------------------------------------------------------------------------------------- */
static struct {
    char *base;
    size_t size, used;
    int live;
} pool;

static void *pool_get(size_t bytes)
{
    size_t at = pool.used;
    if (bytes > pool.size - at) {
        case_fail("pool of %zu bytes has no room for %zu more", pool.size, bytes);
        return NULL;
    }
    pool.used = at + ((bytes + 255) & ~(size_t)255);
    pool.live++;
    return pool.base + at;
}

static void pool_put(void *p)
{
    (void)p;
    if (--pool.live == 0) pool.used = 0;
}

static const devbuf_source pool_source = {pool_get, pool_put};

static void pool_use(void *base, size_t bytes)
{
    pool.base = base;
    pool.size = bytes;
    pool.used = 0;
    pool.live = 0;
    devbuf_use(base ? &pool_source : NULL);
}

/* ---------------------------------------------------------------------------------------------
 * Each buffer registered for itself: cudaMalloc + mcoll_mem_register, deregister + cudaFree.
 * ------------------------------------------------------------------------------------------- */
#define MAX_CACHED 8
static struct {
    void *ptr;
    mcoll_mem_handle handle;
} cached[MAX_CACHED];

static void *cache_get(size_t bytes)
{
    void *p = NULL;
    mcoll_result rc;
    int i;
    for (i = 0; i < MAX_CACHED && cached[i].ptr; i++) {}
    if (i == MAX_CACHED || cuda_check(cudaMalloc(&p, bytes), "cudaMalloc")) return NULL;
    rc = mcoll_mem_register(mc, p, bytes, &cached[i].handle);
    if (rc != MCOLL_SUCCESS) {
        case_fail("mcoll_mem_register returned %s", code_name(rc));
        cudaFree(p);
        return NULL;
    }
    cached[i].ptr = p;
    return p;
}

static void cache_put(void *p)
{
    for (int i = 0; i < MAX_CACHED; i++)
        if (cached[i].ptr == p) {
            mcoll_result rc = mcoll_mem_deregister(mc, cached[i].handle);
            if (rc != MCOLL_SUCCESS) case_fail("mcoll_mem_deregister returned %s", code_name(rc));
            cudaFree(p);
            cached[i].ptr = NULL;
        }
}

static const devbuf_source cache_source = {cache_get, cache_put};

/* ---------------------------------------------------------------------------------------------
 * The driver's VMM calls, through the runtime (the program does not link libcuda).
 * ------------------------------------------------------------------------------------------- */
static struct {
    CUresult (*create)(CUmemGenericAllocationHandle *, size_t, const CUmemAllocationProp *, unsigned long long);
    CUresult (*granularity)(size_t *, const CUmemAllocationProp *, CUmemAllocationGranularity_flags);
    CUresult (*reserve)(CUdeviceptr *, size_t, size_t, CUdeviceptr, unsigned long long);
    CUresult (*map)(CUdeviceptr, size_t, size_t, CUmemGenericAllocationHandle, unsigned long long);
    CUresult (*access)(CUdeviceptr, size_t, const CUmemAccessDesc *, size_t);
    CUresult (*export_handle)(void *, CUmemGenericAllocationHandle, CUmemAllocationHandleType, unsigned long long);
    CUresult (*unmap)(CUdeviceptr, size_t);
    CUresult (*release)(CUmemGenericAllocationHandle);
    CUresult (*unreserve)(CUdeviceptr, size_t);
} vmm;

static int vmm_load(void)
{
    struct {
        const char *name;
        void **fn;
    } entries[] = {{"cuMemCreate", (void **)&vmm.create},
                   {"cuMemGetAllocationGranularity", (void **)&vmm.granularity},
                   {"cuMemAddressReserve", (void **)&vmm.reserve},
                   {"cuMemMap", (void **)&vmm.map},
                   {"cuMemSetAccess", (void **)&vmm.access},
                   {"cuMemExportToShareableHandle", (void **)&vmm.export_handle},
                   {"cuMemUnmap", (void **)&vmm.unmap},
                   {"cuMemRelease", (void **)&vmm.release},
                   {"cuMemAddressFree", (void **)&vmm.unreserve}};
    for (size_t i = 0; i < sizeof entries / sizeof entries[0]; i++) {
        enum cudaDriverEntryPointQueryResult status;
        if (cudaGetDriverEntryPointByVersion(entries[i].name, entries[i].fn, 12000, cudaEnableDefault, &status) !=
                cudaSuccess ||
            status != cudaDriverEntryPointSuccess) {
            case_fail("driver entry point %s not found", entries[i].name);
            return -1;
        }
    }
    return 0;
}

/* cuMemCreate memory of this rank's GPU, exportable as `type`, mapped read-write. */
typedef struct {
    CUmemGenericAllocationHandle handle;
    CUdeviceptr va;
    size_t size;
} vmm_buffer;

static int vmm_alloc(vmm_buffer *b, size_t bytes, CUmemAllocationHandleType type)
{
    int device = 0;
    size_t gran = 0;
    CUmemAllocationProp prop;
    CUmemAccessDesc access;
    memset(b, 0, sizeof *b);
    memset(&prop, 0, sizeof prop);
    memset(&access, 0, sizeof access);
    cudaGetDevice(&device);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = device;
    prop.requestedHandleTypes = type;
    access.location = prop.location;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    if (vmm.granularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED) != CUDA_SUCCESS || !gran) goto fail;
    b->size = (bytes + gran - 1) / gran * gran;
    if (vmm.create(&b->handle, b->size, &prop, 0) != CUDA_SUCCESS) goto fail;
    if (vmm.reserve(&b->va, b->size, gran, 0, 0) != CUDA_SUCCESS) goto fail;
    if (vmm.map(b->va, b->size, 0, b->handle, 0) != CUDA_SUCCESS) goto fail;
    if (vmm.access(b->va, b->size, &access, 1) != CUDA_SUCCESS) goto fail;
    return 0;
fail:
    case_fail("cuMemCreate memory of %zu bytes could not be made", bytes);
    return -1;
}

static void vmm_free(vmm_buffer *b)
{
    if (b->va) {
        vmm.unmap(b->va, b->size);
        vmm.unreserve(b->va, b->size);
    }
    if (b->handle) vmm.release(b->handle);
    memset(b, 0, sizeof *b);
}

/* ---------------------------------------------------------------------------------------------
 * The suites
 * ------------------------------------------------------------------------------------------- */
static unsigned long long zero_copy_calls(void)
{
    mcoll_comm_info_t info;
    return mcoll_comm_info(mc, &info) == MCOLL_SUCCESS ? info.zero_copy_calls : 0;
}

/* One collective's suite, then whether some of its calls ran zero-copy (or, on memory that is
 * not a window, none did). */
static void run_counted(coll_api *api, const char *what, void (*suite)(coll_api *), int expect_zero_copy)
{
    unsigned long long before = zero_copy_calls();
    suite(api);
    if (setup_begin("%s/%s/zero-copy-used", api->name, what)) {
        unsigned long long ran = zero_copy_calls() - before;
        if (expect_zero_copy && !ran) case_fail("no call ran zero-copy");
        if (!expect_zero_copy && ran) case_fail("%llu calls ran zero-copy on memory that is not a window", ran);
        case_end();
    }
}

/* Reduce with root's recvbuf in another window than the inputs (each buffer registered for
 * itself): root reduces every slice itself, loading every rank's input. Out of place with a
 * recvbuf on every rank, so that every rank registers the same buffers. */
static void suite_reduce_apart(coll_api *api)
{
    static const struct { type_id type; op_id op; } pairs[] = {
        {TT_FLOAT, OP_SUM}, {TT_BFLOAT16, OP_SUM}, {TT_INT8, OP_PROD}, {TT_DOUBLE_INT, OP_MAXLOC}};
    static const size_t counts[] = {1, 7, 1023, ((size_t)1 << 20) + 3};
    for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; k++)
        for (int root = 0; root < api->size; root++)
            for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
                coll_case c;
                memset(&c, 0, sizeof c);
                c.kind = COLL_REDUCE;
                c.type = type_get(pairs[k].type);
                c.op = op_get(pairs[k].op);
                c.count = counts[i];
                c.root = root;
                c.misalign = (int)i & 1;
                c.mem = MEM_DEVICE;
                case_run(api, &c);
            }
}

/* The five zero-copy collectives. Reduce's whole suite needs one pool (symmetric_reduce): its
 * in-place and NULL-recvbuf cases carve fewer buffers on some ranks, which buffers registered
 * one by one (collective calls) cannot follow; there reduce_apart runs instead. */
static void run_zero_copy_suites(coll_api *api, int expect_zero_copy, int symmetric_reduce)
{
    run_counted(api, "allreduce", suite_allreduce, expect_zero_copy);
    run_counted(api, "reduce", symmetric_reduce ? suite_reduce : suite_reduce_apart, expect_zero_copy);
    run_counted(api, "bcast", suite_bcast, expect_zero_copy);
    run_counted(api, "reduce_scatter", suite_reduce_scatter, expect_zero_copy);
    run_counted(api, "allgather", suite_allgather, expect_zero_copy);
}

static void run_all_suites(coll_api *api, int expect_zero_copy)
{
    run_zero_copy_suites(api, expect_zero_copy, 1);
    suite_blocks(api);
    suite_scan(api);
}

static void on_alloc(void)
{
    coll_api api;
    void *p = NULL;
    if (setup_begin("mem/alloc/setup")) {
        mcoll_result rc = mcoll_mem_alloc(mc, POOL_BYTES, &p);
        if (rc != MCOLL_SUCCESS) case_fail("mcoll_mem_alloc returned %s", code_name(rc));
        if (!case_end()) return;
    }
    pool_use(p, POOL_BYTES);
    api_native(&api, "mem/alloc", MPI_COMM_WORLD, mc, stream);
    run_all_suites(&api, 1);
    pool_use(NULL, 0);
    if (setup_begin("mem/alloc/free")) {
        mcoll_result rc = mcoll_mem_free(mc, p);
        if (rc != MCOLL_SUCCESS) case_fail("mcoll_mem_free returned %s", code_name(rc));
        case_end();
    }
}

static void on_registered(const char *name, void *p, size_t bytes)
{
    coll_api api;
    char label[64];
    mcoll_mem_handle h = 0;
    if (setup_begin("%s/register", name)) {
        mcoll_result rc = mcoll_mem_register(mc, p, bytes, &h);
        if (rc != MCOLL_SUCCESS) case_fail("mcoll_mem_register returned %s", code_name(rc));
        if (!case_end()) return;
    }
    pool_use(p, bytes);
    snprintf(label, sizeof label, "%s", name);
    api_native(&api, label, MPI_COMM_WORLD, mc, stream);
    run_zero_copy_suites(&api, 1, 1);
    pool_use(NULL, 0);
    if (setup_begin("%s/deregister", name)) {
        mcoll_result rc = mcoll_mem_deregister(mc, h);
        if (rc != MCOLL_SUCCESS) case_fail("mcoll_mem_deregister returned %s", code_name(rc));
        case_end();
    }
}

static void on_cudamalloc(void)
{
    void *p = NULL;
    if (setup_begin("mem/cudamalloc/setup")) {
        cuda_check(cudaMalloc(&p, POOL_BYTES), "cudaMalloc");
        if (!case_end()) return;
    }
    on_registered("mem/cudamalloc", p, POOL_BYTES);
    cudaFree(p);
}

static void on_vmm(void)
{
    vmm_buffer b;
    mcoll_comm_info_t info;
    memset(&b, 0, sizeof b);
    if (setup_begin("mem/vmm/setup")) {
        /* Exportable as the communicator shares its own memory. */
        if (mcoll_comm_info(mc, &info) == MCOLL_SUCCESS && !vmm_load())
            vmm_alloc(&b, POOL_BYTES,
                      strcmp(info.handle_type, "fabric") == 0 ? CU_MEM_HANDLE_TYPE_FABRIC
                                                              : CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
        if (!case_end()) {
            vmm_free(&b);
            return;
        }
    }
    on_registered("mem/vmm", (void *)(uintptr_t)b.va, POOL_BYTES);
    vmm_free(&b);
}

/* Fill n floats with rank- and round-dependent values; check the allreduce sum of them. */
static int sum_round(float *dev, size_t n, int round)
{
    float *host = malloc(n * sizeof *host);
    int ok = host != NULL;
    for (size_t i = 0; ok && i < n; i++) host[i] = (float)(rank + 1) * (float)(round + 1) + (float)(i % 7);
    if (ok) ok = !cuda_check(cudaMemcpy(dev, host, n * sizeof *host, cudaMemcpyHostToDevice), "cudaMemcpy");
    if (ok) ok = mcoll_allreduce(MPI_IN_PLACE, dev, n, MPI_FLOAT, MPI_SUM, mc, stream) == MCOLL_SUCCESS;
    if (ok) ok = !cuda_check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    if (ok) ok = !cuda_check(cudaMemcpy(host, dev, n * sizeof *host, cudaMemcpyDeviceToHost), "cudaMemcpy");
    const float ranks = (float)size * (float)(size + 1) / 2;
    for (size_t i = 0; ok && i < n; i++)
        if (host[i] != ranks * (float)(round + 1) + (float)size * (float)(i % 7)) {
            case_fail("element %zu is %g after round %d", i, host[i], round);
            ok = 0;
        }
    free(host);
    return ok;
}

static void on_cache(void)
{
    coll_api api;
    const size_t n = (size_t)1 << 20;
    devbuf_use(&cache_source);
    api_native(&api, "mem/cache", MPI_COMM_WORLD, mc, stream);
    run_zero_copy_suites(&api, 1, 0);
    devbuf_use(NULL);

    if (case_begin("mem/cache/free-and-reallocate")) {
        void *a = NULL, *b = NULL;
        int reused;
        for (int round = 0; round < 4 && !case_failed(); round++) {
            mcoll_mem_handle h = 0;
            if (cuda_check(cudaMalloc(&b, n * sizeof(float)), "cudaMalloc")) break;
            reused = b == a;
            if (mcoll_mem_register(mc, b, n * sizeof(float), &h) != MCOLL_SUCCESS) case_fail("register failed");
            else {
                sum_round(b, n, round);
                if (mcoll_mem_deregister(mc, h) != MCOLL_SUCCESS) case_fail("deregister failed");
            }
            cudaFree(b);
            a = b;
            if (round && rank == 0) say("mem/cache/free-and-reallocate: round %d at %s address\n", round,
                                        reused ? "the same" : "another");
        }
        case_end();
    }
}

/* Rank 0's cuMemCreate memory, exported as a POSIX fd and imported by rank 1 (same GPU only:
 * external memory is imported by the device that has it). */
/* A duplicate of descriptor `fd` of process `pid`, the same open file (pidfd_getfd; opening
 * /proc/pid/fd/N would open the driver's device node afresh, not the exported object), or -1. */
static int fd_of_process(int pid, int fd)
{
#if defined(SYS_pidfd_open) && defined(SYS_pidfd_getfd)
    int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
    if (pidfd < 0) return -1;
    int copy = (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0);
    close(pidfd);
    return copy;
#else
    (void)pid;
    (void)fd;
    return -1;
#endif
}

static void import_across_processes(void)
{
    vmm_buffer b;
    int info[3] = {0, -1, 0};
    char bus[2][32];
    memset(&b, 0, sizeof b);
    if (!case_begin("mem/external/across-processes")) return;
    int device = 0;
    cudaGetDevice(&device);
    cudaDeviceGetPCIBusId(bus[0], sizeof bus[0], device);
    const int partner = (rank ^ 1) < size ? (rank ^ 1) : rank;
    MPI_Sendrecv(bus[0], sizeof bus[0], MPI_CHAR, partner, 0, bus[1], sizeof bus[1], MPI_CHAR, partner, 0,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    int same_gpu = strcmp(bus[0], bus[1]) == 0;
    if (!case_agree(same_gpu)) {
        case_skip("ranks 0 and 1 are on different GPUs");
        case_end();
        return;
    }
    const size_t n = (size_t)1 << 20;
    if (rank == 0 && !vmm_load() && !vmm_alloc(&b, n, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)) {
        unsigned char *host = malloc(n);
        for (size_t i = 0; host && i < n; i++) host[i] = (unsigned char)(i * 7 + 3);
        if (host) cuda_check(cudaMemcpy((void *)(uintptr_t)b.va, host, n, cudaMemcpyHostToDevice), "cudaMemcpy");
        free(host);
        if (vmm.export_handle(&info[1], b.handle, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0) != CUDA_SUCCESS)
            case_fail("cuMemExportToShareableHandle failed");
        info[0] = (int)getpid();
        info[2] = (int)b.size;
    }
    MPI_Bcast(info, 3, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 1 && info[1] >= 0) {
        void *p = NULL;
        int fd = fd_of_process(info[0], info[1]);
        mcoll_result rc = fd < 0 ? MCOLL_ERR_SYSTEM : mcoll_mem_import_external(fd, (size_t)info[2], 0, n, &p);
        if (fd < 0) case_skip("pidfd_getfd is not available here: rank 0's descriptor cannot be taken");
        else if (rc != MCOLL_SUCCESS) case_fail("mcoll_mem_import_external returned %s", code_name(rc));
        else {
            unsigned char *host = malloc(n);
            if (host && !cuda_check(cudaMemcpy(host, p, n, cudaMemcpyDeviceToHost), "cudaMemcpy"))
                for (size_t i = 0; i < n; i++)
                    if (host[i] != (unsigned char)(i * 7 + 3)) {
                        case_fail("byte %zu of the imported memory is %u", i, host[i]);
                        break;
                    }
            free(host);
            rc = mcoll_mem_release_external(p);
            if (rc != MCOLL_SUCCESS) case_fail("mcoll_mem_release_external returned %s", code_name(rc));
            if (mcoll_mem_release_external(p) != MCOLL_ERR_INVALID_ARG) case_fail("a second release was not refused");
        }
        if (fd >= 0) close(fd);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        if (info[1] >= 0) close(info[1]);
        vmm_free(&b);
    }
    case_end();
}

static void on_external(void)
{
    coll_api api;
    vmm_buffer b;
    int fd = -1;
    void *p = NULL;
    memset(&b, 0, sizeof b);
    if (setup_begin("mem/external/setup")) {
        if (!vmm_load() && !vmm_alloc(&b, POOL_BYTES, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)) {
            if (vmm.export_handle(&fd, b.handle, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0) != CUDA_SUCCESS)
                case_fail("cuMemExportToShareableHandle failed");
            else {
                mcoll_result rc = mcoll_mem_import_external(fd, b.size, 0, POOL_BYTES, &p);
                if (rc != MCOLL_SUCCESS) case_fail("mcoll_mem_import_external returned %s", code_name(rc));
            }
        }
        if (!case_end()) p = NULL;
    }
    if (p) {
        pool_use(p, POOL_BYTES);
        api_native(&api, "mem/external", MPI_COMM_WORLD, mc, stream);
        run_zero_copy_suites(&api, 0, 1); /* not a window: staged */
        pool_use(NULL, 0);
        if (setup_begin("mem/external/release")) {
            mcoll_result rc = mcoll_mem_release_external(p);
            if (rc != MCOLL_SUCCESS) case_fail("mcoll_mem_release_external returned %s", code_name(rc));
            case_end();
        }
    }
    if (fd >= 0) close(fd);
    vmm_free(&b);
    import_across_processes();
}

static void expect(mcoll_result rc, mcoll_result want, const char *what)
{
    if (rc != want) case_fail("%s returned %s, expected %s", what, code_name(rc), code_name(want));
}

static void on_refusals(void)
{
    static char host[1 << 16];
    void *d = NULL, *w = NULL;
    mcoll_mem_handle h = 0;
    if (!case_begin("mem/refusals")) return;
    if (!cuda_check(cudaMalloc(&d, 1 << 20), "cudaMalloc")) {
        expect(mcoll_mem_register(mc, host, sizeof host, &h), MCOLL_ERR_INVALID_ARG, "register of host memory");
        expect(mcoll_mem_register(mc, rank == 0 ? (void *)host : d, sizeof host, &h), MCOLL_ERR_INVALID_ARG,
               "register of host memory on rank 0 only");
        expect(mcoll_mem_register(mc, d, 2 << 20, &h), MCOLL_ERR_INVALID_ARG, "register past the allocation");
        expect(mcoll_mem_register(mc, d, 1 << 20, &h), MCOLL_SUCCESS, "register");
        expect(mcoll_mem_deregister(mc, h), MCOLL_SUCCESS, "deregister");
        expect(mcoll_mem_deregister(mc, h), MCOLL_ERR_INVALID_ARG, "a second deregister");
        cudaFree(d);
    }
    expect(mcoll_mem_alloc(mc, 1 << 20, &w), MCOLL_SUCCESS, "mcoll_mem_alloc");
    expect(mcoll_mem_free(mc, w), MCOLL_SUCCESS, "mcoll_mem_free");
    expect(mcoll_mem_free(mc, w), MCOLL_ERR_INVALID_ARG, "a second mcoll_mem_free");
    expect(mcoll_mem_alloc(mc, (size_t)(rank + 1) << 20, &w), MCOLL_ERR_INVALID_ARG, "alloc of sizes that differ");
    expect(mcoll_mem_release_external(host), MCOLL_ERR_INVALID_ARG, "release of memory never imported");
    case_end();
}

int main(int argc, char **argv)
{
    gpu_opts opts;
    int status = harness_start(&argc, &argv, "gpu_memory", "the memory API: windows, registration, imports", &opts);
    if (status >= 0) return status;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (setup_begin("mem/stream")) {
        cuda_check(cudaStreamCreate(&stream), "cudaStreamCreate");
        if (case_end()) mc = setup_comm("mem/setup", MPI_COMM_WORLD, NULL);
    }
    if (mc) {
        on_refusals();
        on_alloc();
        on_cudamalloc();
        on_vmm();
        on_cache();
        on_external();
        teardown_comm("mem/comm_destroy", mc);
    }
    if (stream) cudaStreamDestroy(stream);
    return harness_finish();
}
