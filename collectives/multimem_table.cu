/* mcoll_multimem_supports(): the host's view of multimem_table.cuh. */
#include "launch_common.cuh"
#include "multimem_table.cuh"

int mcoll_multimem_supports(mcoll_dtype dtype, mcoll_op op) {
    if ((unsigned)dtype >= MCOLL_NUM_DTYPES || (unsigned)op >= MCOLL_NUM_OPS) return 0;
    return mcoll::kMultimemBuilt && mcoll::multimem_width(dtype, op) != 0;
}
