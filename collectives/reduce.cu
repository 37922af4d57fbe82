/* mcoll_launch_reduce: the allreduce algorithms with only root receiving (recvbuf is not
 * touched on other ranks); two-shot reduces its slices on the non-root ranks and stores them
 * into root alone (reduce_call). mcoll_launch_reduce_direct: zero-copy, the same slices straight
 * from the users' inputs into root's recvbuf (reduce_kernel.cuh). */
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

int mcoll_launch_reduce_direct(const mcoll_dev_team *send, const mcoll_dev_team *recv, size_t count,
                               mcoll_dtype dtype, mcoll_op op, int root, int in_place, size_t root_recv_at,
                               void *stream) {
    /* One rank has nothing to reduce from peers: the staged path copies its input. */
    if (!send || !mcoll::reduce_supported(dtype, op) || root < 0 || root >= send->size || send->size < 2)
        return MCOLL_LAUNCH_UNSUPPORTED;
    if (count == 0) return MCOLL_LAUNCH_OK;
    if (root_recv_at != (size_t)-1 && root_recv_at >= ((uint64_t)1 << 62)) return MCOLL_LAUNCH_UNSUPPORTED;
    const size_t bytes = mcoll::dtype_span(dtype, count);
    mcoll::ReduceCall c = mcoll::reduce_call(send, nullptr, nullptr, bytes, root);
    /* Always sliced, as direct_slices says. */
    c.nslots = mcoll::direct_slices(send->size);
    c.slot_bytes = mcoll::slice16(bytes, (size_t)c.nslots);
    c.two_shot = 1;
    c.red_slot = -1;
    if (send->rank == root && root_recv_at != (size_t)-1)
        c.root_says = mcoll::kRootInWindow | (in_place ? mcoll::kRootInPlace : 0) | ((uint64_t)root_recv_at << 2);
    return mcoll::run_reduce_direct(send, recv, c, dtype, op, stream);
}
