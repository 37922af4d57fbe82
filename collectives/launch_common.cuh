/* What every launcher shares: the choice of access layer and the check after a launch. */
#ifndef MCOLL_LAUNCH_COMMON_CUH
#define MCOLL_LAUNCH_COMMON_CUH

#include <cuda_runtime.h>
#include "launch.h"

namespace mcoll {

/* Multimem kernels are built unless configure found an nvcc that cannot assemble them. */
#ifdef MCOLL_NO_MULTIMEM
constexpr bool kMultimemBuilt = false;
#else
constexpr bool kMultimemBuilt = true;
#endif

inline bool team_ok(const mcoll_dev_team *t) {
    return t && t->size >= 1 && t->size <= MCOLL_MAX_RANKS && t->rank >= 0 && t->rank < t->size &&
           t->epochs;
}

/* The multimem layer needs the multicast mappings; without them the call runs on unicast,
 * which every team has. */
inline bool use_multimem(const mcoll_dev_team *t, mcoll_access access) {
    return kMultimemBuilt && access == MCOLL_ACCESS_MULTIMEM && t->mc_data && t->mc_signal;
}

/* MCOLL_LAUNCH_OK, or MCOLL_LAUNCH_CUDA_ERROR with the text kept for mcoll_launch_error(). */
int check_launch();
/* The same after a launch of a kernel given `t`, which ends with signal_done (completion.cuh):
 * a good launch with a completion word is recorded (mcoll_launch_word_sent). */
int check_launch(const mcoll_dev_team &t);

/* Puts `anchor`, a kernel of the calling file's module, on the list mcoll_kernel_modules gives. */
int list_kernel_module(const void *anchor);

} // namespace mcoll

/* In every .cu file that defines kernels, named after the file (files may be compiled together,
 * as benchmarks/probe does): a kernel that marks the file's module, listed when the library
 * loads, so that the team can load every kernel of every module before its first call
 * (launch.h, mcoll_kernel_modules). */
#define MCOLL_KERNEL_MODULE(name)                                                                \
    namespace {                                                                                  \
    __global__ void kernel_module_anchor_##name() {}                                             \
    const int kernel_module_listed_##name = mcoll::list_kernel_module((const void *)kernel_module_anchor_##name); \
    }

#endif /* MCOLL_LAUNCH_COMMON_CUH */
