/* Reduction kernels for the floating-point and complex datatypes: one per (access layer, kind). */
#include "reduce_kernel.cuh"

MCOLL_KERNEL_MODULE(reduce_float)

namespace mcoll {

int run_reduce_float(mcoll_dtype dtype, mcoll_op op, const ReduceParams &p, Layer layer, void *stream) {
    switch (dtype) {
    case MCOLL_F32: return run_op<MCOLL_F32>(op, p, layer, stream);
    case MCOLL_F64: return run_op<MCOLL_F64>(op, p, layer, stream);
    case MCOLL_F16: return run_op<MCOLL_F16>(op, p, layer, stream);
    case MCOLL_BF16: return run_op<MCOLL_BF16>(op, p, layer, stream);
    case MCOLL_CF32: return run_op<MCOLL_CF32>(op, p, layer, stream);
    case MCOLL_CF64: return run_op<MCOLL_CF64>(op, p, layer, stream);
    default: return MCOLL_LAUNCH_UNSUPPORTED;
    }
}

} // namespace mcoll
