/* Hierarchical calls with the domains' GPU engines on (MCOLL_HIER=auto, two simulated domains of
 * 2), on the contract driver with the kernel launchers replaced: the launches touch what a kernel
 * would (every rank's signal pad) and compute nothing. A smoke test of the engine's side, which
 * the other CPU tests (MPI inside the domains) never reach: blocking calls cut into chunks or
 * pieces, with their engine steps and reordering copies queued on the engine's stream, and their
 * nonblocking and persistent forms (MCOLL_HIER_NONBLOCKING=1), which replay the recorded steps
 * with their marks and waits, every event answering NOT_READY twice. Checked: every call
 * completes without error, each nonblocking call makes as many engine launches as its blocking
 * form, no rule of the driver is broken and nothing is left allocated. Not visible here: results,
 * and whether the engine's work is waited for before the MPI steps read it (the fake kernels
 * write nothing); the GPU suite's hier steps check those. The launchers are replaced at link
 * time (tests/build.mk: --wrap). */
#define _GNU_SOURCE
#include "contract/devmem.h"
#include "contract/hier_test.h"
#include "config.h"
#include "hier_internal.h"
#include "launch.h"

static long launches;

static int fake_launch(const mcoll_dev_team *team, void *stream)
{
    int i;
    launches++;
    for (i = 0; i < team->size; i++)
        if (mcoll_contract_kernel_access((CUstream)stream, (CUdeviceptr)(uintptr_t)team->peer_signal[i],
                                         MCOLL_SIGNAL_BYTES, 1) != CUDA_SUCCESS)
            CT_FAIL("launch on a team that is gone");
    return MCOLL_LAUNCH_OK;
}

int __wrap_mcoll_launch_allreduce(const mcoll_dev_team *team, mcoll_access access, const void *sendbuf, void *recvbuf,
                                  size_t count, mcoll_dtype dtype, mcoll_op op, void *stream)
{
    (void)access, (void)sendbuf, (void)recvbuf, (void)count, (void)dtype, (void)op;
    return fake_launch(team, stream);
}

int __wrap_mcoll_launch_reduce(const mcoll_dev_team *team, mcoll_access access, const void *sendbuf, void *recvbuf,
                               size_t count, mcoll_dtype dtype, mcoll_op op, int root, void *stream)
{
    (void)access, (void)sendbuf, (void)recvbuf, (void)count, (void)dtype, (void)op, (void)root;
    return fake_launch(team, stream);
}

int __wrap_mcoll_launch_bcast(const mcoll_dev_team *team, mcoll_access access, void *buf, size_t bytes, int root,
                              void *stream)
{
    (void)access, (void)buf, (void)bytes, (void)root;
    return fake_launch(team, stream);
}

int __wrap_mcoll_launch_reduce_scatter(const mcoll_dev_team *team, mcoll_access access, const void *sendbuf,
                                       void *recvbuf, size_t recvcount, mcoll_dtype dtype, mcoll_op op, void *stream)
{
    (void)access, (void)sendbuf, (void)recvbuf, (void)recvcount, (void)dtype, (void)op;
    return fake_launch(team, stream);
}

int __wrap_mcoll_launch_allgather(const mcoll_dev_team *team, mcoll_access access, const void *sendbuf, void *recvbuf,
                                  size_t sendbytes, void *stream)
{
    (void)access, (void)sendbuf, (void)recvbuf, (void)sendbytes;
    return fake_launch(team, stream);
}

int __wrap_mcoll_launch_gather(const mcoll_dev_team *team, mcoll_access access, const void *sendbuf, void *recvbuf,
                               size_t bytes, int root, void *stream)
{
    (void)access, (void)sendbuf, (void)recvbuf, (void)bytes, (void)root;
    return fake_launch(team, stream);
}

int __wrap_mcoll_launch_ll(const mcoll_dev_team *team, const mcoll_ll_call *call, void *stream)
{
    (void)call;
    return fake_launch(team, stream);
}

/* The reduction of the other domain's slice (two domains): counted apart, since nonblocking calls
 * reduce between domains through the MPI. */
static long local_reductions;

int __wrap_mcoll_launch_reduce_local(const void *in, void *inout, size_t count, mcoll_dtype dtype, mcoll_op op,
                                     void *stream)
{
    size_t bytes = mcoll_dtype_span(dtype, count);
    (void)op;
    local_reductions++;
    if (mcoll_contract_kernel_access((CUstream)stream, (CUdeviceptr)(uintptr_t)in, bytes, 0) != CUDA_SUCCESS ||
        mcoll_contract_kernel_access((CUstream)stream, (CUdeviceptr)(uintptr_t)inout, bytes, 1) != CUDA_SUCCESS)
        CT_FAIL("reduction of the other domain's slice on memory that is not there");
    return MCOLL_LAUNCH_OK;
}

typedef enum { ALLREDUCE, REDUCE, BCAST, ALLGATHER, REDUCE_SCATTER, CALLS } call_kind;
static const char *const names[CALLS] = {"allreduce", "reduce", "bcast", "allgather", "reduce_scatter_block"};

/* Call `kind` on n ints per rank (per block for allgather and reduce-scatter), blocking or as a
 * nonblocking start; its request in *req. */
static int call(call_kind kind, int *in, int *out, int n, int nonblocking, MPI_Request *req)
{
    MPI_Comm w = MPI_COMM_WORLD;
    switch (kind) {
    case ALLREDUCE:
        return nonblocking ? MPI_Iallreduce(in, out, n, MPI_INT, MPI_SUM, w, req)
                           : MPI_Allreduce(in, out, n, MPI_INT, MPI_SUM, w);
    case REDUCE:
        return nonblocking ? MPI_Ireduce(in, out, n, MPI_INT, MPI_SUM, 1, w, req)
                           : MPI_Reduce(in, out, n, MPI_INT, MPI_SUM, 1, w);
    case BCAST: return nonblocking ? MPI_Ibcast(out, n, MPI_INT, 2, w, req) : MPI_Bcast(out, n, MPI_INT, 2, w);
    case ALLGATHER:
        return nonblocking ? MPI_Iallgather(in, n, MPI_INT, out, n, MPI_INT, w, req)
                           : MPI_Allgather(in, n, MPI_INT, out, n, MPI_INT, w);
    default:
        return nonblocking ? MPI_Ireduce_scatter_block(in, out, n, MPI_INT, MPI_SUM, w, req)
                           : MPI_Reduce_scatter_block(in, out, n, MPI_INT, MPI_SUM, w);
    }
}

int main(int argc, char **argv)
{
    /* One chunk or piece, and several (64 KiB chunks; blocks of 4 ranks). */
    static const int counts[] = {333, 3 * 16384 + 5};
    int rank, size, k, c, *in, *out, nonblocking, in_pair, d, gpu_between, cuda_aware, gpu_reduce;
    long blocking_launches[CALLS][2], before;
    MPI_Request req;
    CUdevice dev;

    setenv("MCOLL_HIER", "auto", 1);
    setenv("MCOLL_HIER_NONBLOCKING", "1", 1);
    setenv("MCOLL_RESIDENT", "0", 1);
    setenv("MCOLL_CONTRACT_EVENT_DELAY", "2", 0);
    cuda_aware = hier_test_settings();
    /* On unless the run says; "rank0" turns it off on world rank 0 alone, which must turn it off
     * everywhere (the ranks agree when they learn the domains). */
    setenv("MCOLL_HIER_GPU_REDUCE", "1", 0);
    gpu_reduce = !strcmp(getenv("MCOLL_HIER_GPU_REDUCE"), "1");
    if (!strcmp(getenv("MCOLL_HIER_GPU_REDUCE"), "rank0"))
        setenv("MCOLL_HIER_GPU_REDUCE", getenv("OMPI_COMM_WORLD_RANK") && atoi(getenv("OMPI_COMM_WORLD_RANK")) == 0 ? "0" : "1", 1);
    setenv("MCOLL_ENGINE", "auto", 1);
    devmem_mpi_init(&argc, &argv, &rank, &size, &dev);
    (void)check_host; /* devmem.h's; every buffer here may reach the MPI */
    d = atoi(getenv("MCOLL_DOMAIN_SIZE"));
    in_pair = rank / d * d + 1 < size; /* a domain of one rank (the last, at odd sizes) has no engine */
    in = d_alloc(4 * (size_t)counts[1] * (size_t)size * sizeof(int));
    out = d_alloc(4 * (size_t)counts[1] * (size_t)size * sizeof(int));

    for (nonblocking = 0; nonblocking < 2; nonblocking++)
        for (k = 0; k < CALLS; k++)
            for (c = 0; c < 2; c++) {
                long reductions = local_reductions;
                before = launches;
                ct_checks++;
                if (call((call_kind)k, in, out, counts[c], nonblocking, &req) != MPI_SUCCESS ||
                    (nonblocking && MPI_Wait(&req, MPI_STATUS_IGNORE) != MPI_SUCCESS)) {
                    CT_FAIL("%s%s of %d ints failed", nonblocking ? "nonblocking " : "", names[k], counts[c]);
                    continue;
                }
                /* Two domains of one size: a blocking allreduce's slices swap through the MPI
                 * and are reduced on the GPU, chunk by chunk, and so are a blocking reduce's at
                 * the root's domain and a blocking reduce-scatter's pieces (pair.c). More domains,
                 * and nonblocking calls: every rank reduces its part of each slice (exchange.c),
                 * for slices (reduce-scatter: bundles) of a quarter of MCOLL_STAGE_CHUNK (64K here)
                 * or more, so the larger count only. */
                ct_checks++;
                gpu_between = gpu_reduce && size % d == 0 && size / d >= 2 && size / d <= HIER_EXCHANGE_MAX_DOMAINS &&
                              counts[c] >= size && ((size / d == 2 && !nonblocking) || c == 1) &&
                              (k == ALLREDUCE || k == REDUCE_SCATTER ||
                               (k == REDUCE && (size / d > 2 || nonblocking || rank / d == 0)));
                if (gpu_between && local_reductions == reductions)
                    CT_FAIL("%s of %d ints over %d domains reduced nothing on the GPU", names[k], counts[c], size / d);
                if (!gpu_between && local_reductions != reductions)
                    CT_FAIL("%s%s of %d ints reduced on the GPU between domains", nonblocking ? "nonblocking " : "",
                            names[k], counts[c]);
                if (!nonblocking) {
                    blocking_launches[k][c] = launches - before;
                    if (launches == before && in_pair) CT_FAIL("%s of %d ints launched nothing: no engine", names[k], counts[c]);
                } else if (launches - before != blocking_launches[k][c]) {
                    CT_FAIL("nonblocking %s of %d ints: %ld engine launches, its blocking form %ld", names[k],
                            counts[c], launches - before, blocking_launches[k][c]);
                }
            }
    /* The staging copies of the blocking pipelines on the engine's stream (MCOLL_HIER_OVERLAP_COPIES=1,
     * the default): a call of several chunks waits on fewer streams than with every MPI step
     * waiting for its own copies (0), at every rank that makes MPI steps (on unequal domains, the
     * domains' first ranks alone), when the MPI is not CUDA-aware (else nothing is staged).
     * Bcast runs its own loop and is left out. */
    for (k = 0; k < CALLS; k++) {
        long waits[2];
        int overlap;
        if (k == BCAST) continue;
        for (overlap = 0; overlap < 2; overlap++) {
            setenv("MCOLL_HIER_OVERLAP_COPIES", overlap ? "1" : "0", 1);
            mcoll_settings_reload();
            before = mcoll_contract_calls("cuStreamSynchronize");
            if (call((call_kind)k, in, out, counts[1], 0, &req) != MPI_SUCCESS) CT_FAIL("%s failed", names[k]);
            waits[overlap] = mcoll_contract_calls("cuStreamSynchronize") - before;
        }
        ct_checks++;
        /* More than two domains, a reduce outside the root's domain: the reduced part must reach
         * the host before the gather either way (one wait per chunk, for the GPU's reduction or
         * for the input's copy). */
        if (k == REDUCE && size % d == 0 && size / d > 2 && rank / d != 0) {
            if (!cuda_aware && waits[1] > waits[0])
                CT_FAIL("reduce of %d ints: %ld stream waits with the copies on the engine's stream, %ld without",
                        counts[1], waits[1], waits[0]);
        } else if (!cuda_aware && in_pair && (size % d == 0 || rank % d == 0) && waits[1] >= waits[0])
            CT_FAIL("%s of %d ints: %ld stream waits with the copies on the engine's stream, %ld without", names[k],
                    counts[1], waits[1], waits[0]);
    }
    checkpoint();
    d_release(in);
    d_release(out);
    return devmem_finish("mpi_hier_engine", dev);
}
