/* mcoll_launch_barrier: one block meets block 0 of every rank. */
#include "access.cuh"
#include "barrier.cuh"
#include "completion.cuh"
#include "launch_common.cuh"

MCOLL_KERNEL_MODULE(barrier)

namespace mcoll {
namespace {

template <class A> __global__ void __launch_bounds__(MCOLL_MAX_RANKS, 1)
barrier_kernel(const __grid_constant__ mcoll_dev_team t) {
    uint64_t epoch = t.epochs[0];
    block_barrier<A>(t, epoch);
    if (threadIdx.x == 0) t.epochs[0] = epoch;
    signal_done(t);
}

template <class A> int launch(const mcoll_dev_team *team, void *stream) {
    barrier_kernel<A><<<1, MCOLL_MAX_RANKS, 0, (cudaStream_t)stream>>>(*team);
    return check_launch(*team);
}

} // namespace
} // namespace mcoll

int mcoll_launch_barrier(const mcoll_dev_team *team, mcoll_access access, void *stream) {
    if (!mcoll::team_ok(team)) return MCOLL_LAUNCH_UNSUPPORTED;
    return mcoll::on_layer<true>(mcoll::pick_layer(team, access),
                                 [&](auto layer) { return mcoll::launch<decltype(layer)>(team, stream); });
}
