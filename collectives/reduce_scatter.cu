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
    /* Each rank's block starts at a multiple of the element size; the padding after the last
     * element of a block (pairs such as MPI_DOUBLE_INT) is not part of it. */
    c.slot_bytes = recvcount * mcoll::dtype_size(dtype);
    c.tail = c.slot_bytes - mcoll::dtype_span(dtype, recvcount);
    c.nslots = team->size;
    c.total = c.slot_bytes * (size_t)team->size - c.tail;
    c.two_shot = 0;
    c.red_slot = team->rank;
    c.root = -1;
    c.scan = 0;
    return mcoll::run_reduce(team, access, c, dtype, op, stream);
}
