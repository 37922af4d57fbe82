/* mcoll_osu_bcast: OSU-format MPI_Bcast latency from rank 0. */
#include "bench_osu.h"

static int call(const bench_osu_args *a)
{
    return MPI_Bcast(a->recv, a->count, a->dtype, a->root, a->comm);
}

int main(int argc, char **argv)
{
    static const bench_osu bench = { BENCH_BCAST, "Broadcast", 0, call };
    return bench_osu_main(argc, argv, &bench);
}
