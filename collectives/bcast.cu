/* mcoll_launch_bcast. Up to team->oneshot_max bytes (or on two ranks): root stores its buffer
 * into every other rank's data area, the others copy out. Above: scatter + allgather, so that no
 * rank sends more than the message once: root stores slice q (1/(size-1) of the message) into
 * the data area of rank (root + 1 + q) % size alone, barrier, each non-root rank stores its slice
 * into every non-root data area, barrier, the non-root ranks copy out. Nothing is stored into
 * root on the unicast layer; multimem's st reaches root too, where nobody reads it. */
#include "push_run.cuh"
#include "schedule.cuh"

int mcoll_launch_bcast(const mcoll_dev_team *team, mcoll_access access, void *buf, size_t bytes,
                       int root, void *stream) {
    if (!team || root < 0 || root >= team->size) return MCOLL_LAUNCH_UNSUPPORTED;
    if (bytes == 0) return MCOLL_LAUNCH_OK;
    const bool is_root = team->rank == root;
    mcoll::PushCall c;
    c.send = buf;
    c.recv = buf;
    c.total = bytes;
    c.receives = !is_root;
    c.root = root;
    if (bytes <= team->oneshot_max || team->size <= 2) {
        c.slot_bytes = bytes;
        c.nslots = 1;
        c.push_slot = is_root ? 0 : -1;
        c.scatter_root = -1;
    } else {
        c.slot_bytes = mcoll::slice16(bytes, (size_t)team->size - 1);
        c.nslots = team->size - 1;
        c.push_slot = is_root ? -1 : (team->rank - root - 1 + team->size) % team->size;
        c.scatter_root = root;
    }
    return mcoll::run_push(team, access, c, stream);
}
