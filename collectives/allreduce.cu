/* mcoll_launch_allreduce: one-shot for small messages, two-shot above team->oneshot_max.
 * mcoll_launch_allreduce_direct: zero-copy, rank r's slice straight from and to the users' buffers. */
#include "reduce_run.cuh"

int mcoll_launch_allreduce(const mcoll_dev_team *team, mcoll_access access, const void *sendbuf,
                           void *recvbuf, size_t count, mcoll_dtype dtype, mcoll_op op, void *stream) {
    if (!team || !mcoll::reduce_supported(dtype, op)) return MCOLL_LAUNCH_UNSUPPORTED;
    if (count == 0) return MCOLL_LAUNCH_OK;
    const mcoll::ReduceCall c =
        mcoll::reduce_call(team, sendbuf, recvbuf, mcoll::dtype_span(dtype, count), -1);
    return mcoll::run_reduce(team, access, c, dtype, op, stream);
}

int mcoll_launch_allreduce_direct(const mcoll_dev_team *send, const mcoll_dev_team *recv, size_t count,
                                  mcoll_dtype dtype, mcoll_op op, void *stream) {
    if (!send || !mcoll::reduce_supported(dtype, op)) return MCOLL_LAUNCH_UNSUPPORTED;
    if (count == 0) return MCOLL_LAUNCH_OK;
    const size_t bytes = mcoll::dtype_span(dtype, count);
    mcoll::ReduceCall c = mcoll::reduce_call(send, nullptr, nullptr, bytes, -1);
    /* Always sliced: one 16-byte aligned slice per rank, whatever the size. */
    c.slot_bytes = mcoll::slice16(bytes, (size_t)send->size);
    c.nslots = send->size;
    c.two_shot = 1;
    c.red_slot = send->rank;
    return mcoll::run_reduce_direct(send, recv, c, dtype, op, stream);
}
