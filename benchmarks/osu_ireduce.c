/* mcoll_osu_ireduce: look-alike of OSU's osu_ireduce, MPI_Ireduce (MPI_SUM) latency and its
 * overlap with computation. */
#include "bench_osu.h"

static int start(const bench_osu_args *a, MPI_Request *req)
{
    return MPI_Ireduce(a->send, a->recv, a->count, a->dtype, a->op, a->root, a->comm, req);
}

int main(int argc, char **argv)
{
    static const bench_osu bench = { BENCH_REDUCE, "osu_ireduce", "Reduce", "MPI_Ireduce", 0, 0, NULL, start };
    return bench_osu_main(argc, argv, &bench);
}
