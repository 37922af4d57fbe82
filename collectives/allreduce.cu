/* mcoll_launch_allreduce: one-shot for small messages, two-shot above team->oneshot_max. */
#include "reduce_run.cuh"

int mcoll_launch_allreduce(const mcoll_dev_team *team, mcoll_access access, const void *sendbuf,
                           void *recvbuf, size_t count, mcoll_dtype dtype, mcoll_op op, void *stream) {
    if (!team || !mcoll::reduce_supported(dtype, op)) return MCOLL_LAUNCH_UNSUPPORTED;
    if (count == 0) return MCOLL_LAUNCH_OK;
    const mcoll::ReduceCall c =
        mcoll::reduce_call(team, sendbuf, recvbuf, mcoll::dtype_span(dtype, count), -1);
    return mcoll::run_reduce(team, access, c, dtype, op, stream);
}
