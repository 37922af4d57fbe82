/* mcoll_osu_allreduce: look-alike of OSU's osu_allreduce, MPI_Allreduce latency (MPI_SUM). */
#include "bench_osu.h"

static int call(const bench_osu_args *a)
{
    return MPI_Allreduce(a->send, a->recv, a->count, a->dtype, a->op, a->comm);
}

int main(int argc, char **argv)
{
    static const bench_osu bench = { BENCH_ALLREDUCE, "osu_allreduce", "Allreduce", "MPI_Allreduce", 0, 0, call, NULL };
    return bench_osu_main(argc, argv, &bench);
}
