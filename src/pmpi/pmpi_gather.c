/* MPI_Gather and MPI_Gatherv. Every leaf sends one block; the root's recvbuf holds one block per
 * rank of the (remote) group (gatherv: recvcounts[i] elements at displs[i]) and means nothing
 * elsewhere. MPI_IN_PLACE as sendbuf at the root of an intracommunicator: its block is already
 * in recvbuf. Staged whole; a later GPU engine plugs in as `engine`. */
#include "pmpi.h"
#include "validate.h"

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

const mcoll_coll mcoll_coll_gather = {"gather", 0, validate, layout, NULL, NULL, mpi};
const mcoll_coll mcoll_coll_gatherv = {"gatherv", 0, validate, layout, NULL, NULL, mpi_v};

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
