/* mcoll_launch_allgatherv: each rank stores its block into its slot of every rank's data area
 * (`st`), barrier, every rank copies the other blocks out to their displacements. */
#include "exchange_run.cuh"
#include "launch_common.cuh"

int mcoll_launch_allgatherv(const mcoll_dev_team *team, mcoll_access access, const void *sendbuf,
                            size_t sendbytes, void *recvbuf, const size_t recvbytes[], const size_t displs[],
                            void *stream) {
    if (!mcoll::team_ok(team) || !recvbytes || !displs)
        return MCOLL_LAUNCH_UNSUPPORTED;
    return mcoll::run_exchange(
        team, access,
        mcoll::allgatherv_call(team->rank, team->size, sendbuf, sendbytes, recvbuf, recvbytes, displs), stream);
}
