/* mcoll_launch_bcast: root stores its buffer into every rank's data area, the others copy out. */
#include "push_run.cuh"

int mcoll_launch_bcast(const mcoll_dev_team *team, mcoll_access access, void *buf, size_t bytes,
                       int root, void *stream) {
    if (!team || root < 0 || root >= team->size) return MCOLL_LAUNCH_UNSUPPORTED;
    if (bytes == 0) return MCOLL_LAUNCH_OK;
    const bool is_root = team->rank == root;
    mcoll::PushCall c;
    c.send = buf;
    c.recv = buf;
    c.slot_bytes = bytes;
    c.nslots = 1;
    c.push_slot = is_root ? 0 : -1;
    c.skip_slot = is_root ? 0 : -1;
    return mcoll::run_push(team, access, c, stream);
}
