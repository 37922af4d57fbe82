/* mcoll_osu_allgather: look-alike of OSU's osu_allgather, MPI_Allgather latency. The Size column
 * is what each rank sends, as in OSU. */
#include "bench_osu.h"

static int call(const bench_osu_args *a)
{
    return MPI_Allgather(a->send, a->count, a->dtype, a->recv, a->count, a->dtype, a->comm);
}

int main(int argc, char **argv)
{
    static const bench_osu bench = { BENCH_ALLGATHER, "osu_allgather", "Allgather", "MPI_Allgather", 1, 0, call, NULL };
    return bench_osu_main(argc, argv, &bench);
}
