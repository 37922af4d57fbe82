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

int check_launch(const mcoll_dev_team &t) {
    const int status = check_launch();
    if (status == MCOLL_LAUNCH_OK) mcoll_launch_word_sent(&t);
    return status;
}

/* Per thread: the caller that armed the word launches and asks in the same thread (a launch
 * queued to the launcher thread is armed, launched and asked about there). */
static thread_local uint64_t word_sent;

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

extern "C" void mcoll_launch_word_sent(const mcoll_dev_team *team) {
    if (team->done_word) mcoll::word_sent = team->done_value;
}

extern "C" uint64_t mcoll_launch_word_taken(void) {
    const uint64_t v = mcoll::word_sent;
    mcoll::word_sent = 0;
    return v;
}

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
