/* mcoll_osu_iallreduce: look-alike of OSU's osu_iallreduce, MPI_Iallreduce (MPI_SUM) latency
 * and its overlap with computation. */
#include "bench_osu.h"

static int start(const bench_osu_args *a, MPI_Request *req)
{
    return MPI_Iallreduce(a->send, a->recv, a->count, a->dtype, a->op, a->comm, req);
}

int main(int argc, char **argv)
{
    static const bench_osu bench = {
        BENCH_ALLREDUCE, "osu_iallreduce", "Allreduce", "MPI_Iallreduce", 0, 0, NULL, start
    };
    return bench_osu_main(argc, argv, &bench);
}
