/* MPI_Allreduce. */
#include "pmpi.h"
#include "validate.h"
#include "engine.h"

/* sendbuf (or MPI_IN_PLACE) and recvbuf of `count` elements (allreduce, scan, exscan). */
void mcoll_layout_elementwise(mcoll_call *c)
{
    int in_place = c->sendbuf == MPI_IN_PLACE;
    if (!in_place) mcoll_buf_set(&c->send, c->sendbuf, c->type, c->count, 1, 0);
    mcoll_buf_set(&c->recv, c->recvbuf, c->type, c->count, in_place, 1);
}

static mcoll_result engine(const mcoll_call *c, const mcoll_decision *d)
{
    return mcoll_engine_allreduce(c->cs, d, c->sendbuf, c->recvbuf);
}

static int mpi(const mcoll_call *c, const void *sendbuf, void *recvbuf, int count)
{
    return mcoll_next_Allreduce(sendbuf, recvbuf, count, c->type, c->mpi_op, c->comm);
}

const mcoll_coll mcoll_coll_allreduce = {"allreduce", 1, mcoll_check_reduction_buffers, mcoll_layout_elementwise,
                                         mcoll_block_is_count, engine, mpi, 0, MCOLL_ZERO_COPY_MESSAGE};

int mcoll_mpi_allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    mcoll_call c = {.coll = &mcoll_coll_allreduce, .sendbuf = sendbuf, .recvbuf = recvbuf, .count = count,
                    .type = type, .recvtype = type, .op = op, .comm = comm};
    return mcoll_pmpi_run(&c);
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    return mcoll_mpi_allreduce(sendbuf, recvbuf, count, datatype, op, comm);
}
