/* mcoll_launch_allgather: each rank stores its block into its slot of every rank's data area,
 * then every rank copies all slots out. */
#include "push_run.cuh"

int mcoll_launch_allgather(const mcoll_dev_team *team, mcoll_access access, const void *sendbuf,
                           void *recvbuf, size_t sendbytes, void *stream) {
    if (!team) return MCOLL_LAUNCH_UNSUPPORTED;
    if (sendbytes == 0) return MCOLL_LAUNCH_OK;
    /* In place: this rank's block is already where it belongs. */
    const bool in_place = (const char *)sendbuf == (const char *)recvbuf + (size_t)team->rank * sendbytes;
    mcoll::PushCall c;
    c.send = sendbuf;
    c.recv = recvbuf;
    c.total = sendbytes * (size_t)team->size;
    c.slot_bytes = sendbytes;
    c.nslots = team->size;
    c.push_slot = team->rank;
    c.skip_slot = in_place ? team->rank : -1;
    c.receives = 1;
    c.scatter_root = -1;
    return mcoll::run_push(team, access, c, stream);
}
