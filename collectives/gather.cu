/* mcoll_launch_gather: gatherv with every rank's block of the same size, in rank order; every
 * rank knows the sizes. */
#include "exchange_run.cuh"
#include "launch_common.cuh"

int mcoll_launch_gather(const mcoll_dev_team *team, mcoll_access access, const void *sendbuf, void *recvbuf,
                        size_t bytes, int root, void *stream) {
    size_t lens[MCOLL_MAX_RANKS], offs[MCOLL_MAX_RANKS];
    if (!mcoll::team_ok(team) || root < 0 || root >= team->size)
        return MCOLL_LAUNCH_UNSUPPORTED;
    mcoll::equal_blocks(team->size, bytes, lens, offs);
    return mcoll::run_exchange(
        team, access, mcoll::gatherv_call(team->rank, team->size, root, sendbuf, bytes, recvbuf, lens, offs, 1),
        stream);
}
