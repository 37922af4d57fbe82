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
    p.call.results_to_recv = 0;
    /* multimem.ld_reduce combines every rank: a prefix has no multimem form. */
    const Layer layer = call.scan ? Layer::Unicast : pick_layer(team, access);
    p.call.to_owner = stores_inputs_pay(layer) && inputs_by_stores(team, p.call);
    p.call.root_reads_send = root_reads_send(team, p.call); /* where the kernel can: kReadsInPlace */
    if (make_sched(team, call.slot_bytes, call.nslots, half_slots(p.call), &p.sched, p.call.to_owner) != 0 ||
        !phases_fit(p.sched))
        return MCOLL_LAUNCH_UNSUPPORTED;
    /* The emulation starts combining at another rank with every call. */
    if (layer == Layer::MultimemEmulated) p.team.mc_turn = emulated_turn++;
    return dispatch(p, dtype, op, layer, stream);
}

/* A zero-copy allreduce by stores: the staged kernel's loop on the team's data area, this rank's
 * sendbuf read where it lies and the results stored into every recvbuf. Reduce and
 * reduce_scatter keep their loads (on 4 H100s the zero-copy reduce_scatter's were as fast from
 * 128 MiB and faster at 32 MiB; benchmarks/NOTES.md). The views keep the team's signal pads, and
 * each rank's data area starts MCOLL_DATA_OFFSET after its pad (launch.h), which gives back the
 * team. 0 when the call keeps its loads or the data area cannot hold the schedule. */
static int to_owner_params(const mcoll_dev_team *send, const mcoll_dev_team *recv, const ReduceCall &call,
                           ReduceParams *p) {
    if (!call.two_shot || call.root >= 0) return 0;
    p->team = *send;
    for (int q = 0; q < send->size; q++) p->team.peer_data[q] = (char *)send->peer_signal[q] + MCOLL_DATA_OFFSET;
    p->recv_view = *recv;
    p->call = call;
    p->call.direct = 0;
    p->call.send = send->peer_data[send->rank];
    p->call.recv = recv->peer_data[recv->rank];
    p->call.to_owner = inputs_by_stores(&p->team, p->call);
    p->call.results_to_recv = 1;
    return p->call.to_owner &&
           make_sched(&p->team, call.slot_bytes, call.nslots, half_slots(p->call), &p->sched, true) == 0 &&
           phases_fit(p->sched);
}

int run_reduce_direct(const mcoll_dev_team *send, const mcoll_dev_team *recv, const ReduceCall &call,
                      mcoll_dtype dtype, mcoll_op op, void *stream) {
    if (!team_ok(send) || !recv || !reduce_supported(dtype, op)) return MCOLL_LAUNCH_UNSUPPORTED;
    ReduceParams p;
    if (to_owner_params(send, recv, call, &p)) return dispatch(p, dtype, op, Layer::Unicast, stream);
    p.team = *send;
    p.recv_view = *recv;
    p.call = call;
    p.call.direct = 1;
    p.call.scan = 0;
    p.call.to_owner = 0;
    p.call.results_to_recv = 0;
    p.call.root_reads_send = 0;
    const bool to_root = call.root >= 0;
    make_direct_sched(send, call.slot_bytes, &p.sched, to_root ? kWideReduceSlot : kWideSlot, to_root);
    return dispatch(p, dtype, op, Layer::Unicast, stream);
}

} // namespace mcoll
