/* mcoll_multimem_supports() and mcoll_dtype_size(): the host's view of multimem_table.cuh. */
#include "launch_common.cuh"
#include "multimem_table.cuh"

int mcoll_multimem_supports(mcoll_dtype dtype, mcoll_op op) {
    if ((unsigned)dtype >= MCOLL_NUM_DTYPES || (unsigned)op >= MCOLL_NUM_OPS) return 0;
    return mcoll::kMultimemBuilt && mcoll::multimem_width(dtype, op) != 0;
}

size_t mcoll_dtype_size(mcoll_dtype dtype) {
    switch (dtype) {
    case MCOLL_F32: case MCOLL_I32: case MCOLL_U32: return 4;
    case MCOLL_F64: case MCOLL_I64: case MCOLL_U64: return 8;
    case MCOLL_F16: case MCOLL_BF16: return 2;
    default: return 0;
    }
}
