/* MPI_Allgather. recvbuf holds one block per rank of the (remote) group; with MPI_IN_PLACE this
 * rank's block is already in recvbuf and sendcount/sendtype are ignored. Staged whole. */
#include "pmpi.h"
#include "validate.h"
#include "engine.h"

static int validate(const mcoll_call *c)
{
    int err = MPI_SUCCESS;
    if (c->recvbuf == MPI_IN_PLACE || (c->sendbuf == MPI_IN_PLACE && c->cs->is_inter)) return MPI_ERR_ARG;
    if (c->sendbuf != MPI_IN_PLACE) {
        err = mcoll_check_type(c->type, c->count);
        if (err == MPI_SUCCESS) err = mcoll_check_buffer(c->sendbuf, c->count, c->type);
    }
    if (err == MPI_SUCCESS) err = mcoll_check_type(c->recvtype, c->recvcount);
    if (err == MPI_SUCCESS) err = mcoll_check_buffer(c->recvbuf, c->recvcount, c->recvtype);
    if (err == MPI_SUCCESS) err = mcoll_check_alias(c->sendbuf, c->recvbuf, c->count);
    return err;
}

static void layout(mcoll_call *c)
{
    int in_place = c->sendbuf == MPI_IN_PLACE;
    if (!in_place) mcoll_buf_set(&c->send, c->sendbuf, c->type, c->count, 1, 0);
    mcoll_buf_set(&c->recv, c->recvbuf, c->recvtype, (MPI_Aint)c->cs->remote_size * c->recvcount, in_place, 1);
}

static mcoll_result engine(const mcoll_call *c)
{
    /* The engines move blocks of one predefined type on both sides. */
    if (c->sendbuf != MPI_IN_PLACE && (c->type != c->recvtype || c->count != c->recvcount))
        return MCOLL_ERR_UNSUPPORTED;
    return mcoll_engine_allgather(c->sendbuf, c->recvcount, c->recvbuf, c->recvcount, c->recvtype, c->cs);
}

static int mpi(const mcoll_call *c, const void *sendbuf, void *recvbuf, int count)
{
    (void)count;
    return PMPI_Allgather(sendbuf, c->count, c->type, recvbuf, c->recvcount, c->recvtype, c->comm);
}

const mcoll_coll mcoll_coll_allgather = {"allgather", 0, validate, layout, engine, mpi};

int mcoll_mpi_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                        MPI_Datatype recvtype, MPI_Comm comm)
{
    mcoll_call c = {.coll = &mcoll_coll_allgather, .sendbuf = sendbuf, .recvbuf = recvbuf, .count = sendcount,
                    .recvcount = recvcount, .type = sendtype, .recvtype = recvtype, .op = MPI_OP_NULL, .comm = comm};
    return mcoll_pmpi_run(&c);
}

int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm)
{
    return mcoll_mpi_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}
