/* mcoll_osu_reduce_scatter: look-alike of OSU's osu_reduce_scatter, MPI_Reduce_scatter latency
 * (MPI_SUM) with per-rank counts: the Size column is the whole send buffer, and its E elements
 * are split E / ranks per rank, one more for the first E % ranks ranks, as OSU splits them. */
#include "bench_osu.h"

static int call(const bench_osu_args *a)
{
    return MPI_Reduce_scatter(a->send, a->recv, a->counts, a->dtype, a->op, a->comm);
}

int main(int argc, char **argv)
{
    static const bench_osu bench = {
        BENCH_REDUCE_SCATTER, "osu_reduce_scatter", "Reduce_scatter", "MPI_Reduce_scatter", 0, 1, call, NULL
    };
    return bench_osu_main(argc, argv, &bench);
}
