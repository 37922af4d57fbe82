/* MPI_Scan and MPI_Exscan: intracommunicators only. Elementwise, so large staged calls are cut
 * into chunks like allreduce. Exscan leaves rank 0's recvbuf undefined; staged, it is read as
 * well as written there, so it comes back as it was; the engine does not touch it. */
#include "pmpi.h"
#include "validate.h"
#include "engine.h"

static int validate(const mcoll_call *c)
{
    if (c->cs->is_inter) return MPI_ERR_COMM;
    return mcoll_check_reduction_buffers(c);
}

static void layout_exscan(mcoll_call *c)
{
    mcoll_layout_elementwise(c);
    if (c->cs->rank == 0) c->recv.in = 1;
}

static mcoll_result engine_scan(const mcoll_call *c, const mcoll_decision *d)
{
    return mcoll_engine_scan(c->cs, d, c->sendbuf, c->recvbuf);
}

static mcoll_result engine_exscan(const mcoll_call *c, const mcoll_decision *d)
{
    return mcoll_engine_exscan(c->cs, d, c->sendbuf, c->recvbuf);
}

static int mpi_scan(const mcoll_call *c, const void *sendbuf, void *recvbuf, int count)
{
    return mcoll_next_Scan(sendbuf, recvbuf, count, c->type, c->mpi_op, c->comm);
}

static int mpi_exscan(const mcoll_call *c, const void *sendbuf, void *recvbuf, int count)
{
    return mcoll_next_Exscan(sendbuf, recvbuf, count, c->type, c->mpi_op, c->comm);
}

const mcoll_coll mcoll_coll_scan = {"scan", 1, validate, mcoll_layout_elementwise, mcoll_block_is_count, engine_scan,
                                    mpi_scan, 0, 0};
const mcoll_coll mcoll_coll_exscan = {"exscan", 1, validate, layout_exscan, mcoll_block_is_count, engine_exscan,
                                      mpi_exscan, 0, 0};

int mcoll_mpi_scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    mcoll_call c = {.coll = &mcoll_coll_scan, .sendbuf = sendbuf, .recvbuf = recvbuf, .count = count, .type = type,
                    .recvtype = type, .op = op, .comm = comm};
    return mcoll_pmpi_run(&c);
}

int mcoll_mpi_exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    mcoll_call c = {.coll = &mcoll_coll_exscan, .sendbuf = sendbuf, .recvbuf = recvbuf, .count = count, .type = type,
                    .recvtype = type, .op = op, .comm = comm};
    return mcoll_pmpi_run(&c);
}

int MPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    return mcoll_mpi_scan(sendbuf, recvbuf, count, datatype, op, comm);
}

int MPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    return mcoll_mpi_exscan(sendbuf, recvbuf, count, datatype, op, comm);
}
