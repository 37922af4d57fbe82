/* The LL protocol's kernels: one call per launch, or the resident kernel that takes calls from a
 * ring in host memory until it is told to end or has been idle (launch.h, mcoll_ring). */
#include <cstddef>
#include "completion.cuh"
#include "launch_common.cuh"
#include "ll.cuh"

MCOLL_KERNEL_MODULE(ll_run)

namespace mcoll {

/* Every datatype the LL reductions take, for the two switches below (MCOLL_LL_DTYPE(D) each). */
#define MCOLL_LL_DTYPES                                                                                    \
    MCOLL_LL_DTYPE(MCOLL_F32) MCOLL_LL_DTYPE(MCOLL_F64) MCOLL_LL_DTYPE(MCOLL_F16) MCOLL_LL_DTYPE(MCOLL_BF16)     \
    MCOLL_LL_DTYPE(MCOLL_I32) MCOLL_LL_DTYPE(MCOLL_U32) MCOLL_LL_DTYPE(MCOLL_I64) MCOLL_LL_DTYPE(MCOLL_U64)      \
    MCOLL_LL_DTYPE(MCOLL_I8) MCOLL_LL_DTYPE(MCOLL_U8) MCOLL_LL_DTYPE(MCOLL_I16) MCOLL_LL_DTYPE(MCOLL_U16)        \
    MCOLL_LL_DTYPE(MCOLL_BYTE) MCOLL_LL_DTYPE(MCOLL_BOOL) MCOLL_LL_DTYPE(MCOLL_CF32) MCOLL_LL_DTYPE(MCOLL_CF64)  \
    MCOLL_LL_DTYPE(MCOLL_F32_I32) MCOLL_LL_DTYPE(MCOLL_F64_I32) MCOLL_LL_DTYPE(MCOLL_I64_I32)                    \
    MCOLL_LL_DTYPE(MCOLL_I32_I32) MCOLL_LL_DTYPE(MCOLL_I16_I32)

__device__ __noinline__ void ll_receive_reduction(const mcoll_dev_team &t, const mcoll_ll_call &c, uint64_t count,
                                                  uint4 *stash) {
    switch (c.dtype) {
#define MCOLL_LL_DTYPE(D) \
    case D: ll_reduce_op<D>(t, c, count, stash); break;
    MCOLL_LL_DTYPES
#undef MCOLL_LL_DTYPE
    default: break;
    }
}

/* One launched call. Launched with programmatic dependent launch (mcoll_dev_team::pdl), the kernel
 * lets the next one on the stream launch at once and waits for the ones before it before it
 * reads anything: the call count and the payload come from earlier kernels. */
template <class Run>
__device__ __forceinline__ void ll_launched(const mcoll_dev_team &t, Run run) {
    griddep_launch_dependents();
    griddep_wait();
    LLCtrl *own = ll_ctrl(t, t.rank);
    const uint64_t count = own->count + 1;
    run(count);
    if (threadIdx.x == 0) own->count = count;
    signal_done(t);
}

/* Calls that move data (launched reductions take ll_reduce_kernel). It is built with the run-time
 * reduction all the same: without this second caller of ll_receive_reduction, ptxas gives the
 * resident kernel a stack (168 bytes when tried; tests/unit/test_kernel_stack.sh). */
__global__ void __launch_bounds__(kThreads, 1) ll_kernel(const __grid_constant__ mcoll_dev_team t,
                                                         const __grid_constant__ mcoll_ll_call c) {
    __shared__ uint4 stash[kLLStashPacks];
    ll_launched(t, [&](uint64_t count) { ll_run(t, c, count, stash); });
}

/* A reduction with its datatype and op (kind K) compiled in: no run-time dispatch, and only this
 * reduction's code for the GPU to fetch (the dispatch over every datatype cost the launched
 * allreduce about 1 us against a bcast on 2 x H200; benchmarks/NOTES.md). */
template <class K>
__global__ void __launch_bounds__(kThreads, 1) ll_reduce_kernel(const __grid_constant__ mcoll_dev_team t,
                                                                const __grid_constant__ mcoll_ll_call c) {
    __shared__ uint4 stash[kLLStashPacks];
    ll_launched(t, [&](uint64_t count) {
        ll_run_with(t, c, count, [&] { ll_receive_reduced<K>(t, c, count, stash); });
    });
}

using LLKernel = void (*)(mcoll_dev_team, mcoll_ll_call);

/* The kernel a launched call takes: ll_kernel, or its reduction's own (NULL for a pair the
 * kernels do not reduce, which mcoll_ll_supported has refused already). */
static LLKernel ll_kernel_for(const mcoll_ll_call &c) {
    if (c.kind != MCOLL_LL_ALLREDUCE && c.kind != MCOLL_LL_REDUCE_SCATTER && c.kind != MCOLL_LL_REDUCE) return ll_kernel;
    switch (c.dtype) {
#define MCOLL_LL_DTYPE(D)                                                                             \
    case D:                                                                                           \
        return visit_op<D>((mcoll_op)c.op, (LLKernel) nullptr, [](auto o) -> LLKernel {               \
            return ll_reduce_kernel<typename KindOf<D, decltype(o)::value>::type>;                    \
        });
    MCOLL_LL_DTYPES
#undef MCOLL_LL_DTYPE
    default: return nullptr;
    }
}

static_assert(sizeof(mcoll_ll_call) == 48 && offsetof(mcoll_ring, call) % 16 == 0,
              "the resident kernel reads a call as three aligned 16-byte words");

/* Polls of an idle ring between two looks at the clock and the abort flag. */
constexpr uint32_t kRingPollsPerCheck = 32;

/* What the resident kernel does next. */
enum RingStep { kRingStop = 0, kRingRun = 1, kRingExit = 2, kRingStale = 3 };

/* Thread 0 waits for call number `done` (from 0): kRingRun (in *out), kRingExit (an EXIT call for
 * this generation), kRingStale (an EXIT for an earlier kernel that had ended idle before it came:
 * passed over), kRingStop (idle for idle_ns with nothing posted, or the abort flag). *out holds call number *held already (the last
 * one this kernel ran, or none: ~0): when the host marks call `done` the same as call done - 1,
 * and that is the one held, the slot is not read. */
__device__ __forceinline__ int ring_next(const mcoll_dev_team &t, mcoll_ring *r, uint64_t done, uint64_t idle_ns,
                                         uint64_t generation, mcoll_ll_call *out, uint64_t *held) {
    const uint64_t since = globaltimer_ns();
    for (uint32_t polls = 1;; polls++) {
        const uint64_t posted = ld_acquire_sys_u64((const uint64_t *)&r->posted);
        if (posted >> 1 > done) {
            const bool same = (posted & MCOLL_RING_SAME) && posted >> 1 == done + 1 && done && *held == done - 1;
            if (!same) {
                /* Three loads issued together: each one crosses PCIe, so one after the other they
                 * would cost three round trips. */
                const char *c = (const char *)&r->call[done % MCOLL_RING_SLOTS];
                const uint4 w0 = ld_volatile_v4(c), w1 = ld_volatile_v4(c + 16), w2 = ld_volatile_v4(c + 32);
                uint4 *o = (uint4 *)out;
                o[0] = w0;
                o[1] = w1;
                o[2] = w2;
            }
            *held = done;
            if (out->kind != MCOLL_LL_EXIT) return kRingRun;
            return out->reserved == generation ? kRingExit : kRingStale;
        }
        if (polls % kRingPollsPerCheck == 0) {
            if (t.abort_flag && ld_volatile_sys_u32(t.abort_flag)) return kRingStop;
            if (globaltimer_ns() - since > idle_ns) {
                /* Say so, then look once more: a call posted meanwhile is seen here, or the host
                 * sees `closing` and waits to see whether this kernel ended (ring.c, settle). */
                st_release_sys_u64((uint64_t *)&r->closing, generation);
                fence_sc_sys();
                if (ld_acquire_sys_u64((const uint64_t *)&r->posted) >> 1 == done) return kRingStop;
                st_release_sys_u64((uint64_t *)&r->closing, 0);
            }
        }
    }
}

__global__ void __launch_bounds__(kThreads, 1) resident_kernel(const __grid_constant__ mcoll_dev_team t,
                                                               mcoll_ring *r, uint64_t generation, uint64_t idle_ns) {
    __shared__ __align__(16) mcoll_ll_call call;
    __shared__ int step;
    __shared__ uint4 stash[kLLStashPacks];
    LLCtrl *own = ll_ctrl(t, t.rank);
    uint64_t count = own->count;
    uint64_t done = ld_acquire_sys_u64((const uint64_t *)&r->done), held = ~0ull;
    for (;;) {
        __syncthreads(); /* every thread is done with the last call */
        if (threadIdx.x == 0) step = ring_next(t, r, done, idle_ns, generation, &call, &held);
        __syncthreads();
        if (step == kRingStale) {
            done++;
            if (threadIdx.x == 0) st_release_sys_u64((uint64_t *)&r->done, done);
            continue;
        }
        if (step != kRingRun) break;
        ll_run(t, call, ++count, stash);
        done++;
        if (threadIdx.x == 0) {
            own->count = count;
            /* Results and count first (the block's barrier in ll_run orders the other threads'
             * stores before this release): the host returns the call once it sees `done`. */
            st_release_sys_u64((uint64_t *)&r->done, done);
        }
    }
    if (threadIdx.x == 0) {
        if (step == kRingExit) done++; /* an EXIT is a call too: the host counted it posted */
        __threadfence_system();
        st_release_sys_u64((uint64_t *)&r->done, done);
        st_release_sys_u64((uint64_t *)&r->exited, generation);
    }
}

} // namespace mcoll

using namespace mcoll;

extern "C" int mcoll_ll_supported(const mcoll_dev_team *team, const mcoll_ll_call *c) {
    /* ll_max is at most what the team's slots hold (team.c). */
    if (!team_ok(team) || !c || c->bytes > team->ll_max) return 0;
    switch (c->kind) {
    case MCOLL_LL_ALLREDUCE: case MCOLL_LL_REDUCE_SCATTER:
        return reduce_supported((mcoll_dtype)c->dtype, (mcoll_op)c->op);
    case MCOLL_LL_REDUCE:
        return c->root >= 0 && c->root < team->size && reduce_supported((mcoll_dtype)c->dtype, (mcoll_op)c->op);
    case MCOLL_LL_BCAST:
        return c->root >= 0 && c->root < team->size;
    case MCOLL_LL_ALLGATHER: case MCOLL_LL_BARRIER:
        return 1;
    default:
        return 0;
    }
}

extern "C" int mcoll_launch_ll(const mcoll_dev_team *team, const mcoll_ll_call *call, void *stream) {
    const LLKernel kernel = mcoll_ll_supported(team, call) ? ll_kernel_for(*call) : nullptr;
    if (!kernel) return MCOLL_LAUNCH_UNSUPPORTED;
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr[0].val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(1);
    cfg.blockDim = dim3(kThreads);
    cfg.stream = (cudaStream_t)stream;
    cfg.attrs = attr;
    cfg.numAttrs = team->pdl ? 1 : 0;
    (void)cudaLaunchKernelEx(&cfg, kernel, *team, *call);
    return check_launch(*team);
}

extern "C" int mcoll_launch_pdl_available(void) {
    cudaFuncAttributes a;
    if (cudaFuncGetAttributes(&a, ll_kernel) != cudaSuccess) {
        (void)cudaGetLastError(); /* no GPU, or no image for it: plain launches */
        return 0;
    }
    /* The code the GPU runs was compiled from sm_90 PTX or newer (a JIT of older PTX has no wait). */
    return a.ptxVersion >= 90 && a.binaryVersion >= 90;
}

extern "C" int mcoll_launch_resident(const mcoll_dev_team *team, mcoll_ring *ring, uint64_t generation,
                                     uint64_t idle_ns, void *stream) {
    if (!team_ok(team) || !ring) return MCOLL_LAUNCH_UNSUPPORTED;
    resident_kernel<<<1, kThreads, 0, (cudaStream_t)stream>>>(*team, ring, generation, idle_ns);
    return check_launch();
}
