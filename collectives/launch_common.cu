/* Error text of the launchers; host code only. */
#include <atomic>
#include "launch_common.cuh"

namespace mcoll {

/* cudaGetErrorString returns static strings, so keeping the pointer is enough. */
static std::atomic<const char *> last_error{"no error"};

int check_launch() {
    const cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess) return MCOLL_LAUNCH_OK;
    last_error.store(cudaGetErrorString(e), std::memory_order_relaxed);
    return MCOLL_LAUNCH_CUDA_ERROR;
}

} // namespace mcoll

const char *mcoll_launch_error(void) { return mcoll::last_error.load(std::memory_order_relaxed); }
