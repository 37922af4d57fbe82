/* MPI_Reduce_local: inoutbuf = inbuf op inoutbuf on this rank, with no communicator. It runs
 * through the same steps as the collectives on MPI_COMM_SELF's record (c->local: nothing is
 * agreed with other ranks, and errors go to MPI_COMM_WORLD's handler, as Open MPI does):
 * device buffers are staged (elementwise, in chunks when large) around PMPI_Reduce_local. */
#include "pmpi.h"
#include "validate.h"

static int validate(const mcoll_call *c)
{
    int err = mcoll_check_type(c->type, c->info, c->count);
    if (err == MPI_SUCCESS) err = mcoll_check_op(c);
    if (err == MPI_SUCCESS && (c->sendbuf == MPI_IN_PLACE || c->recvbuf == MPI_IN_PLACE)) err = MPI_ERR_ARG;
    if (err == MPI_SUCCESS) err = mcoll_check_buffer(c->sendbuf, c->count, c->type, c->info);
    if (err == MPI_SUCCESS) err = mcoll_check_buffer(c->recvbuf, c->count, c->type, c->info);
    return err;
}

static void layout(mcoll_call *c)
{
    mcoll_buf_set(&c->send, c->sendbuf, c->type, c->count, 1, 0);
    mcoll_buf_set(&c->recv, c->recvbuf, c->type, c->count, 1, 1);
}

static int mpi(const mcoll_call *c, const void *inbuf, void *inoutbuf, int count)
{
    return mcoll_next_Reduce_local(inbuf, inoutbuf, count, c->type, c->mpi_op);
}

const mcoll_coll mcoll_coll_reduce_local = {"reduce_local", 1, validate, layout, NULL, NULL, mpi, 0, 0};

int mcoll_mpi_reduce_local(const void *inbuf, void *inoutbuf, int count, MPI_Datatype type, MPI_Op op)
{
    mcoll_call c = {.coll = &mcoll_coll_reduce_local, .sendbuf = inbuf, .recvbuf = inoutbuf, .count = count,
                    .type = type, .recvtype = type, .op = op, .comm = MPI_COMM_SELF, .local = 1};
    return mcoll_pmpi_run(&c);
}

int MPI_Reduce_local(const void *inbuf, void *inoutbuf, int count, MPI_Datatype datatype, MPI_Op op)
{
    return mcoll_mpi_reduce_local(inbuf, inoutbuf, count, datatype, op);
}
