/* The completion word (launch.h, mcoll_dev_team::done_word): how a launched kernel tells the
 * host it is done without the host asking the stream. On an H200 a kernel storing a word that the
 * host spins on ended a launch 1.7 us sooner than cudaStreamSynchronize, and the stream's own
 * write (cuStreamWriteValue32 after the kernel) gained nothing (benchmarks/floors). Every launched
 * kernel but the resident one (which has its ring's done count) ends with signal_done. */
#ifndef MCOLL_COMPLETION_CUH
#define MCOLL_COMPLETION_CUH

#include "launch.h"
#include "ptx.cuh"

namespace mcoll {

/* Call once at the very end of a kernel, from every thread of every block (no thread may have
 * returned before it). The last block to get here stores the word with a system-scope release
 * after every block's accesses: each block orders its own before its count (fence at gpu scope),
 * the last one orders the counts it saw before its store, and the release carries them all to
 * the host. The count goes back to 0 for the next launch, which the stream starts only after
 * this one has ended (launches with a word are on the team's stream alone; the single-block LL
 * kernels, which may start early by programmatic launch, skip the count). Without a word (native
 * calls, graphs) a uniform branch on a parameter is all it costs. */
__device__ __forceinline__ void signal_done(const mcoll_dev_team &t) {
    if (!t.done_word) return;
    __syncthreads(); /* the block's accesses before thread 0's */
    if (threadIdx.x != 0) return;
    if (gridDim.x > 1) {
        __threadfence();
        if (atomicAdd(t.done_count, 1u) != gridDim.x - 1) return;
        __threadfence();
        *t.done_count = 0;
    }
    st_release_sys_u64(t.done_word, t.done_value);
}

} // namespace mcoll
#endif /* MCOLL_COMPLETION_CUH */
