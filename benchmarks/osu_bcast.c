/* mcoll_osu_bcast: look-alike of OSU's osu_bcast, MPI_Bcast latency (root 0, or -k). */
#include "bench_osu.h"

static int call(const bench_osu_args *a)
{
    return MPI_Bcast(a->recv, a->count, a->dtype, a->root, a->comm);
}

int main(int argc, char **argv)
{
    static const bench_osu bench = { BENCH_BCAST, "osu_bcast", "Broadcast", "MPI_Bcast", 0, 0, call, NULL };
    return bench_osu_main(argc, argv, &bench);
}
