/* mcoll_osu_reduce_scatter_block: look-alike of OSU's osu_reduce_scatter_block,
 * MPI_Reduce_scatter_block latency (MPI_SUM). The Size column is the whole send buffer; each
 * rank receives Size / ranks bytes. */
#include "bench_osu.h"

static int call(const bench_osu_args *a)
{
    return MPI_Reduce_scatter_block(a->send, a->recv, a->count, a->dtype, a->op, a->comm);
}

int main(int argc, char **argv)
{
    static const bench_osu bench = {
        BENCH_REDUCE_SCATTER, "osu_reduce_scatter_block", "Reduce_scatter_block", "MPI_Reduce_scatter_block", 0, 0,
        call, NULL
    };
    return bench_osu_main(argc, argv, &bench);
}
