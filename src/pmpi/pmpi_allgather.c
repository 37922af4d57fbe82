/* MPI_Allgather and MPI_Allgatherv. recvbuf holds one block per rank of the (remote) group (in
 * the v variant, recvcounts[i] elements at displs[i]); with MPI_IN_PLACE this rank's block is
 * already in recvbuf and sendcount/sendtype are ignored. On the engines, or staged whole.
 * Every rank knows every block's size (recvcounts), so every rank decides alike alone. */
#include "pmpi.h"
#include "validate.h"
#include "engine.h"

static int vector(const mcoll_call *c) { return c->coll == &mcoll_coll_allgatherv; }

static int validate(const mcoll_call *c)
{
    int err = MPI_SUCCESS;
    if (c->recvbuf == MPI_IN_PLACE || (c->sendbuf == MPI_IN_PLACE && c->cs->is_inter)) return MPI_ERR_ARG;
    if (c->sendbuf != MPI_IN_PLACE) err = mcoll_check_side(c->sendbuf, c->type, c->info, 1, 0, NULL, NULL, c->count);
    /* sendbuf == recvbuf is not refused: Open MPI computes it, and a rank that refused it
     * would leave the others waiting in the collective. */
    if (err == MPI_SUCCESS)
        err = mcoll_check_side(c->recvbuf, c->recvtype, c->recvinfo, c->cs->remote_size, vector(c), c->recvcounts,
                               c->rdispls, c->recvcount);
    return err;
}

static void layout(mcoll_call *c)
{
    int in_place = c->sendbuf == MPI_IN_PLACE;
    if (!in_place) mcoll_buf_set(&c->send, c->sendbuf, c->type, c->count, 1, 0);
    mcoll_buf_blocks(&c->recv, c->recvbuf, c->recvtype, c->cs->remote_size, vector(c) ? c->recvcounts : NULL,
                     c->rdispls, c->recvcount, in_place, 1);
}

/* The engines move each rank's block as bytes, the send block into the receive block, so the
 * two must have the same size; MPI requires as much (same type signature), whatever datatype
 * handles and counts each side uses. */
static MPI_Aint engine_block(const mcoll_call *c, const char **why)
{
    return mcoll_block_matching(c, c->count, c->recvcount, c->recvcount, why);
}

static MPI_Aint engine_block_v(const mcoll_call *c, const char **why)
{
    return mcoll_block_matching(c, c->count, c->recvcounts[c->cs->rank], 0, why);
}

static mcoll_result engine(const mcoll_call *c, const mcoll_decision *d)
{
    return mcoll_engine_allgather(c->cs, d, c->sendbuf, c->recvbuf);
}

static mcoll_result engine_v(const mcoll_call *c, const mcoll_decision *d)
{
    mcoll_engine_blocks recv;
    (void)d;
    mcoll_engine_blocks_set(&recv, c->recvbuf, c->recv.size, c->cs->size, c->recvcounts, c->rdispls);
    return mcoll_engine_allgatherv(c->cs, c->sendbuf, (size_t)c->count * (size_t)c->send.size, &recv);
}

static int mpi(const mcoll_call *c, const void *sendbuf, void *recvbuf, int count)
{
    (void)count;
    return mcoll_next_Allgather(sendbuf, c->count, c->type, recvbuf, c->recvcount, c->recvtype, c->comm);
}

static int mpi_v(const mcoll_call *c, const void *sendbuf, void *recvbuf, int count)
{
    (void)count;
    return mcoll_next_Allgatherv(sendbuf, c->count, c->type, recvbuf, c->recvcounts, c->rdispls, c->recvtype, c->comm);
}

const mcoll_coll mcoll_coll_allgather = {"allgather", 0, validate, layout, engine_block, engine, mpi, 0,
                                         MCOLL_ZERO_COPY_PER_RANK};
const mcoll_coll mcoll_coll_allgatherv = {"allgatherv", 0, validate, layout, engine_block_v, engine_v, mpi_v, 0, 0};

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

int mcoll_mpi_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                         const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm)
{
    mcoll_call c = {.coll = &mcoll_coll_allgatherv, .sendbuf = sendbuf, .recvbuf = recvbuf, .count = sendcount,
                    .recvcounts = recvcounts, .rdispls = displs, .type = sendtype, .recvtype = recvtype,
                    .op = MPI_OP_NULL, .comm = comm};
    return mcoll_pmpi_run(&c);
}

int MPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                   const int displs[], MPI_Datatype recvtype, MPI_Comm comm)
{
    return mcoll_mpi_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
}
