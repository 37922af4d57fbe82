/* mcoll_launch_alltoallv: each rank stores block p into its slot of rank p's data area (plain
 * stores to that one rank), barrier, every rank copies the blocks it received out to their
 * displacements; its own block is copied locally. A rank knows only the blocks it sends and
 * receives: the ranks agree on the chunks through the flags of exchange_run.cuh. */
#include "exchange_run.cuh"
#include "launch_common.cuh"

int mcoll_launch_alltoallv(const mcoll_dev_team *team, mcoll_access access, const void *sendbuf,
                           const size_t sendbytes[], const size_t sdispls[], void *recvbuf, const size_t recvbytes[],
                           const size_t rdispls[], void *stream) {
    if (!mcoll::team_ok(team) || !sendbytes || !sdispls || !recvbytes || !rdispls)
        return MCOLL_LAUNCH_UNSUPPORTED;
    return mcoll::run_exchange(team, access,
                               mcoll::alltoallv_call(team->rank, team->size, sendbuf, sendbytes, sdispls, recvbuf,
                                                     recvbytes, rdispls, 0),
                               stream);
}
