/* mcoll-floors' rows for kernels that follow one another: the same empty launches with
 * programmatic dependent launch (PDL: each kernel lets the next one launch at its start and waits
 * for the one before it, as the LL kernels do with MCOLL_PDL=1), and the floor of a two-GPU
 * exchange per kernel, in a CUDA graph, with and without PDL:
 *
 *   launch pdl     an empty PDL kernel launched back to back (GPU clock per launch)
 *   graph pdl      the same captured in a graph, replayed
 *   exch graph     two GPUs of one process (peer access), each a graph of one-thread kernels
 *                  that store a count into the other GPU's memory and wait for the other's
 *                  count: the least a two-rank LL call can take per kernel in a graph (host clock
 *                  around both graphs)
 *   exch pdl       the same kernels chained by PDL
 *
 * The exchange rows need two GPUs with peer access and print n/a otherwise. */
#ifndef MCOLL_FLOORS_CHAINED_CUH
#define MCOLL_FLOORS_CHAINED_CUH

#include <cstdint>
#include <cuda_runtime.h>
#include "ptx.cuh"

__global__ void pdl_empty_kernel()
{
    mcoll::griddep_launch_dependents();
    mcoll::griddep_wait();
}

/* words[0]: written by the other GPU; words[8]: this GPU's count of exchanges. */
__global__ void exchange_kernel(uint64_t *peer_words, uint64_t *words)
{
    mcoll::griddep_launch_dependents();
    mcoll::griddep_wait();
    const uint64_t e = words[8] + 1;
    mcoll::st_release_sys_u64(peer_words, e);
    while (mcoll::ld_acquire_sys_u64(words) < e) {
    }
    words[8] = e;
}

/* One launch of `kernel` (one thread), chained to the kernel before it when pdl is set. */
template <class... Params, class... Args>
static cudaError_t launch_chained(bool pdl, cudaStream_t s, void (*kernel)(Params...), Args... args)
{
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr[0].val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(1);
    cfg.blockDim = dim3(1);
    cfg.stream = s;
    cfg.attrs = attr;
    cfg.numAttrs = pdl ? 1 : 0;
    return cudaLaunchKernelEx(&cfg, kernel, args...);
}

static cudaGraphExec_t capture_pdl_graph(cudaStream_t s, int n)
{
    cudaGraph_t g;
    cudaGraphExec_t exec;
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    for (int i = 0; i < n; i++)
        CHECK(launch_chained(true, s, pdl_empty_kernel));
    CHECK(cudaStreamEndCapture(s, &g));
    CHECK(cudaGraphInstantiateWithFlags(&exec, g, 0));
    CHECK(cudaGraphDestroy(g));
    return exec;
}

/* GPUs 0 and 1, each with its words, stream and two graphs of n exchanges (plain, PDL). */
struct exchange_pair {
    bool ok = false;
    uint64_t *words[2] = {};
    cudaStream_t stream[2] = {};
    cudaGraphExec_t graph[2][2] = {}; /* [gpu][pdl] */
};

static exchange_pair make_exchange_pair(int ngpus, int n)
{
    exchange_pair x;
    int ab = 0, ba = 0;
    if (ngpus < 2 || cudaDeviceCanAccessPeer(&ab, 0, 1) != cudaSuccess ||
        cudaDeviceCanAccessPeer(&ba, 1, 0) != cudaSuccess || !ab || !ba)
        return x;
    for (int g = 0; g < 2; g++) {
        CHECK(cudaSetDevice(g));
        const cudaError_t e = cudaDeviceEnablePeerAccess(1 - g, 0);
        if (e != cudaSuccess && e != cudaErrorPeerAccessAlreadyEnabled) CHECK(e);
        (void)cudaGetLastError();
        CHECK(cudaMalloc((void **)&x.words[g], 16 * sizeof(uint64_t)));
        CHECK(cudaMemset(x.words[g], 0, 16 * sizeof(uint64_t)));
        CHECK(cudaStreamCreateWithFlags(&x.stream[g], cudaStreamNonBlocking));
    }
    for (int g = 0; g < 2; g++) {
        CHECK(cudaSetDevice(g));
        for (int pdl = 0; pdl < 2; pdl++) {
            cudaGraph_t graph;
            CHECK(cudaStreamBeginCapture(x.stream[g], cudaStreamCaptureModeThreadLocal));
            for (int i = 0; i < n; i++)
                CHECK(launch_chained(pdl != 0, x.stream[g], exchange_kernel, x.words[1 - g], x.words[g]));
            CHECK(cudaStreamEndCapture(x.stream[g], &graph));
            CHECK(cudaGraphInstantiateWithFlags(&x.graph[g][pdl], graph, 0));
            CHECK(cudaGraphDestroy(graph));
        }
    }
    CHECK(cudaSetDevice(0));
    x.ok = true;
    return x;
}

/* Microseconds per exchange: both GPUs' graphs of n exchanges, host clock; -1 without a pair. */
static double time_exchanges(const exchange_pair &x, int n, int pdl)
{
    if (!x.ok) return -1;
    for (int g = 0; g < 2; g++) CHECK(cudaStreamSynchronize(x.stream[g]));
    const double t0 = now_us();
    for (int g = 0; g < 2; g++) CHECK(cudaGraphLaunch(x.graph[g][pdl], x.stream[g]));
    for (int g = 0; g < 2; g++) CHECK(cudaStreamSynchronize(x.stream[g]));
    return (now_us() - t0) / n;
}

static void free_exchange_pair(exchange_pair &x)
{
    if (!x.ok) return;
    for (int g = 0; g < 2; g++) {
        CHECK(cudaSetDevice(g));
        for (int pdl = 0; pdl < 2; pdl++) CHECK(cudaGraphExecDestroy(x.graph[g][pdl]));
        CHECK(cudaStreamDestroy(x.stream[g]));
        CHECK(cudaFree(x.words[g]));
    }
    CHECK(cudaSetDevice(0));
}

#endif /* MCOLL_FLOORS_CHAINED_CUH */
