/* MPI_Reduce. recvbuf matters at the root only; MPI_IN_PLACE is allowed as sendbuf at the root
 * of an intracommunicator only. */
#include "pmpi.h"
#include "validate.h"
#include "engine.h"

static int validate(const mcoll_call *c)
{
    int err = mcoll_check_type(c->type, c->info, c->count);
    if (err == MPI_SUCCESS) err = mcoll_check_op(c);
    if (err == MPI_SUCCESS) err = mcoll_check_root(c->cs, c->root);
    if (err != MPI_SUCCESS) return err;
    if (c->sendbuf == MPI_IN_PLACE && (!mcoll_is_root(c) || c->cs->is_inter)) return MPI_ERR_ARG;
    if (mcoll_is_root(c) && c->recvbuf == MPI_IN_PLACE) return MPI_ERR_ARG;
    if (mcoll_is_leaf(c) && c->sendbuf != MPI_IN_PLACE)
        err = mcoll_check_buffer(c->sendbuf, c->count, c->type, c->info);
    if (err == MPI_SUCCESS && mcoll_is_root(c)) err = mcoll_check_buffer(c->recvbuf, c->count, c->type, c->info);
    if (err == MPI_SUCCESS && mcoll_is_root(c)) err = mcoll_check_alias(c->sendbuf, c->recvbuf, c->count);
    return err;
}

static void layout(mcoll_call *c)
{
    int in_place = c->sendbuf == MPI_IN_PLACE;
    if (!mcoll_is_leaf(c)) mcoll_buf_ignore(&c->send, c->sendbuf);
    else if (!in_place) mcoll_buf_set(&c->send, c->sendbuf, c->type, c->count, 1, 0);
    if (mcoll_is_root(c)) mcoll_buf_set(&c->recv, c->recvbuf, c->type, c->count, in_place, 1);
    else mcoll_buf_ignore(&c->recv, c->recvbuf);
    /* Only the root has a recvbuf: the other ranks decide on their sendbuf alone. */
    c->recv.local_only = !in_place;
}

/* A host recvbuf at the root has been replaced by device scratch memory (engine_root.c). */
static mcoll_result engine(const mcoll_call *c, const mcoll_decision *d)
{
    return mcoll_engine_reduce(c->cs, d, c->sendbuf, c->recvbuf, c->root);
}

static int mpi(const mcoll_call *c, const void *sendbuf, void *recvbuf, int count)
{
    return mcoll_next_Reduce(sendbuf, recvbuf, count, c->type, c->mpi_op, c->root, c->comm);
}

const mcoll_coll mcoll_coll_reduce = {"reduce", 1, validate, layout, mcoll_block_is_count, engine, mpi, 0,
                                      MCOLL_ZERO_COPY_MESSAGE};

int mcoll_mpi_reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, int root,
                     MPI_Comm comm)
{
    mcoll_call c = {.coll = &mcoll_coll_reduce, .sendbuf = sendbuf, .recvbuf = recvbuf, .count = count,
                    .type = type, .recvtype = type, .op = op, .root = root, .comm = comm};
    return mcoll_pmpi_run(&c);
}

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
               MPI_Comm comm)
{
    return mcoll_mpi_reduce(sendbuf, recvbuf, count, datatype, op, root, comm);
}
