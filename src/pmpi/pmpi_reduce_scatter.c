/* MPI_Reduce_scatter_block and MPI_Reduce_scatter. Both reduce a vector of `total` elements and
 * leave this rank's block at the start of recvbuf; with MPI_IN_PLACE the vector is read from
 * recvbuf. They are staged whole (not elementwise: the blocks are cut by rank). */
#include <stdlib.h>
#include "pmpi.h"
#include "validate.h"
#include "engine.h"

/* Elements of the whole vector (block form: group size * recvcount). */
static MPI_Aint total(const mcoll_call *c)
{
    MPI_Aint sum = 0;
    int i;
    if (!c->recvcounts) return (MPI_Aint)c->cs->size * c->count;
    for (i = 0; i < c->cs->size; i++) sum += c->recvcounts[i];
    return sum;
}

/* Elements of this rank's block. */
static int mine(const mcoll_call *c) { return c->recvcounts ? c->recvcounts[c->cs->rank] : c->count; }

static int check_counts(const mcoll_call *c)
{
    int i;
    if (!c->recvcounts) return c->count < 0 ? MPI_ERR_COUNT : MPI_SUCCESS;
    for (i = 0; i < c->cs->size; i++)
        if (c->recvcounts[i] < 0) return MPI_ERR_COUNT;
    return MPI_SUCCESS;
}

static int validate(const mcoll_call *c)
{
    int err;
    if (c->coll == &mcoll_coll_reduce_scatter && !c->recvcounts && c->cs->size > 0) return MPI_ERR_COUNT;
    err = check_counts(c);
    if (err == MPI_SUCCESS) err = mcoll_check_reduction(c); /* count is 0 for the vector form */
    if (err == MPI_SUCCESS && c->sendbuf != MPI_IN_PLACE)
        err = mcoll_check_buffer(c->sendbuf, total(c) > 0, c->type, c->info);
    /* sendbuf == recvbuf is not refused: MPI forbids it, but Open MPI computes it (as in place),
     * and a rank that refused it would leave the others waiting in the collective. */
    if (err == MPI_SUCCESS) err = mcoll_check_buffer(c->recvbuf, mine(c), c->type, c->info);
    return err;
}

static void layout(mcoll_call *c)
{
    if (c->sendbuf == MPI_IN_PLACE) {
        mcoll_buf_set(&c->recv, c->recvbuf, c->type, total(c), 1, 1);
        c->recv.out_count = mine(c);
    } else {
        mcoll_buf_set(&c->send, c->sendbuf, c->type, total(c), 1, 0);
        mcoll_buf_set(&c->recv, c->recvbuf, c->type, mine(c), 0, 1);
    }
}

/* The engines do equal blocks; uneven ones stay with MPI. recvcounts is the same on every rank. */
static MPI_Aint engine_block(const mcoll_call *c, const char **why)
{
    int i, n = mine(c);
    if (c->recvcounts) {
        for (i = 0; i < c->cs->size; i++)
            if (c->recvcounts[i] != n) {
                *why = "blocks of unequal size";
                return -1;
            }
    }
    return n;
}

static mcoll_result engine(const mcoll_call *c, const mcoll_decision *d)
{
    return mcoll_engine_reduce_scatter(c->cs, d, c->sendbuf, c->recvbuf);
}

static int mpi_block(const mcoll_call *c, const void *sendbuf, void *recvbuf, int count)
{
    (void)count;
    return mcoll_next_Reduce_scatter_block(sendbuf, recvbuf, c->count, c->type, c->mpi_op, c->comm);
}

static int mpi_vector(const mcoll_call *c, const void *sendbuf, void *recvbuf, int count)
{
    (void)count;
    return mcoll_next_Reduce_scatter(sendbuf, recvbuf, c->recvcounts, c->type, c->mpi_op, c->comm);
}

const mcoll_coll mcoll_coll_reduce_scatter_block = {"reduce_scatter_block", 0, validate, layout, engine_block, engine,
                                                    mpi_block, 0, MCOLL_ZERO_COPY_PER_RANK};
const mcoll_coll mcoll_coll_reduce_scatter = {"reduce_scatter", 0, validate, layout, engine_block, engine, mpi_vector, 0,
                                              MCOLL_ZERO_COPY_PER_RANK};

int mcoll_mpi_reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype type,
                                   MPI_Op op, MPI_Comm comm)
{
    mcoll_call c = {.coll = &mcoll_coll_reduce_scatter_block, .sendbuf = sendbuf, .recvbuf = recvbuf,
                    .count = recvcount, .type = type, .recvtype = type, .op = op, .comm = comm};
    return mcoll_pmpi_run(&c);
}

int mcoll_mpi_reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype type,
                             MPI_Op op, MPI_Comm comm)
{
    mcoll_call c = {.coll = &mcoll_coll_reduce_scatter, .sendbuf = sendbuf, .recvbuf = recvbuf,
                    .recvcounts = recvcounts, .type = type, .recvtype = type, .op = op, .comm = comm};
    return mcoll_pmpi_run(&c);
}

int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype,
                             MPI_Op op, MPI_Comm comm)
{
    return mcoll_mpi_reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm);
}

int MPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype,
                       MPI_Op op, MPI_Comm comm)
{
    return mcoll_mpi_reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm);
}
