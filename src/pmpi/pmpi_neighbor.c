/* The neighbourhood collectives: MPI_Neighbor_allgather, _allgatherv, _alltoall, _alltoallv and
 * _alltoallw, on a communicator with a Cartesian, graph or distributed graph topology. This rank
 * receives one block from each of its in-neighbours and sends one to each of its out-neighbours
 * (the allgathers send the same block to all). The blocks are laid out like those of allgather,
 * alltoall and their v and w variants, counted by the topology's degrees instead of the group
 * size. No MPI_IN_PLACE; no intercommunicators. Staged whole. */
#include "pmpi.h"
#include "validate.h"

static int gathers(const mcoll_call *c)
{
    return c->coll == &mcoll_coll_neighbor_allgather || c->coll == &mcoll_coll_neighbor_allgatherv;
}

static int vector(const mcoll_call *c)
{
    return c->coll == &mcoll_coll_neighbor_allgatherv || c->coll == &mcoll_coll_neighbor_alltoallv;
}

/* The communicator's degrees, and the checks every neighbourhood collective starts with. */
static int check_topology(const mcoll_call *c, int *indegree, int *outdegree)
{
    int err;
    if (c->cs->is_inter) return MPI_ERR_COMM;
    err = mcoll_neighbor_degrees(c->comm, indegree, outdegree);
    if (err != MPI_SUCCESS) return err;
    return c->sendbuf == MPI_IN_PLACE || c->recvbuf == MPI_IN_PLACE ? MPI_ERR_ARG : MPI_SUCCESS;
}

/* Blocks of sendbuf: the allgathers send one block to every out-neighbour. */
static int send_blocks(const mcoll_call *c, int outdegree) { return gathers(c) ? outdegree > 0 : outdegree; }

static int validate(const mcoll_call *c)
{
    int in, out, err = check_topology(c, &in, &out), sv = vector(c) && !gathers(c);
    if (err == MPI_SUCCESS)
        err = mcoll_check_side(c->sendbuf, c->type, c->info, send_blocks(c, out), sv, c->sendcounts, c->sdispls,
                               c->count);
    if (err == MPI_SUCCESS)
        err = mcoll_check_side(c->recvbuf, c->recvtype, c->recvinfo, in, vector(c), c->recvcounts, c->rdispls,
                               c->recvcount);
    if (err == MPI_SUCCESS && c->coll == &mcoll_coll_neighbor_alltoall)
        err = mcoll_check_own_block(c->type, c->count, c->recvtype, c->recvcount);
    return err;
}

static void layout(mcoll_call *c)
{
    int in, out, sv = vector(c) && !gathers(c);
    mcoll_neighbor_degrees(c->comm, &in, &out);
    mcoll_buf_blocks(&c->send, c->sendbuf, c->type, send_blocks(c, out), sv ? c->sendcounts : NULL, c->sdispls,
                     c->count, 1, 0);
    mcoll_buf_blocks(&c->recv, c->recvbuf, c->recvtype, in, vector(c) ? c->recvcounts : NULL, c->rdispls,
                     c->recvcount, 0, 1);
}

static int validate_w(const mcoll_call *c)
{
    int in, out, err = check_topology(c, &in, &out);
    if (err == MPI_SUCCESS) err = mcoll_check_blocks(c->sendcounts, c->sdispls_bytes, out);
    if (err == MPI_SUCCESS) err = mcoll_check_block_types(c->sendtypes, c->sendcounts, out);
    if (err == MPI_SUCCESS) err = mcoll_check_blocks(c->recvcounts, c->rdispls_bytes, in);
    if (err == MPI_SUCCESS) err = mcoll_check_block_types(c->recvtypes, c->recvcounts, in);
    return err;
}

static void layout_w(mcoll_call *c)
{
    int in, out;
    mcoll_neighbor_degrees(c->comm, &in, &out);
    mcoll_buf_blocks_w(&c->send, c->sendbuf, out, c->sendcounts, NULL, c->sdispls_bytes, c->sendtypes, 1, 0);
    mcoll_buf_blocks_w(&c->recv, c->recvbuf, in, c->recvcounts, NULL, c->rdispls_bytes, c->recvtypes, 0, 1);
}

static int mpi_allgather(const mcoll_call *c, const void *sendbuf, void *recvbuf, int count)
{
    (void)count;
    return mcoll_next_Neighbor_allgather(sendbuf, c->count, c->type, recvbuf, c->recvcount, c->recvtype, c->comm);
}

static int mpi_allgatherv(const mcoll_call *c, const void *sendbuf, void *recvbuf, int count)
{
    (void)count;
    return mcoll_next_Neighbor_allgatherv(sendbuf, c->count, c->type, recvbuf, c->recvcounts, c->rdispls, c->recvtype,
                                    c->comm);
}

static int mpi_alltoall(const mcoll_call *c, const void *sendbuf, void *recvbuf, int count)
{
    (void)count;
    return mcoll_next_Neighbor_alltoall(sendbuf, c->count, c->type, recvbuf, c->recvcount, c->recvtype, c->comm);
}

static int mpi_alltoallv(const mcoll_call *c, const void *sendbuf, void *recvbuf, int count)
{
    (void)count;
    return mcoll_next_Neighbor_alltoallv(sendbuf, c->sendcounts, c->sdispls, c->type, recvbuf, c->recvcounts, c->rdispls,
                                   c->recvtype, c->comm);
}

static int mpi_alltoallw(const mcoll_call *c, const void *sendbuf, void *recvbuf, int count)
{
    (void)count;
    return mcoll_next_Neighbor_alltoallw(sendbuf, c->sendcounts, c->sdispls_bytes, c->sendtypes, recvbuf, c->recvcounts,
                                   c->rdispls_bytes, c->recvtypes, c->comm);
}

const mcoll_coll mcoll_coll_neighbor_allgather = {"neighbor_allgather", 0, validate, layout, NULL, NULL, mpi_allgather, 0, 0};
const mcoll_coll mcoll_coll_neighbor_allgatherv = {"neighbor_allgatherv", 0, validate, layout, NULL, NULL,
                                                   mpi_allgatherv, 0, 0};
const mcoll_coll mcoll_coll_neighbor_alltoall = {"neighbor_alltoall", 0, validate, layout, NULL, NULL, mpi_alltoall, 0, 0};
const mcoll_coll mcoll_coll_neighbor_alltoallv = {"neighbor_alltoallv", 0, validate, layout, NULL, NULL,
                                                  mpi_alltoallv, 0, 0};
const mcoll_coll mcoll_coll_neighbor_alltoallw = {"neighbor_alltoallw", 0, validate_w, layout_w, NULL, NULL,
                                                  mpi_alltoallw, 0, 0};

int mcoll_mpi_neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    mcoll_call c = {.coll = &mcoll_coll_neighbor_allgather, .sendbuf = sendbuf, .recvbuf = recvbuf,
                    .count = sendcount, .recvcount = recvcount, .type = sendtype, .recvtype = recvtype,
                    .op = MPI_OP_NULL, .comm = comm};
    return mcoll_pmpi_run(&c);
}

int mcoll_mpi_neighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                  const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm)
{
    mcoll_call c = {.coll = &mcoll_coll_neighbor_allgatherv, .sendbuf = sendbuf, .recvbuf = recvbuf,
                    .count = sendcount, .recvcounts = recvcounts, .rdispls = displs, .type = sendtype,
                    .recvtype = recvtype, .op = MPI_OP_NULL, .comm = comm};
    return mcoll_pmpi_run(&c);
}

int mcoll_mpi_neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    mcoll_call c = {.coll = &mcoll_coll_neighbor_alltoall, .sendbuf = sendbuf, .recvbuf = recvbuf,
                    .count = sendcount, .recvcount = recvcount, .type = sendtype, .recvtype = recvtype,
                    .op = MPI_OP_NULL, .comm = comm};
    return mcoll_pmpi_run(&c);
}

int mcoll_mpi_neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                                 MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
                                 MPI_Datatype recvtype, MPI_Comm comm)
{
    mcoll_call c = {.coll = &mcoll_coll_neighbor_alltoallv, .sendbuf = sendbuf, .recvbuf = recvbuf,
                    .sendcounts = sendcounts, .sdispls = sdispls, .recvcounts = recvcounts, .rdispls = rdispls,
                    .type = sendtype, .recvtype = recvtype, .op = MPI_OP_NULL, .comm = comm};
    return mcoll_pmpi_run(&c);
}

int mcoll_mpi_neighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                                 const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                                 const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    mcoll_call c = {.coll = &mcoll_coll_neighbor_alltoallw, .sendbuf = sendbuf, .recvbuf = recvbuf,
                    .sendcounts = sendcounts, .sdispls_bytes = sdispls, .recvcounts = recvcounts,
                    .rdispls_bytes = rdispls, .sendtypes = sendtypes, .recvtypes = recvtypes,
                    .type = MPI_DATATYPE_NULL, .recvtype = MPI_DATATYPE_NULL, .op = MPI_OP_NULL, .comm = comm};
    return mcoll_pmpi_run(&c);
}

int MPI_Neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                           MPI_Datatype recvtype, MPI_Comm comm)
{
    return mcoll_mpi_neighbor_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

int MPI_Neighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                            const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm)
{
    return mcoll_mpi_neighbor_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
}

int MPI_Neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                          MPI_Datatype recvtype, MPI_Comm comm)
{
    return mcoll_mpi_neighbor_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

int MPI_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                           void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                           MPI_Comm comm)
{
    return mcoll_mpi_neighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                                        recvtype, comm);
}

int MPI_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                           const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                           const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    return mcoll_mpi_neighbor_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                                        recvtypes, comm);
}
