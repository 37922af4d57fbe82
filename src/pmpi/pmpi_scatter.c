/* MPI_Scatter and MPI_Scatterv: the mirror of gather. The root's sendbuf holds one block per rank
 * of the (remote) group (scatterv: sendcounts[i] elements at displs[i]) and means nothing
 * elsewhere; every leaf receives one block. MPI_IN_PLACE as recvbuf at the root of an
 * intracommunicator: its block stays in sendbuf. On the engines (scatterv's counts are known to
 * the root alone, so the ranks agree on it: decide.c), or staged whole. */
#include "pmpi.h"
#include "validate.h"
#include "engine.h"

static int vector(const mcoll_call *c) { return c->coll == &mcoll_coll_scatterv; }

static int validate(const mcoll_call *c)
{
    int err = mcoll_check_root(c->cs, c->root), root = mcoll_is_root(c);
    if (err != MPI_SUCCESS) return err;
    if (c->recvbuf == MPI_IN_PLACE && (!root || c->cs->is_inter)) return MPI_ERR_ARG;
    if (root && c->sendbuf == MPI_IN_PLACE) return MPI_ERR_ARG;
    if (root)
        err = mcoll_check_side(c->sendbuf, c->type, c->info, c->cs->remote_size, vector(c), c->sendcounts,
                               c->sdispls, c->count);
    if (err == MPI_SUCCESS && mcoll_is_leaf(c) && c->recvbuf != MPI_IN_PLACE)
        err = mcoll_check_side(c->recvbuf, c->recvtype, c->recvinfo, 1, 0, NULL, NULL, c->recvcount);
    if (err == MPI_SUCCESS && root) err = mcoll_check_alias(c->sendbuf, c->recvbuf, c->recvcount);
    return err;
}

static void layout(mcoll_call *c)
{
    if (mcoll_is_root(c))
        mcoll_buf_blocks(&c->send, c->sendbuf, c->type, c->cs->remote_size, vector(c) ? c->sendcounts : NULL,
                         c->sdispls, c->count, 1, 0);
    else
        mcoll_buf_ignore(&c->send, c->sendbuf);
    if (!mcoll_is_leaf(c)) mcoll_buf_ignore(&c->recv, c->recvbuf);
    else if (c->recvbuf != MPI_IN_PLACE) mcoll_buf_set(&c->recv, c->recvbuf, c->recvtype, c->recvcount, 0, 1);
    /* Only the root has a sendbuf: the other ranks decide on their recvbuf alone (engine_root.c). */
    c->send.local_only = c->recvbuf != MPI_IN_PLACE;
}

/* The block of the receive role (recvtype), or at a root receiving in place the send block. */
static MPI_Aint engine_block(const mcoll_call *c, const char **why)
{
    return mcoll_block_matching(c, c->count, c->recvcount, c->recv.out ? c->recvcount : c->count, why);
}

static MPI_Aint engine_block_v(const mcoll_call *c, const char **why)
{
    return c->send.in ? mcoll_block_matching(c, c->sendcounts[c->root], c->recvcount, 0, why) : 0;
}

/* A host sendbuf at the root has been replaced by device scratch memory (engine_root.c). */
static mcoll_result engine(const mcoll_call *c, const mcoll_decision *d)
{
    return mcoll_engine_scatter(c->cs, d, c->sendbuf, c->recvbuf, c->root);
}

static mcoll_result engine_v(const mcoll_call *c, const mcoll_decision *d)
{
    mcoll_engine_blocks send;
    (void)d;
    if (c->send.in) mcoll_engine_blocks_set(&send, c->sendbuf, c->send.size, c->cs->size, c->sendcounts, c->sdispls);
    return mcoll_engine_scatterv(c->cs, c->send.in ? &send : NULL, c->recvbuf,
                                 (size_t)c->recvcount * (size_t)c->recv.size, c->root);
}

static int mpi(const mcoll_call *c, const void *sendbuf, void *recvbuf, int count)
{
    (void)count;
    return mcoll_next_Scatter(sendbuf, c->count, c->type, recvbuf, c->recvcount, c->recvtype, c->root, c->comm);
}

static int mpi_v(const mcoll_call *c, const void *sendbuf, void *recvbuf, int count)
{
    (void)count;
    return mcoll_next_Scatterv(sendbuf, c->sendcounts, c->sdispls, c->type, recvbuf, c->recvcount, c->recvtype, c->root,
                         c->comm);
}

const mcoll_coll mcoll_coll_scatter = {"scatter", 0, validate, layout, engine_block, engine, mpi, 0, 0};
const mcoll_coll mcoll_coll_scatterv = {"scatterv", 0, validate, layout, engine_block_v, engine_v, mpi_v, 1, 0};

int mcoll_mpi_scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                      MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    mcoll_call c = {.coll = &mcoll_coll_scatter, .sendbuf = sendbuf, .recvbuf = recvbuf, .count = sendcount,
                    .recvcount = recvcount, .type = sendtype, .recvtype = recvtype, .op = MPI_OP_NULL, .root = root,
                    .comm = comm};
    return mcoll_pmpi_run(&c);
}

int mcoll_mpi_scatterv(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                       void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    mcoll_call c = {.coll = &mcoll_coll_scatterv, .sendbuf = sendbuf, .recvbuf = recvbuf, .sendcounts = sendcounts,
                    .sdispls = displs, .recvcount = recvcount, .type = sendtype, .recvtype = recvtype,
                    .op = MPI_OP_NULL, .root = root, .comm = comm};
    return mcoll_pmpi_run(&c);
}

int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    return mcoll_mpi_scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
}

int MPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                 void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    return mcoll_mpi_scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm);
}
