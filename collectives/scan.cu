/* mcoll_launch_scan: inclusive and exclusive prefix reductions on the unicast layer. Up to
 * team->oneshot_max bytes, one-shot: every rank copies its input in, barrier, rank r reduces the
 * inputs of ranks 0..r (or 0..r-1) into recvbuf. Above, two-shot: rank q computes every rank's
 * prefix of slice q, stores prefix p into rank p alone, barrier, every rank copies its slices
 * out. */
#include "reduce_run.cuh"

int mcoll_launch_scan(const mcoll_dev_team *team, mcoll_access access, const void *sendbuf, void *recvbuf,
                      size_t count, mcoll_dtype dtype, mcoll_op op, int exclusive, void *stream) {
    if (!team || !mcoll::reduce_supported(dtype, op)) return MCOLL_LAUNCH_UNSUPPORTED;
    if (count == 0) return MCOLL_LAUNCH_OK;
    mcoll::ReduceCall c = mcoll::reduce_call(team, sendbuf, recvbuf, mcoll::dtype_span(dtype, count), -1);
    c.scan = exclusive ? mcoll::kScanExclusive : mcoll::kScanInclusive;
    return mcoll::run_reduce(team, access, c, dtype, op, stream);
}
