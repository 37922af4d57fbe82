/* run_reduce: checks, schedule, and the split of the kernels by datatype. */
#include <atomic>
#include "launch_common.cuh"
#include "pipeline.cuh"
#include "reduce_run.cuh"

namespace mcoll {

static std::atomic<unsigned> emulated_turn{0};

/* Launch by datatype. */
static int dispatch(const ReduceParams &p, mcoll_dtype dtype, mcoll_op op, Layer layer, void *stream) {
    switch (dtype) {
    case MCOLL_F32: case MCOLL_F64: case MCOLL_F16: case MCOLL_BF16: case MCOLL_CF32: case MCOLL_CF64:
        return run_reduce_float(dtype, op, p, layer, stream);
    case MCOLL_I32: case MCOLL_U32: case MCOLL_I64: case MCOLL_U64:
        return run_reduce_int(dtype, op, p, layer, stream);
    case MCOLL_I8: case MCOLL_U8: case MCOLL_I16: case MCOLL_U16: case MCOLL_BYTE: case MCOLL_BOOL:
        return run_reduce_small(dtype, op, p, layer, stream);
    case MCOLL_F32_I32: case MCOLL_F64_I32: case MCOLL_I64_I32: case MCOLL_I32_I32: case MCOLL_I16_I32:
        return run_reduce_pair(dtype, op, p, layer, stream);
    default:
        return MCOLL_LAUNCH_UNSUPPORTED;
    }
}

int run_reduce(const mcoll_dev_team *team, mcoll_access access, const ReduceCall &call,
               mcoll_dtype dtype, mcoll_op op, void *stream) {
    if (!team_ok(team) || !reduce_supported(dtype, op)) return MCOLL_LAUNCH_UNSUPPORTED;
    ReduceParams p;
    p.team = *team;
    p.call = call;
    p.call.direct = 0;
    if (make_sched(team, call.slot_bytes, call.nslots, half_slots(call), &p.sched) != 0)
        return MCOLL_LAUNCH_UNSUPPORTED;
    /* multimem.ld_reduce combines every rank: a prefix has no multimem form. */
    const Layer layer = call.scan ? Layer::Unicast : pick_layer(team, access);
    /* The emulation starts combining at another rank with every call. */
    if (layer == Layer::MultimemEmulated) p.team.mc_turn = emulated_turn++;
    return dispatch(p, dtype, op, layer, stream);
}

int run_reduce_direct(const mcoll_dev_team *send, const mcoll_dev_team *recv, const ReduceCall &call,
                      mcoll_dtype dtype, mcoll_op op, void *stream) {
    if (!team_ok(send) || !recv || !reduce_supported(dtype, op)) return MCOLL_LAUNCH_UNSUPPORTED;
    ReduceParams p;
    p.team = *send;
    p.recv_view = *recv;
    p.call = call;
    p.call.direct = 1;
    p.call.scan = 0;
    make_direct_sched(send, call.slot_bytes, &p.sched);
    return dispatch(p, dtype, op, Layer::Unicast, stream);
}

} // namespace mcoll
