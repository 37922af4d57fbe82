/* MPI_Gather and MPI_Gatherv. Every leaf sends one block; the root's recvbuf holds one block per
 * rank of the (remote) group (gatherv: recvcounts[i] elements at displs[i]) and means nothing
 * elsewhere. MPI_IN_PLACE as sendbuf at the root of an intracommunicator: its block is already
 * in recvbuf. On the engines (gatherv's counts are known to the root alone, so the ranks agree on
 * it: decide.c), or staged whole. */
#include "pmpi.h"
#include "validate.h"
#include "engine.h"

static int vector(const mcoll_call *c) { return c->coll == &mcoll_coll_gatherv; }

static int validate(const mcoll_call *c)
{
    int err = mcoll_check_root(c->cs, c->root), root = mcoll_is_root(c);
    if (err != MPI_SUCCESS) return err;
    if (c->sendbuf == MPI_IN_PLACE && (!root || c->cs->is_inter)) return MPI_ERR_ARG;
    if (root && c->recvbuf == MPI_IN_PLACE) return MPI_ERR_ARG;
    if (mcoll_is_leaf(c) && c->sendbuf != MPI_IN_PLACE)
        err = mcoll_check_side(c->sendbuf, c->type, c->info, 1, 0, NULL, NULL, c->count);
    if (err == MPI_SUCCESS && root)
        err = mcoll_check_side(c->recvbuf, c->recvtype, c->recvinfo, c->cs->remote_size, vector(c), c->recvcounts,
                               c->rdispls, c->recvcount);
    if (err == MPI_SUCCESS && root) err = mcoll_check_alias(c->sendbuf, c->recvbuf, c->count);
    return err;
}

static void layout(mcoll_call *c)
{
    int in_place = c->sendbuf == MPI_IN_PLACE;
    if (!mcoll_is_leaf(c)) mcoll_buf_ignore(&c->send, c->sendbuf);
    else if (!in_place) mcoll_buf_set(&c->send, c->sendbuf, c->type, c->count, 1, 0);
    if (mcoll_is_root(c))
        mcoll_buf_blocks(&c->recv, c->recvbuf, c->recvtype, c->cs->remote_size, vector(c) ? c->recvcounts : NULL,
                         c->rdispls, c->recvcount, in_place, 1);
    else
        mcoll_buf_ignore(&c->recv, c->recvbuf);
    /* Only the root has a recvbuf: the other ranks decide on their sendbuf alone (engine_root.c). */
    c->recv.local_only = !in_place;
}

/* At the root the block of the receive role (recvtype), elsewhere the send block. */
static MPI_Aint engine_block(const mcoll_call *c, const char **why)
{
    return mcoll_block_matching(c, c->count, c->recvcount, c->recv.out ? c->recvcount : c->count, why);
}

static MPI_Aint engine_block_v(const mcoll_call *c, const char **why)
{
    return c->recv.out ? mcoll_block_matching(c, c->count, c->recvcounts[c->root], 0, why) : 0;
}

/* A host recvbuf at the root has been replaced by device scratch memory (engine_root.c). */
static mcoll_result engine(const mcoll_call *c, const mcoll_decision *d)
{
    return mcoll_engine_gather(c->cs, d, c->sendbuf, c->recvbuf, c->root);
}

static mcoll_result engine_v(const mcoll_call *c, const mcoll_decision *d)
{
    mcoll_engine_blocks recv;
    (void)d;
    if (c->recv.out) mcoll_engine_blocks_set(&recv, c->recvbuf, c->recv.size, c->cs->size, c->recvcounts, c->rdispls);
    return mcoll_engine_gatherv(c->cs, c->sendbuf, (size_t)c->count * (size_t)c->send.size,
                                c->recv.out ? &recv : NULL, c->root);
}

static int mpi(const mcoll_call *c, const void *sendbuf, void *recvbuf, int count)
{
    (void)count;
    return mcoll_next_Gather(sendbuf, c->count, c->type, recvbuf, c->recvcount, c->recvtype, c->root, c->comm);
}

static int mpi_v(const mcoll_call *c, const void *sendbuf, void *recvbuf, int count)
{
    (void)count;
    return mcoll_next_Gatherv(sendbuf, c->count, c->type, recvbuf, c->recvcounts, c->rdispls, c->recvtype, c->root,
                        c->comm);
}

const mcoll_coll mcoll_coll_gather = {"gather", 0, validate, layout, engine_block, engine, mpi, 0, 0};
const mcoll_coll mcoll_coll_gatherv = {"gatherv", 0, validate, layout, engine_block_v, engine_v, mpi_v, 1, 0};

int mcoll_mpi_gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                     MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    mcoll_call c = {.coll = &mcoll_coll_gather, .sendbuf = sendbuf, .recvbuf = recvbuf, .count = sendcount,
                    .recvcount = recvcount, .type = sendtype, .recvtype = recvtype, .op = MPI_OP_NULL, .root = root,
                    .comm = comm};
    return mcoll_pmpi_run(&c);
}

int mcoll_mpi_gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    mcoll_call c = {.coll = &mcoll_coll_gatherv, .sendbuf = sendbuf, .recvbuf = recvbuf, .count = sendcount,
                    .recvcounts = recvcounts, .rdispls = displs, .type = sendtype, .recvtype = recvtype,
                    .op = MPI_OP_NULL, .root = root, .comm = comm};
    return mcoll_pmpi_run(&c);
}

int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
               MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    return mcoll_mpi_gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
}

int MPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    return mcoll_mpi_gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm);
}
