/* The byte-moving kernel behind bcast and allgather (push_run.cu). */
#ifndef MCOLL_PUSH_RUN_CUH
#define MCOLL_PUSH_RUN_CUH

#include <stddef.h>
#include "launch.h"

namespace mcoll {

/* recvbuf is `nslots` slots of `slot_bytes`. Per chunk, the rank with push_slot >= 0 stores its
 * sendbuf into that slot of every rank's data area; after a barrier every rank copies each slot
 * except skip_slot (-1: none) out to recvbuf. */
struct PushCall {
    const void *send;
    void *recv;
    size_t slot_bytes;
    int nslots;
    int push_slot;
    int skip_slot;
};

int run_push(const mcoll_dev_team *team, mcoll_access access, const PushCall &call, void *stream);

} // namespace mcoll
#endif /* MCOLL_PUSH_RUN_CUH */
