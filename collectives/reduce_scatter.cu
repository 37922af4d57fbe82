/* mcoll_launch_reduce_scatter: every rank copies its whole sendbuf in; rank r reduces slot r
 * from every rank straight into recvbuf. */
#include "reduce_run.cuh"

int mcoll_launch_reduce_scatter(const mcoll_dev_team *team, mcoll_access access, const void *sendbuf,
                                void *recvbuf, size_t recvcount, mcoll_dtype dtype, mcoll_op op,
                                void *stream) {
    if (!team || !mcoll::reduce_supported(dtype, op)) return MCOLL_LAUNCH_UNSUPPORTED;
    if (recvcount == 0) return MCOLL_LAUNCH_OK;
    mcoll::ReduceCall c;
    c.send = sendbuf;
    c.recv = recvbuf;
    c.slot_bytes = recvcount * mcoll_dtype_size(dtype);
    c.nslots = team->size;
    c.total = c.slot_bytes * (size_t)team->size;
    c.two_shot = 0;
    c.red_slot = team->rank;
    c.root = -1;
    return mcoll::run_reduce(team, access, c, dtype, op, stream);
}
