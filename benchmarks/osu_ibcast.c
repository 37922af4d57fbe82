/* mcoll_osu_ibcast: look-alike of OSU's osu_ibcast, MPI_Ibcast latency and its overlap with
 * computation. */
#include "bench_osu.h"

static int start(const bench_osu_args *a, MPI_Request *req)
{
    return MPI_Ibcast(a->recv, a->count, a->dtype, a->root, a->comm, req);
}

int main(int argc, char **argv)
{
    static const bench_osu bench = { BENCH_BCAST, "osu_ibcast", "Broadcast", "MPI_Ibcast", 0, 0, NULL, start };
    return bench_osu_main(argc, argv, &bench);
}
