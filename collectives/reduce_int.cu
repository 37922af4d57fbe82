/* Reduction kernels for the 32- and 64-bit integer datatypes: one per (access layer, kind). */
#include "reduce_kernel.cuh"

MCOLL_KERNEL_MODULE(reduce_int)

namespace mcoll {

int run_reduce_int(mcoll_dtype dtype, mcoll_op op, const ReduceParams &p, Layer layer, void *stream) {
    switch (dtype) {
    case MCOLL_I32: return run_op<MCOLL_I32>(op, p, layer, stream);
    case MCOLL_U32: return run_op<MCOLL_U32>(op, p, layer, stream);
    case MCOLL_I64: return run_op<MCOLL_I64>(op, p, layer, stream);
    case MCOLL_U64: return run_op<MCOLL_U64>(op, p, layer, stream);
    default: return MCOLL_LAUNCH_UNSUPPORTED;
    }
}

} // namespace mcoll
