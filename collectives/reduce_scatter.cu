/* mcoll_launch_reduce_scatter: every rank copies its whole sendbuf in; rank r reduces slot r
 * from every rank straight into recvbuf. The direct form reads slot r from every rank's
 * sendbuf itself. */
#include "reduce_run.cuh"

int mcoll_launch_reduce_scatter(const mcoll_dev_team *team, mcoll_access access, const void *sendbuf,
                                void *recvbuf, size_t recvcount, mcoll_dtype dtype, mcoll_op op,
                                void *stream) {
    if (!team || !mcoll::reduce_supported(dtype, op)) return MCOLL_LAUNCH_UNSUPPORTED;
    if (recvcount == 0) return MCOLL_LAUNCH_OK;
    const mcoll::ReduceCall c = mcoll::reduce_scatter_call(team, sendbuf, recvbuf, recvcount, dtype);
    return mcoll::run_reduce(team, access, c, dtype, op, stream);
}

int mcoll_launch_reduce_scatter_direct(const mcoll_dev_team *send, const mcoll_dev_team *recv, size_t recvcount,
                                       mcoll_dtype dtype, mcoll_op op, void *stream) {
    if (!send || !mcoll::reduce_supported(dtype, op)) return MCOLL_LAUNCH_UNSUPPORTED;
    if (recvcount == 0) return MCOLL_LAUNCH_OK;
    const mcoll::ReduceCall c = mcoll::reduce_scatter_call(send, nullptr, nullptr, recvcount, dtype);
    return mcoll::run_reduce_direct(send, recv, c, dtype, op, stream);
}
