/* Push kernel: one rank's bytes stored into every rank's data area (multimem.st, or a store per
 * peer), then copied out locally; for a large bcast, first scattered by the root so that each
 * rank pushes one slice. Not templated on the datatype. */
#include "access.cuh"
#include "barrier.cuh"
#include "completion.cuh"
#include "copy.cuh"
#include "launch_common.cuh"
#include "push_run.cuh"
#include "schedule.cuh"

MCOLL_KERNEL_MODULE(push_run)

namespace mcoll {
namespace {

struct PushParams {
    mcoll_dev_team team;
    PushCall call;
    Sched sched;
};

__device__ __forceinline__ size_t push_part(const PushCall &c, int q, size_t off, size_t len) {
    return slot_part(c.total, c.slot_bytes, q, off, len);
}

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
        /* Scatter: root hands slot q to its owner (a plain store to one rank), like two-shot's
         * first half; the push below then reads it back from this half. */
        const size_t in = region + ((epoch + 1) & 1) * s.half;
        if (c.scatter_root >= 0) {
            if (t.rank == c.scatter_root)
                for (int k = 0; k < s.nslots; k++) {
                    const int q = (k + b) % s.nslots; /* blocks start on different peers */
                    int owner = c.scatter_root + 1 + q;
                    if (owner >= t.size) owner -= t.size;
                    const char *src = (const char *)c.send + q * c.slot_bytes + off;
                    char *dst = (char *)t.peer_data[owner] + in + q * s.chunk;
                    const size_t n = push_part(c, q, off, len);
                    for_packs<4>(packs_of(n), [&](unsigned i) { return ld_user(src, n, i); },
                                 [&](unsigned i, uint4 v) { st_global_v4(dst + (size_t)i * 16, v); });
                }
            block_barrier<A>(t, epoch);
        }
        const size_t area = region + ((epoch + 1) & 1) * s.half;
        if (c.push_slot >= 0) {
            const size_t n = push_part(c, c.push_slot, off, len);
            const size_t dst = area + c.push_slot * s.chunk;
            if (c.scatter_root >= 0) {
                const char *src = own + in + c.push_slot * s.chunk;
                for_packs<4>(packs_of(n), [&](unsigned i) { return ld_global_v4(src + (size_t)i * 16); },
                             [&](unsigned i, uint4 v) { A::st_except(t, dst + (size_t)i * 16, v, c.root); });
            } else {
                const char *src = (const char *)c.send + off;
                for_packs<4>(packs_of(n), [&](unsigned i) { return ld_user(src, n, i); },
                             [&](unsigned i, uint4 v) { A::st_except(t, dst + (size_t)i * 16, v, c.root); });
            }
        }
        block_barrier<A>(t, epoch);
        if (c.receives)
            for (int q = 0; q < s.nslots; q++)
                copy_out((char *)c.recv + q * c.slot_bytes + off, own + area + q * s.chunk,
                         push_part(c, q, off, len));
    }
    if (threadIdx.x == 0) t.epochs[b] = epoch;
    signal_done(t);
}

template <class A> int launch(const PushParams &p, void *stream) {
    push_kernel<A><<<p.sched.blocks, kThreads, 0, (cudaStream_t)stream>>>(p);
    return check_launch(p.team);
}

} // namespace

int run_push(const mcoll_dev_team *team, mcoll_access access, const PushCall &call, void *stream) {
    if (!team_ok(team)) return MCOLL_LAUNCH_UNSUPPORTED;
    PushParams p;
    p.team = *team;
    p.call = call;
    if (make_sched(team, call.slot_bytes, call.nslots, call.nslots, &p.sched) != 0) return MCOLL_LAUNCH_UNSUPPORTED;
    return on_layer<true>(pick_layer(team, access), [&](auto layer) { return launch<decltype(layer)>(p, stream); });
}

} // namespace mcoll
