/* MPI_Scatter and MPI_Scatterv: the mirror of gather. The root's sendbuf holds one block per rank
 * of the (remote) group (scatterv: sendcounts[i] elements at displs[i]) and means nothing
 * elsewhere; every leaf receives one block. MPI_IN_PLACE as recvbuf at the root of an
 * intracommunicator: its block stays in sendbuf. Staged whole; a later GPU engine plugs in as
 * `engine`. */
#include "pmpi.h"
#include "validate.h"

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

const mcoll_coll mcoll_coll_scatter = {"scatter", 0, validate, layout, NULL, NULL, mpi};
const mcoll_coll mcoll_coll_scatterv = {"scatterv", 0, validate, layout, NULL, NULL, mpi_v};

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
