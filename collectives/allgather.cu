/* mcoll_launch_allgather: allgatherv with every rank's block of the same size, in rank order. */
#include "exchange_run.cuh"
#include "launch_common.cuh"

int mcoll_launch_allgather(const mcoll_dev_team *team, mcoll_access access, const void *sendbuf,
                           void *recvbuf, size_t sendbytes, void *stream) {
    size_t lens[MCOLL_MAX_RANKS], offs[MCOLL_MAX_RANKS];
    if (!mcoll::team_ok(team)) return MCOLL_LAUNCH_UNSUPPORTED;
    mcoll::equal_blocks(team->size, sendbytes, lens, offs);
    return mcoll::run_exchange(
        team, access, mcoll::allgatherv_call(team->rank, team->size, sendbuf, sendbytes, recvbuf, lens, offs), stream);
}
