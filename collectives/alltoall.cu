/* mcoll_launch_alltoall: alltoallv with blocks of the same size in rank order on both sides;
 * every rank knows the sizes. */
#include "exchange_run.cuh"
#include "launch_common.cuh"

int mcoll_launch_alltoall(const mcoll_dev_team *team, mcoll_access access, const void *sendbuf, void *recvbuf,
                          size_t bytes, void *stream) {
    size_t lens[MCOLL_MAX_RANKS], offs[MCOLL_MAX_RANKS];
    if (!mcoll::team_ok(team)) return MCOLL_LAUNCH_UNSUPPORTED;
    mcoll::equal_blocks(team->size, bytes, lens, offs);
    return mcoll::run_exchange(
        team, access, mcoll::alltoallv_call(team->rank, team->size, sendbuf, lens, offs, recvbuf, lens, offs, 1),
        stream);
}
