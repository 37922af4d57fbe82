/* mcoll-floors: the latency floors a small collective on this GPU cannot go under, measured
 * in one process with nothing of mcoll in the way. Every small-message time in mcoll-bench is
 * judged against these rows (benchmarks/NOTES.md):
 *
 *   launch        an empty kernel, launched back to back on one stream (cudaEvents around N)
 *   graph         the same N launches captured in a CUDA graph, the graph replayed
 *   launch+sync   launch, then cudaStreamSynchronize; host clock per pair
 *   launch+query  launch, then cudaStreamQuery until done; host clock per pair
 *   launch+flag   launch of a kernel that stores a sequence number to mapped pinned host memory,
 *                 the host spinning on it; host clock per pair
 *   launch+write  an empty kernel, then cuStreamWriteValue32 of the sequence number to mapped
 *                 pinned memory behind it on the stream, the host spinning on that (a completion
 *                 flag any kernel gets without changing it)
 *   host launch   what issuing one empty launch costs the host (host clock around N launches
 *                 that fit the launch queue): the least a call that launches a kernel can take
 *   host event    cudaEventRecord of a timing-free event, host clock: what marking a
 *                 nonblocking call's end costs
 *   event create  cudaEventCreate + cudaEventDestroy of a timing-free event, host clock
 *   d2h 8 B       cudaMemcpy of 8 bytes device to pinned host (the staged path's first step)
 *   h2d 8 B       the same, host to device
 *   ring echo     a kernel that stays resident, polling a word in mapped pinned memory and
 *                 echoing each new value into another; the host writes one and spins until it
 *                 comes back: the least a call to a resident kernel (no launch) can take
 *   pointer attr  cuPointerGetAttribute(BUFFER_ID) of a device buffer, host clock: what
 *                 confirming a cached buffer classification costs per buffer
 *   stream query  cuStreamQuery of an idle stream, host clock
 *   legacy query  cuStreamQuery(CU_STREAM_LEGACY) with nothing queued, host clock
 *   legacy event  cuEventRecord on CU_STREAM_LEGACY with nothing queued, then cuEventQuery until
 *                 it reports done, host clock: the other way to learn that the legacy stream is idle
 *   legacy order  cuEventRecord on CU_STREAM_LEGACY, then cuStreamWaitEvent of a non-blocking
 *                 stream on it, host clock: what ordering a nonblocking call's launch after the
 *                 legacy default stream costs (src/api/call_streams.c)
 *   echo+read     as ring echo, but the kernel reads a 48-byte call after it sees the new word
 *                 (three 16-byte loads issued together): a counter, then the call it announces
 *   slot echo     as ring echo, but the kernel polls a 96-byte slot whose twelve 8-byte words each
 *                 carry the sequence number (six 16-byte loads issued together by one thread)
 *                 until every word has the new one
 *   slot warp     as slot echo, but six lanes of one warp load 16 bytes each in one instruction
 *                 (one coalesced request) and agree by a warp vote
 *   barrier xB    one block barrier as the collective kernels run it (collectives/barrier.cuh:
 *                 __syncthreads, 4 threads each add 1 at system scope with release semantics and
 *                 poll with acquire loads until it lands, __syncthreads), with no peers, by every
 *                 block of a grid of B blocks of 512 threads, one per multiprocessor (B = 1, 32,
 *                 64); GPU clock per barrier. What a grid's barriers cost by its size alone
 *   launch pdl, graph pdl, exch graph, exch pdl
 *                 kernels chained by programmatic dependent launch, and a two-GPU exchange per
 *                 kernel in a graph (chained.cuh)
 *
 * Each row: the median and the least of R repetitions of N calls, in microseconds per call.
 * Usage: mcoll-floors [-n N] [-r R] [-h]. Exit 0, 2 on bad usage, 77 without a GPU. */
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <unistd.h>
#include <cuda.h>
#include <cuda_runtime.h>
#include "ptx.cuh"

#define CHECK(call)                                                                              \
    do {                                                                                         \
        cudaError_t e_ = (call);                                                                 \
        if (e_ != cudaSuccess) {                                                                 \
            fprintf(stderr, "mcoll-floors: %s: %s\n", #call, cudaGetErrorString(e_));          \
            exit(1);                                                                             \
        }                                                                                        \
    } while (0)

__global__ void empty_kernel() {}

/* `rounds` block barriers of the collective kernels' shape (see barrier xB above): threads
 * 0..kBarrierPeers-1 of each block each own a counter, as they own a peer in a team of that size. */
constexpr int kBarrierPeers = 4;
__global__ void __launch_bounds__(512, 1) barrier_kernel(uint64_t *counters, int rounds)
{
    uint64_t *c = counters + ((size_t)blockIdx.x * kBarrierPeers + threadIdx.x) * 16; /* a line each */
    const uint64_t start = threadIdx.x < kBarrierPeers ? mcoll::ld_acquire_sys_u64(c) : 0;
    for (int i = 1; i <= rounds; i++) {
        __syncthreads();
        if (threadIdx.x < kBarrierPeers) {
            mcoll::red_release_sys_add_u64(c, 1);
            while (mcoll::ld_acquire_sys_u64(c) < start + (uint64_t)i) {
            }
        }
        __syncthreads();
    }
}

__global__ void flag_kernel(volatile unsigned long long *flag, unsigned long long value)
{
    *flag = value;
    __threadfence_system();
}

/* Echo kernels: how the resident kernel can learn of a call. Each echoes every new sequence
 * number into *out until it reads ~0 (host memory, all mapped). */
enum echo_kind { ECHO_WORD, ECHO_READ, ECHO_SLOT, ECHO_SLOT_WARP };
constexpr int kSlotWords = 12;

__device__ __forceinline__ uint4 load_v4(const volatile unsigned long long *p)
{
    uint4 v;
    asm volatile("ld.volatile.global.v4.u32 {%0,%1,%2,%3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p) : "memory");
    return v;
}

/* in[0] is the counter, in[2..13] the slot: for ECHO_READ a call whose words all hold the
 * counter's value, for ECHO_SLOT words that each carry it in their upper half. A value is echoed
 * only once the slot's loads have returned it, so the round trip includes them. */
__global__ void echo_any_kernel(volatile unsigned long long *in, volatile unsigned long long *out, echo_kind k)
{
    unsigned long long seen = 0;
    if (k == ECHO_SLOT_WARP) {
        const unsigned lane = threadIdx.x;
        for (;;) {
            const unsigned long long c = *in;
            uint4 w = make_uint4(0, 0, 0, 0);
            if (lane < kSlotWords / 2) w = load_v4(in + 2 + 2 * lane);
            if (c == ~0ull) return;
            const unsigned v = __shfl_sync(~0u, w.y, 0);
            if (!__all_sync(~0u, lane >= kSlotWords / 2 || (w.y == v && w.w == v)) || v == seen) continue;
            seen = v;
            if (lane == 0) {
                *out = v;
                __threadfence_system();
            }
        }
    }
    for (;;) {
        /* The counter and the slot are loaded together (one round trip), then looked at. */
        unsigned long long v = *in;
        uint4 w[kSlotWords / 2];
        if (k == ECHO_SLOT)
#pragma unroll
            for (int i = 0; i < kSlotWords / 2; i++) w[i] = load_v4(in + 2 + 2 * i);
        if (v == ~0ull) return;
        if (k == ECHO_SLOT) {
            v = w[0].y;
            bool whole = true;
#pragma unroll
            for (int i = 0; i < kSlotWords / 2; i++) whole &= w[i].y == (unsigned)v && w[i].w == (unsigned)v;
            if (!whole) continue;
        } else if (k == ECHO_READ && v != seen) {
            const uint4 a = load_v4(in + 2), b = load_v4(in + 6), c = load_v4(in + 10);
            if (a.x != (unsigned)v || b.x != (unsigned)v || c.x != (unsigned)v) continue;
        }
        if (v == seen) continue;
        seen = v;
        *out = v;
        __threadfence_system();
    }
}

static double now_us()
{
    using namespace std::chrono;
    return duration<double, std::micro>(steady_clock::now().time_since_epoch()).count();
}

#include "chained.cuh"

struct row {
    const char *name;
    std::vector<double> per_call; /* one per repetition */
};

/* Microseconds per launch of n empty kernels (chained by PDL: pdl_empty_kernel), timed on the GPU. */
static double time_launches(cudaStream_t s, cudaEvent_t a, cudaEvent_t b, int n, cudaGraphExec_t exec,
                            bool pdl = false)
{
    float ms = 0;
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaEventRecord(a, s));
    if (exec)
        CHECK(cudaGraphLaunch(exec, s));
    else
        for (int i = 0; i < n; i++)
            if (pdl)
                CHECK(launch_chained(true, s, pdl_empty_kernel));
            else
                empty_kernel<<<1, 1, 0, s>>>();
    CHECK(cudaEventRecord(b, s));
    CHECK(cudaEventSynchronize(b));
    CHECK(cudaEventElapsedTime(&ms, a, b));
    return ms * 1e3 / n;
}

enum wait_kind { WAIT_SYNC, WAIT_QUERY, WAIT_FLAG, WAIT_WRITE };

/* Microseconds per launch-and-wait, host clock. */
static double time_round_trips(cudaStream_t s, int n, wait_kind w, volatile unsigned long long *flag,
                               unsigned long long *dflag, unsigned long long *seq)
{
    double t0 = now_us();
    for (int i = 0; i < n; i++) {
        switch (w) {
        case WAIT_SYNC:
            empty_kernel<<<1, 1, 0, s>>>();
            CHECK(cudaStreamSynchronize(s));
            break;
        case WAIT_QUERY: {
            empty_kernel<<<1, 1, 0, s>>>();
            cudaError_t e;
            while ((e = cudaStreamQuery(s)) == cudaErrorNotReady) {
            }
            CHECK(e);
            break;
        }
        case WAIT_FLAG:
            flag_kernel<<<1, 1, 0, s>>>(dflag, ++*seq);
            while (*flag != *seq) {
            }
            break;
        case WAIT_WRITE: {
            volatile cuuint32_t *low = (volatile cuuint32_t *)flag;
            empty_kernel<<<1, 1, 0, s>>>();
            ++*seq;
            if (cuStreamWriteValue32((CUstream)s, (CUdeviceptr)dflag, (cuuint32_t)*seq, 0) != CUDA_SUCCESS) {
                fprintf(stderr, "mcoll-floors: cuStreamWriteValue32 failed\n");
                exit(1);
            }
            while (*low != (cuuint32_t)*seq) {
            }
            break;
        }
        }
    }
    double t = (now_us() - t0) / n;
    CHECK(cudaStreamSynchronize(s));
    return t;
}

enum host_kind { HOST_LAUNCH, HOST_EVENT, HOST_EVENT_CREATE };

/* Host microseconds per API call; the stream is drained before and after, not in between. */
static double time_host_calls(cudaStream_t s, int n, host_kind k, cudaEvent_t ev)
{
    CHECK(cudaStreamSynchronize(s));
    double t0 = now_us();
    for (int i = 0; i < n; i++) {
        switch (k) {
        case HOST_LAUNCH: empty_kernel<<<1, 1, 0, s>>>(); break;
        case HOST_EVENT: CHECK(cudaEventRecord(ev, s)); break;
        case HOST_EVENT_CREATE: {
            cudaEvent_t e;
            CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
            CHECK(cudaEventDestroy(e));
            break;
        }
        }
    }
    double t = (now_us() - t0) / n;
    CHECK(cudaStreamSynchronize(s));
    return t;
}

static double time_copies(cudaStream_t s, int n, void *dev, void *host, cudaMemcpyKind kind)
{
    double t0 = now_us();
    for (int i = 0; i < n; i++) {
        CHECK(cudaMemcpyAsync(kind == cudaMemcpyDeviceToHost ? host : dev,
                              kind == cudaMemcpyDeviceToHost ? dev : host, 8, kind, s));
        CHECK(cudaStreamSynchronize(s));
    }
    return (now_us() - t0) / n;
}

/* Microseconds per round trip through a resident kernel (echo_any_kernel), host clock. words:
 * 2 + kSlotWords, mapped. */
static double time_echo_any(cudaStream_t s, int n, echo_kind k, volatile unsigned long long *words,
                            unsigned long long *dwords)
{
    const auto post = [&](unsigned long long v) {
        if (k != ECHO_WORD)
            for (int i = 0; i < kSlotWords; i++) /* the slot first */
                words[2 + i] = k == ECHO_READ ? v : (v << 32 | (unsigned)i);
        words[0] = v;
    };
    for (int i = 0; i < 2 + kSlotWords; i++) words[i] = 0;
    echo_any_kernel<<<1, k == ECHO_SLOT_WARP ? 32 : 1, 0, s>>>(dwords, dwords + 1, k);
    post(1);
    while (words[1] != 1) {
    }
    double t0 = now_us();
    for (unsigned long long v = 2; v < (unsigned long long)n + 2; v++) {
        post(v);
        while (words[1] != v) {
        }
    }
    double t = (now_us() - t0) / n;
    words[0] = ~0ull;
    CHECK(cudaStreamSynchronize(s));
    return t;
}

/* Microseconds per barrier of a grid of `blocks` blocks running `rounds` of them, GPU clock.
 * `shared`: dynamic shared memory that leaves room for one block per multiprocessor, as the
 * collective kernels' registers do. */
static double time_barriers(cudaStream_t s, cudaEvent_t a, cudaEvent_t b, int blocks, int rounds, uint64_t *counters,
                            size_t shared)
{
    float ms = 0;
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaEventRecord(a, s));
    barrier_kernel<<<blocks, 512, shared, s>>>(counters, rounds);
    CHECK(cudaEventRecord(b, s));
    CHECK(cudaEventSynchronize(b));
    CHECK(cudaEventElapsedTime(&ms, a, b));
    return ms * 1e3 / rounds;
}

enum query_kind { QUERY_POINTER, QUERY_STREAM, QUERY_LEGACY, QUERY_LEGACY_EVENT, QUERY_LEGACY_ORDER };

/* Host microseconds per driver query. */
static double time_queries(cudaStream_t s, int n, query_kind k, void *dev, CUevent ev)
{
    CHECK(cudaStreamSynchronize(s));
    double t0 = now_us();
    for (int i = 0; i < n; i++) {
        unsigned long long id = 0;
        CUresult rc = CUDA_SUCCESS;
        switch (k) {
        case QUERY_POINTER: rc = cuPointerGetAttribute(&id, CU_POINTER_ATTRIBUTE_BUFFER_ID, (CUdeviceptr)dev); break;
        case QUERY_STREAM: rc = cuStreamQuery((CUstream)s); break;
        case QUERY_LEGACY: rc = cuStreamQuery(CU_STREAM_LEGACY); break;
        case QUERY_LEGACY_EVENT:
            rc = cuEventRecord(ev, CU_STREAM_LEGACY);
            while (rc == CUDA_SUCCESS && (rc = cuEventQuery(ev)) == CUDA_ERROR_NOT_READY) {
            }
            break;
        case QUERY_LEGACY_ORDER:
            rc = cuEventRecord(ev, CU_STREAM_LEGACY);
            if (rc == CUDA_SUCCESS) rc = cuStreamWaitEvent((CUstream)s, ev, 0);
            break;
        }
        if (rc != CUDA_SUCCESS) {
            fprintf(stderr, "mcoll-floors: driver query %d failed (%d)\n", (int)k, (int)rc);
            exit(1);
        }
    }
    return (now_us() - t0) / n;
}

static void print_row(const row &r)
{
    std::vector<double> v = r.per_call;
    std::sort(v.begin(), v.end());
    if (v[0] < 0)
        printf("%-14s %10s %10s\n", r.name, "n/a", "n/a");
    else
        printf("%-14s %10.2f %10.2f\n", r.name, v[v.size() / 2], v[0]);
}

int main(int argc, char **argv)
{
    int n = 1000, reps = 9, opt, ngpus = 0;
    while ((opt = getopt(argc, argv, "n:r:h")) != -1) {
        switch (opt) {
        case 'n': n = atoi(optarg); break;
        case 'r': reps = atoi(optarg); break;
        case 'h':
            printf("Usage: %s [-n CALLS] [-r REPETITIONS]\n"
                   "Latency floors of this GPU (see the comment at the top of mcoll-floors.cu).\n", argv[0]);
            return 0;
        default: return 2;
        }
    }
    if (n < 1 || reps < 1) {
        fprintf(stderr, "mcoll-floors: -n and -r must be at least 1\n");
        return 2;
    }
    if (cudaGetDeviceCount(&ngpus) != cudaSuccess || ngpus == 0) {
        printf("skip: no CUDA GPU visible\n");
        return 77;
    }
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    cudaStream_t s;
    cudaEvent_t a, b;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));

    /* The graph of n empty launches. */
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    for (int i = 0; i < n; i++)
        empty_kernel<<<1, 1, 0, s>>>();
    CHECK(cudaStreamEndCapture(s, &graph));
    CHECK(cudaGraphInstantiateWithFlags(&exec, graph, 0));

    unsigned long long *hflag, *dflag, seq = 0;
    CHECK(cudaHostAlloc((void **)&hflag, sizeof *hflag, cudaHostAllocMapped));
    *hflag = 0;
    CHECK(cudaHostGetDevicePointer((void **)&dflag, hflag, 0));
    void *dbuf, *hbuf;
    CHECK(cudaMalloc(&dbuf, 64));
    CHECK(cudaHostAlloc(&hbuf, 64, cudaHostAllocDefault));

    row rows[] = {{"launch", {}}, {"graph", {}}, {"launch+sync", {}}, {"launch+query", {}},
                  {"launch+flag", {}}, {"launch+write", {}}, {"host launch", {}}, {"host event", {}},
                  {"event create", {}}, {"d2h 8 B", {}}, {"h2d 8 B", {}}, {"ring echo", {}},
                  {"pointer attr", {}}, {"stream query", {}}, {"legacy query", {}}, {"legacy event", {}},
                  {"legacy order", {}},
                  {"echo+read", {}}, {"slot echo", {}}, {"slot warp", {}}, {"barrier x1", {}},
                  {"barrier x32", {}}, {"barrier x64", {}}, {"launch pdl", {}}, {"graph pdl", {}},
                  {"exch graph", {}}, {"exch pdl", {}}};
    cudaGraphExec_t pdl_exec = capture_pdl_graph(s, n);
    exchange_pair pair = make_exchange_pair(ngpus, n);
    unsigned long long *hwords, *dwords;
    CHECK(cudaHostAlloc((void **)&hwords, (2 + kSlotWords) * sizeof *hwords, cudaHostAllocMapped));
    CHECK(cudaHostGetDevicePointer((void **)&dwords, hwords, 0));
    uint64_t *counters;
    const size_t counter_bytes = (size_t)64 * kBarrierPeers * 16 * sizeof *counters;
    CHECK(cudaMalloc((void **)&counters, counter_bytes));
    CHECK(cudaMemset(counters, 0, counter_bytes));
    size_t shared = prop.sharedMemPerMultiprocessor / 2 + 1024;
    if (shared > prop.sharedMemPerBlockOptin) shared = prop.sharedMemPerBlockOptin;
    CHECK(cudaFuncSetAttribute(barrier_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shared));
    const int nrows = sizeof rows / sizeof rows[0];
    cudaEvent_t marker;
    CHECK(cudaEventCreateWithFlags(&marker, cudaEventDisableTiming));
    /* One warm-up pass, then the timed repetitions. */
    for (int r = -1; r < reps; r++) {
        double t[] = {time_launches(s, a, b, n, nullptr),
                       time_launches(s, a, b, n, exec),
                       time_round_trips(s, n, WAIT_SYNC, hflag, dflag, &seq),
                       time_round_trips(s, n, WAIT_QUERY, hflag, dflag, &seq),
                       time_round_trips(s, n, WAIT_FLAG, hflag, dflag, &seq),
                       time_round_trips(s, n, WAIT_WRITE, hflag, dflag, &seq),
                       time_host_calls(s, std::min(n, 1000), HOST_LAUNCH, marker),
                       time_host_calls(s, n, HOST_EVENT, marker),
                       time_host_calls(s, n, HOST_EVENT_CREATE, marker),
                       time_copies(s, n, dbuf, hbuf, cudaMemcpyDeviceToHost),
                       time_copies(s, n, dbuf, hbuf, cudaMemcpyHostToDevice),
                       time_echo_any(s, n, ECHO_WORD, hwords, dwords),
                       time_queries(s, n, QUERY_POINTER, dbuf, (CUevent)marker),
                       time_queries(s, n, QUERY_STREAM, dbuf, (CUevent)marker),
                       time_queries(s, n, QUERY_LEGACY, dbuf, (CUevent)marker),
                       time_queries(s, n, QUERY_LEGACY_EVENT, dbuf, (CUevent)marker),
                       time_queries(s, n, QUERY_LEGACY_ORDER, dbuf, (CUevent)marker),
                       time_echo_any(s, n, ECHO_READ, hwords, dwords),
                       time_echo_any(s, n, ECHO_SLOT, hwords, dwords),
                       time_echo_any(s, n, ECHO_SLOT_WARP, hwords, dwords),
                       time_barriers(s, a, b, 1, n, counters, shared),
                       time_barriers(s, a, b, 32, n, counters, shared),
                       time_barriers(s, a, b, 64, n, counters, shared),
                       time_launches(s, a, b, n, nullptr, true),
                       time_launches(s, a, b, n, pdl_exec, true),
                       time_exchanges(pair, n, 0),
                       time_exchanges(pair, n, 1)};
        if (r >= 0)
            for (int k = 0; k < nrows; k++)
                rows[k].per_call.push_back(t[k]);
    }
    printf("# mcoll-floors: %s, %d calls x %d repetitions, one process%s\n", prop.name, n, reps,
           getenv("CUDA_MPS_PIPE_DIRECTORY") ? " (CUDA_MPS_PIPE_DIRECTORY set: under MPS if its daemon runs)" : "");
    printf("%-14s %10s %10s\n", "# floor", "median", "least");
    printf("%-14s %10s %10s\n", "#", "(us)", "(us)");
    for (const row &r : rows)
        print_row(r);
    CHECK(cudaEventDestroy(marker));
    CHECK(cudaGraphExecDestroy(pdl_exec));
    free_exchange_pair(pair);
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
    CHECK(cudaFreeHost(hflag));
    CHECK(cudaFreeHost(hwords));
    CHECK(cudaFreeHost(hbuf));
    CHECK(cudaFree(dbuf));
    CHECK(cudaFree(counters));
    return 0;
}
