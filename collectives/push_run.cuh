/* The byte-moving kernel behind bcast (push_run.cu). */
#ifndef MCOLL_PUSH_RUN_CUH
#define MCOLL_PUSH_RUN_CUH

#include <stddef.h>
#include "launch.h"

namespace mcoll {

/* recvbuf is `total` bytes as `nslots` slots of `slot_bytes` (the last ones may be short or
 * empty). Per chunk:
 *   scatter_root >= 0 only: that root stores slot q of sendbuf (the whole message) into the
 *     data area of rank (scatter_root + 1 + q) % size, its owner; then a barrier;
 *   the rank with push_slot >= 0 stores that slot into the data area of every rank but root
 *     (the multimem layer cannot leave root out), read from its sendbuf, or with
 *     scatter_root >= 0 from where the root put it; then a barrier;
 *   a rank with `receives` copies each slot out to recvbuf. */
struct PushCall {
    const void *send;
    void *recv;
    size_t total;
    size_t slot_bytes;
    int nslots;
    int push_slot;
    int receives;
    int scatter_root;
    int root; /* receives nothing */
};

int run_push(const mcoll_dev_team *team, mcoll_access access, const PushCall &call, void *stream);

} // namespace mcoll
#endif /* MCOLL_PUSH_RUN_CUH */
