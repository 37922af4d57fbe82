/* mcoll_osu_reduce: OSU-format MPI_Reduce latency (MPI_SUM to rank 0). */
#include "bench_osu.h"

static int call(const bench_osu_args *a)
{
    return MPI_Reduce(a->send, a->recv, a->count, a->dtype, MPI_SUM, a->root, a->comm);
}

int main(int argc, char **argv)
{
    static const bench_osu bench = { BENCH_REDUCE, "Reduce", 0, call };
    return bench_osu_main(argc, argv, &bench);
}
