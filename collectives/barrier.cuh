/* Per-block barrier across the team. Block b of every rank always works on the same byte ranges
 * (schedule.cuh), so block b only has to meet block b of the other ranks: no grid sync.
 *
 * Counter [b][src] in each rank's pad counts arrivals of block b of rank src and never resets.
 * The epoch each rank expects lives in device memory (team->epochs), so a captured graph can be
 * replayed: a kernel loads it at the start and stores it back at the end. */
#ifndef MCOLL_BARRIER_CUH
#define MCOLL_BARRIER_CUH

#include <stdio.h>
#include "launch.h"
#include "ptx.cuh"
#include "access.cuh"

namespace mcoll {

static __device__ __noinline__ void barrier_timeout(int rank, int block, int peer, uint64_t expected,
                                             uint64_t seen, uint64_t timeout_ns) {
    printf("mcoll: barrier timeout after %llu ns: rank %d block %d waits for rank %d "
           "(expected count %llu, seen %llu); a peer left the collective or called another one\n",
           (unsigned long long)timeout_ns, rank, block, peer, (unsigned long long)expected,
           (unsigned long long)seen);
    __trap();
}

/* Spin until rank `peer` has arrived `expected` times at this block's barrier. */
__device__ __forceinline__ void wait_arrival(const mcoll_dev_team &t, int block, int peer,
                                             uint64_t expected) {
    const uint64_t *c = t.peer_signal[t.rank] + signal_slot(block, peer);
    uint64_t seen = ld_acquire_sys_u64(c);
    if ((int64_t)(seen - expected) >= 0) return;
    const uint64_t start = globaltimer_ns();
    for (;;) {
        seen = ld_acquire_sys_u64(c);
        if ((int64_t)(seen - expected) >= 0) return;
        if (t.timeout_ns != 0 && globaltimer_ns() - start > t.timeout_ns)
            barrier_timeout(t.rank, block, peer, expected, seen, t.timeout_ns);
    }
}

/* Every thread of the block calls this with the same epoch, which it advances. On return,
 * everything each rank's block did before the barrier is visible to this block. */
template <class A>
__device__ __forceinline__ void block_barrier(const mcoll_dev_team &t, uint64_t &epoch) {
    A::fence_before_arrive();
    __syncthreads();
    const uint64_t e = ++epoch;
    A::arrive(t, blockIdx.x);
    if ((int)threadIdx.x < t.size) wait_arrival(t, blockIdx.x, threadIdx.x, e);
    __syncthreads();
    A::fence_after_wait();
}

} // namespace mcoll
#endif /* MCOLL_BARRIER_CUH */
