/* mcoll_launch_gatherv: each rank stores its block into its slot of root's data area (plain
 * stores to that one rank), barrier, root copies the blocks out to their displacements; root's
 * own block is copied locally. Only root knows every size: the ranks agree on the chunks
 * through the flags of exchange_run.cuh. */
#include "exchange_run.cuh"
#include "launch_common.cuh"

int mcoll_launch_gatherv(const mcoll_dev_team *team, mcoll_access access, const void *sendbuf, size_t sendbytes,
                         void *recvbuf, const size_t recvbytes[], const size_t displs[], int root, void *stream) {
    if (!mcoll::team_ok(team) || root < 0 || root >= team->size ||
        (team->rank == root && (!recvbytes || !displs)))
        return MCOLL_LAUNCH_UNSUPPORTED;
    return mcoll::run_exchange(
        team, access,
        mcoll::gatherv_call(team->rank, team->size, root, sendbuf, sendbytes, recvbuf, recvbytes, displs, 0), stream);
}
