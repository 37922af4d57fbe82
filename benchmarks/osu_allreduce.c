/* mcoll_osu_allreduce: OSU-format MPI_Allreduce latency (MPI_SUM). */
#include "bench_osu.h"

static int call(const bench_osu_args *a)
{
    return MPI_Allreduce(a->send, a->recv, a->count, a->dtype, MPI_SUM, a->comm);
}

int main(int argc, char **argv)
{
    static const bench_osu bench = { BENCH_ALLREDUCE, "Allreduce", 0, call };
    return bench_osu_main(argc, argv, &bench);
}
