/* Per-block barrier across the team. Block b of every rank always works on the same byte ranges
 * (schedule.cuh), so block b only has to meet block b of the other ranks: no grid sync.
 *
 * Counter [b][src] in each rank's pad counts arrivals of block b of rank src and never resets.
 * The epoch each rank expects lives in device memory (team->epochs), so a captured graph can be
 * replayed: a kernel loads it at the start and stores it back at the end. */
#ifndef MCOLL_BARRIER_CUH
#define MCOLL_BARRIER_CUH

#include "launch.h"
#include "ptx.cuh"
#include "access.cuh"

namespace mcoll {

/* Polls of a waiting counter before the wait starts sleeping, and the longest sleep. A wait
 * that gets this far has lasted milliseconds: sleeping costs it at most MAX_SLEEP_NS of
 * latency, and frees issue slots and memory bandwidth for kernels still working (ranks that
 * share the GPU under MPS among them). */
constexpr uint32_t WAIT_SPIN_POLLS = 4096;
constexpr uint32_t WAIT_MAX_SLEEP_NS = 1024;
/* The host flag lives across PCIe: read it only once per this many polls. */
constexpr uint32_t WAIT_FLAG_EVERY = 64;

/* Wait until rank `peer` has arrived `expected` times at this block's barrier. There is no
 * deadline: a peer may legally join minutes later (a rank writing a checkpoint). The wait
 * gives up only when the host raises the team's abort flag (a peer process died, or the
 * opt-in MCOLL_TIMEOUT passed); the kernel then runs to its end on whatever the buffers hold
 * and the host reports the failure, so no GPU is left spinning for a peer that is gone. */
__device__ __forceinline__ void wait_arrival(const mcoll_dev_team &t, int block, int peer,
                                             uint64_t expected) {
    const uint64_t *c = t.peer_signal[t.rank] + signal_slot(block, peer);
    if ((int64_t)(ld_acquire_sys_u64(c) - expected) >= 0) return;
    uint32_t sleep_ns = 0;
    for (uint32_t polls = 1;; polls++) {
        /* Back-to-back system-scope acquire loads from every block of a 64-block grid slow the
         * GPU's NVLink traffic: peers' arrivals were seen tens of microseconds late
         * (benchmarks/NOTES.md, 2026-11-28). A short pause between looks avoids it. */
        if (t.poll_pause_ns) nanosleep_ns(t.poll_pause_ns);
        if ((int64_t)(ld_acquire_sys_u64(c) - expected) >= 0) return;
        if (polls % WAIT_FLAG_EVERY == 0 && t.abort_flag && ld_volatile_sys_u32(t.abort_flag)) return;
        if (polls >= WAIT_SPIN_POLLS) {
            sleep_ns = sleep_ns ? (sleep_ns < WAIT_MAX_SLEEP_NS ? 2 * sleep_ns : WAIT_MAX_SLEEP_NS) : 32;
            nanosleep_ns(sleep_ns);
        }
    }
}

#ifdef MCOLL_TRACE_BARRIERS
/* Built into benchmarks/probe only: when each block reached and left each barrier, and when
 * each peer's arrival was seen, by epoch (globaltimer, ns): [block][epoch % depth][what]. */
constexpr int kTraceDepth = 64, kTracePeers = 8;
enum { kTraceArrive = 0, kTraceLeave = 1, kTraceSeen = 2 };
__device__ uint64_t barrier_trace[MCOLL_MAX_BLOCKS][kTraceDepth][kTraceSeen + kTracePeers];
__device__ __forceinline__ void trace_stamp(uint64_t e, unsigned what) {
    if (what < kTraceSeen + kTracePeers) barrier_trace[blockIdx.x][e % kTraceDepth][what] = globaltimer_ns();
}
#else
__device__ __forceinline__ void trace_stamp(uint64_t, unsigned) {}
#endif

/* Every thread of the block calls this with the same epoch, which it advances. On return,
 * everything each rank's block did before the barrier is visible to this block. */
template <class A>
__device__ __forceinline__ void block_barrier(const mcoll_dev_team &t, uint64_t &epoch) {
    A::fence_before_arrive();
    __syncthreads();
    const uint64_t e = ++epoch;
    if (threadIdx.x == 0) trace_stamp(e, 0);
    A::arrive(t, blockIdx.x);
    if ((int)threadIdx.x < t.size) {
        wait_arrival(t, blockIdx.x, threadIdx.x, e);
        trace_stamp(e, 2 + threadIdx.x);
    }
    __syncthreads();
    if (threadIdx.x == 0) trace_stamp(e, 1);
    A::fence_after_wait();
}

/* The frame of a zero-copy kernel (peer loads and stores on the users' buffers): a barrier
 * before `body` (every rank's buffers are ready), one after (no rank touches another's buffers
 * once its kernel has ended), the block's epoch kept across launches. */
template <class Body>
__device__ __forceinline__ void between_barriers(const mcoll_dev_team &t, Body body) {
    uint64_t epoch = t.epochs[blockIdx.x];
    block_barrier<Unicast>(t, epoch);
    body();
    block_barrier<Unicast>(t, epoch);
    if (threadIdx.x == 0) t.epochs[blockIdx.x] = epoch;
}

} // namespace mcoll
#endif /* MCOLL_BARRIER_CUH */
