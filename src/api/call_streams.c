/* The two streams of a communicator's calls through MPI (team.h: stream and nb_stream) and the
 * order between them. Kernels of one team run one after another, in the order their calls were
 * made on every rank: they share the signal pads, the epochs and the completion word. */
#include "checks.h"
#include "comm_internal.h"
#include "config.h"

struct CUstream_st *mcoll_comm_stream(mcoll_comm *comm) { return (struct CUstream_st *)comm->team->stream; }

struct CUstream_st *mcoll_comm_nb_stream(mcoll_comm *comm) { return (struct CUstream_st *)comm->team->nb_stream; }

/* `waiter` waits on the GPU for what is queued on `first` now. */
static mcoll_result wait_for(mcoll_team *team, CUstream waiter, CUstream first)
{
    CU_RETURN(cuEventRecord(team->order_mark, first));
    CU_RETURN(cuStreamWaitEvent(waiter, team->order_mark, 0));
    return MCOLL_SUCCESS;
}

mcoll_result mcoll_comm_order(mcoll_comm *comm, struct CUstream_st *stream)
{
    mcoll_team *team = comm->team;
    if ((CUstream)stream == team->nb_stream) {
        /* What the application queued on the legacy default stream before the call (a kernel
         * writing the send buffer) comes first, as it does for blocking calls. A mark recorded
         * there also comes after the work of every blocking stream, the team's own among them. */
        if (mcoll_settings_get()->legacy_stream_order) MC_RETURN(wait_for(team, team->nb_stream, CU_STREAM_LEGACY));
        else if (!team->nb_last) MC_RETURN(wait_for(team, team->nb_stream, team->stream));
        team->nb_last = 1;
    } else if ((CUstream)stream == team->stream) {
        if (team->nb_last) MC_RETURN(wait_for(team, team->stream, team->nb_stream));
        team->nb_last = 0;
    }
    return MCOLL_SUCCESS;
}

int mcoll_comm_calls_running(mcoll_comm *comm)
{
    mcoll_team *team = comm->team;
    return mcoll_cu.cuStreamQuery(team->stream) != CUDA_SUCCESS ||
           (team->nb_last && mcoll_cu.cuStreamQuery(team->nb_stream) != CUDA_SUCCESS);
}

mcoll_result mcoll_comm_sync(mcoll_comm *comm)
{
    mcoll_team *team = comm->team;
    CUresult rc;
    mcoll_watch_call_begin(&team->watch);
    rc = mcoll_cu.cuStreamSynchronize(team->stream);
    if (rc == CUDA_SUCCESS && team->nb_last) rc = mcoll_cu.cuStreamSynchronize(team->nb_stream);
    mcoll_watch_call_end(&team->watch);
    if (mcoll_watch_aborted(&team->watch)) return MCOLL_ERR_ABORTED;
    if (rc != CUDA_SUCCESS) {
        MCOLL_WARN("cuStreamSynchronize failed: %s", mcoll_cu_errname(rc));
        return MCOLL_ERR_CUDA;
    }
    return MCOLL_SUCCESS;
}
