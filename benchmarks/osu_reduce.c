/* mcoll_osu_reduce: look-alike of OSU's osu_reduce, MPI_Reduce latency (MPI_SUM to root 0, or
 * the root -k names). */
#include "bench_osu.h"

static int call(const bench_osu_args *a)
{
    return MPI_Reduce(a->send, a->recv, a->count, a->dtype, a->op, a->root, a->comm);
}

int main(int argc, char **argv)
{
    static const bench_osu bench = { BENCH_REDUCE, "osu_reduce", "Reduce", "MPI_Reduce", 0, 0, call, NULL };
    return bench_osu_main(argc, argv, &bench);
}
