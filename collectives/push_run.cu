/* Push kernel: one rank's bytes stored into every rank's data area (multimem.st, or a store per
 * peer), then copied out locally. Not templated on the datatype. */
#include "access.cuh"
#include "barrier.cuh"
#include "copy.cuh"
#include "launch_common.cuh"
#include "push_run.cuh"
#include "schedule.cuh"

namespace mcoll {
namespace {

struct PushParams {
    mcoll_dev_team team;
    PushCall call;
    Sched sched;
};

template <class A>
__global__ void __launch_bounds__(kThreads, 1) push_kernel(const __grid_constant__ PushParams p) {
    const mcoll_dev_team &t = p.team;
    const PushCall &c = p.call;
    const Sched &s = p.sched;
    const int b = blockIdx.x;
    const char *own = (const char *)t.peer_data[t.rank];
    const size_t region = (size_t)b * s.region;
    const size_t lo = (size_t)b * s.span;
    const size_t hi = lo + s.span < c.slot_bytes ? lo + s.span : c.slot_bytes;
    uint64_t epoch = t.epochs[b];

    for (size_t off = lo; off < hi; off += s.chunk) {
        const size_t len = hi - off < s.chunk ? hi - off : s.chunk;
        const size_t area = region + ((epoch + 1) & 1) * s.half;
        if (c.push_slot >= 0) {
            const char *src = (const char *)c.send + off;
            const size_t dst = area + c.push_slot * s.chunk;
            for_packs<4>(packs_of(len), [&](unsigned i) { return ld_user(src, len, i); },
                         [&](unsigned i, uint4 v) { A::st(t, dst + (size_t)i * 16, v); });
        }
        block_barrier<A>(t, epoch);
        for (int q = 0; q < s.nslots; q++)
            if (q != c.skip_slot)
                copy_out((char *)c.recv + q * c.slot_bytes + off, own + area + q * s.chunk, len);
    }
    if (threadIdx.x == 0) t.epochs[b] = epoch;
}

template <class A> int launch(const PushParams &p, void *stream) {
    push_kernel<A><<<p.sched.blocks, kThreads, 0, (cudaStream_t)stream>>>(p);
    return check_launch();
}

} // namespace

int run_push(const mcoll_dev_team *team, mcoll_access access, const PushCall &call, void *stream) {
    if (!team_ok(team)) return MCOLL_LAUNCH_UNSUPPORTED;
    PushParams p;
    p.team = *team;
    p.call = call;
    if (make_sched(team, call.slot_bytes, call.nslots, &p.sched) != 0) return MCOLL_LAUNCH_UNSUPPORTED;
    if constexpr (kMultimemBuilt)
        if (use_multimem(team, access)) return launch<Multimem>(p, stream);
    return launch<Unicast>(p, stream);
}

} // namespace mcoll
