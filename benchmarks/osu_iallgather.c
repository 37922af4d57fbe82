/* mcoll_osu_iallgather: look-alike of OSU's osu_iallgather, MPI_Iallgather latency and its
 * overlap with computation; the Size column is what each rank sends. */
#include "bench_osu.h"

static int start(const bench_osu_args *a, MPI_Request *req)
{
    return MPI_Iallgather(a->send, a->count, a->dtype, a->recv, a->count, a->dtype, a->comm, req);
}

int main(int argc, char **argv)
{
    static const bench_osu bench = {
        BENCH_ALLGATHER, "osu_iallgather", "Allgather", "MPI_Iallgather", 1, 0, NULL, start
    };
    return bench_osu_main(argc, argv, &bench);
}
