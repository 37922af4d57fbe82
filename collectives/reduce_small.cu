/* Reduction kernels for 8- and 16-bit integers, MPI_BYTE and C bool: one per (access layer,
 * kind). Bitwise kinds are the 32-bit word kinds of reduce_int.cu, logical ones shared by the
 * signed and unsigned types and bool. */
#include "reduce_kernel.cuh"

MCOLL_KERNEL_MODULE(reduce_small)

namespace mcoll {

int run_reduce_small(mcoll_dtype dtype, mcoll_op op, const ReduceParams &p, Layer layer, void *stream) {
    switch (dtype) {
    case MCOLL_I8: return run_op<MCOLL_I8>(op, p, layer, stream);
    case MCOLL_U8: return run_op<MCOLL_U8>(op, p, layer, stream);
    case MCOLL_I16: return run_op<MCOLL_I16>(op, p, layer, stream);
    case MCOLL_U16: return run_op<MCOLL_U16>(op, p, layer, stream);
    case MCOLL_BYTE: return run_op<MCOLL_BYTE>(op, p, layer, stream);
    case MCOLL_BOOL: return run_op<MCOLL_BOOL>(op, p, layer, stream);
    default: return MCOLL_LAUNCH_UNSUPPORTED;
    }
}

} // namespace mcoll
