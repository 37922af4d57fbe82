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

/* Filled by static initializers, before main and before any thread of the library. */
constexpr int kMaxModules = 32;
static const void *modules[kMaxModules];
static int nmodules;

int list_kernel_module(const void *anchor) {
    if (nmodules < kMaxModules) modules[nmodules++] = anchor;
    return nmodules;
}

} // namespace mcoll

const char *mcoll_launch_error(void) { return mcoll::last_error.load(std::memory_order_relaxed); }

extern "C" int mcoll_kernel_modules(const void *const **anchors) {
    *anchors = mcoll::modules;
    return mcoll::nmodules;
}

extern "C" int mcoll_kernel_function(const void *anchor, void **function) {
    cudaFunction_t f = nullptr;
    if (cudaGetFuncBySymbol(&f, anchor) != cudaSuccess) {
        (void)cudaGetLastError(); /* no GPU, or no image for it */
        return 0;
    }
    *function = (void *)f;
    return 1;
}
