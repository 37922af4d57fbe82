/* mcoll_launch_reduce: the allreduce algorithms with only root receiving (recvbuf is not
 * touched on other ranks); two-shot reduces its slices on the non-root ranks and stores them
 * into root alone (reduce_call). */
#include "reduce_run.cuh"

int mcoll_launch_reduce(const mcoll_dev_team *team, mcoll_access access, const void *sendbuf,
                        void *recvbuf, size_t count, mcoll_dtype dtype, mcoll_op op, int root,
                        void *stream) {
    if (!team || !mcoll::reduce_supported(dtype, op) || root < 0 || root >= team->size)
        return MCOLL_LAUNCH_UNSUPPORTED;
    if (count == 0) return MCOLL_LAUNCH_OK;
    const mcoll::ReduceCall c =
        mcoll::reduce_call(team, sendbuf, recvbuf, mcoll::dtype_span(dtype, count), root);
    return mcoll::run_reduce(team, access, c, dtype, op, stream);
}
