/* mcoll_osu_ireduce_scatter: look-alike of OSU's osu_ireduce_scatter, MPI_Ireduce_scatter
 * (MPI_SUM) latency and its overlap with computation, per-rank counts split as
 * mcoll_osu_reduce_scatter splits them. */
#include "bench_osu.h"

static int start(const bench_osu_args *a, MPI_Request *req)
{
    return MPI_Ireduce_scatter(a->send, a->recv, a->counts, a->dtype, a->op, a->comm, req);
}

int main(int argc, char **argv)
{
    static const bench_osu bench = {
        BENCH_REDUCE_SCATTER, "osu_ireduce_scatter", "Reduce_scatter", "MPI_Ireduce_scatter", 0, 1, NULL, start
    };
    return bench_osu_main(argc, argv, &bench);
}
