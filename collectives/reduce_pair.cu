/* Reduction kernels for the MINLOC/MAXLOC pairs {value; int index}: one per (access layer,
 * kind); unicast only (multimem.ld_reduce has no such op). */
#include "reduce_kernel.cuh"

MCOLL_KERNEL_MODULE(reduce_pair)

namespace mcoll {

int run_reduce_pair(mcoll_dtype dtype, mcoll_op op, const ReduceParams &p, Layer layer, void *stream) {
    switch (dtype) {
    case MCOLL_F32_I32: return run_op<MCOLL_F32_I32>(op, p, layer, stream);
    case MCOLL_F64_I32: return run_op<MCOLL_F64_I32>(op, p, layer, stream);
    case MCOLL_I64_I32: return run_op<MCOLL_I64_I32>(op, p, layer, stream);
    case MCOLL_I32_I32: return run_op<MCOLL_I32_I32>(op, p, layer, stream);
    case MCOLL_I16_I32: return run_op<MCOLL_I16_I32>(op, p, layer, stream);
    default: return MCOLL_LAUNCH_UNSUPPORTED;
    }
}

} // namespace mcoll
