/* mcoll_launch_scatterv: root stores block p into rank p's data area (plain stores to that one
 * rank; a rank receives one block, so it has one slot), barrier, each rank copies its block
 * out; root's own block is copied locally. Only root knows every size: the ranks agree on the
 * chunks through the flags of exchange_run.cuh. */
#include "exchange_run.cuh"
#include "launch_common.cuh"

int mcoll_launch_scatterv(const mcoll_dev_team *team, mcoll_access access, const void *sendbuf,
                          const size_t sendbytes[], const size_t displs[], void *recvbuf, size_t recvbytes, int root,
                          void *stream) {
    if (!mcoll::team_ok(team) || root < 0 || root >= team->size ||
        (team->rank == root && (!sendbytes || !displs)))
        return MCOLL_LAUNCH_UNSUPPORTED;
    return mcoll::run_exchange(
        team, access,
        mcoll::scatterv_call(team->rank, team->size, root, sendbuf, sendbytes, displs, recvbuf, recvbytes, 0), stream);
}
