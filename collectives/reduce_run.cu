/* run_reduce: checks, schedule, and the split between floating-point and integer kernels. */
#include "launch_common.cuh"
#include "reduce_run.cuh"

namespace mcoll {

int run_reduce(const mcoll_dev_team *team, mcoll_access access, const ReduceCall &call,
               mcoll_dtype dtype, mcoll_op op, void *stream) {
    if (!team_ok(team) || !reduce_supported(dtype, op)) return MCOLL_LAUNCH_UNSUPPORTED;
    ReduceParams p;
    p.team = *team;
    p.call = call;
    if (make_sched(team, call.slot_bytes, call.nslots, &p.sched) != 0) return MCOLL_LAUNCH_UNSUPPORTED;
    const bool mm = use_multimem(team, access);
    switch (dtype) {
    case MCOLL_F32: case MCOLL_F64: case MCOLL_F16: case MCOLL_BF16:
        return run_reduce_float(dtype, op, p, mm, stream);
    default:
        return run_reduce_int(dtype, op, p, mm, stream);
    }
}

} // namespace mcoll
