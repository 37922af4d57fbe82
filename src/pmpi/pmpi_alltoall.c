/* MPI_Alltoall, MPI_Alltoallv and MPI_Alltoallw. Each buffer holds one block per rank of the
 * (remote) group: sendcount/recvcount elements at block i (alltoall), counts[i] elements at
 * element displs[i] (alltoallv), counts[i] elements of types[i] at byte displs[i] (alltoallw).
 * With MPI_IN_PLACE (intracommunicators only) the blocks are read from recvbuf and replaced,
 * and the send arguments are ignored. Alltoall and alltoallv run on the engines (alltoallv's
 * counts are known to each rank alone, so the ranks agree on it: decide.c); alltoallw is staged
 * whole. */
#include "pmpi.h"
#include "validate.h"
#include "engine.h"

static int vector(const mcoll_call *c) { return c->coll == &mcoll_coll_alltoallv; }

static int check_in_place(const mcoll_call *c)
{
    if (c->recvbuf == MPI_IN_PLACE || (c->sendbuf == MPI_IN_PLACE && c->cs->is_inter)) return MPI_ERR_ARG;
    return MPI_SUCCESS;
}

static int validate(const mcoll_call *c)
{
    int n = c->cs->remote_size, v = vector(c), me = c->cs->rank, in_place = c->sendbuf == MPI_IN_PLACE;
    int err = check_in_place(c);
    if (err == MPI_SUCCESS && !in_place)
        err = mcoll_check_side(c->sendbuf, c->type, c->info, n, v, c->sendcounts, c->sdispls, c->count);
    if (err == MPI_SUCCESS)
        err = mcoll_check_side(c->recvbuf, c->recvtype, c->recvinfo, n, v, c->recvcounts, c->rdispls, c->recvcount);
    if (err == MPI_SUCCESS && !in_place && !c->cs->is_inter)
        err = mcoll_check_own_block(c->type, v ? c->sendcounts[me] : c->count, c->recvtype,
                                    v ? c->recvcounts[me] : c->recvcount);
    if (err == MPI_SUCCESS && !in_place)
        err = mcoll_check_alias(c->sendbuf, c->recvbuf, v ? mcoll_blocks_hold_data(c->sendcounts, n) : c->count);
    return err;
}

static void layout(mcoll_call *c)
{
    int n = c->cs->remote_size, v = vector(c), in_place = c->sendbuf == MPI_IN_PLACE;
    if (!in_place)
        mcoll_buf_blocks(&c->send, c->sendbuf, c->type, n, v ? c->sendcounts : NULL, c->sdispls, c->count, 1, 0);
    mcoll_buf_blocks(&c->recv, c->recvbuf, c->recvtype, n, v ? c->recvcounts : NULL, c->rdispls, c->recvcount,
                     in_place, 1);
}

/* No NULL-buffer check: MPI_BOTTOM with absolute byte displacements is how alltoallw is used. */
static int validate_w(const mcoll_call *c)
{
    int n = c->cs->remote_size, me = c->cs->rank, in_place = c->sendbuf == MPI_IN_PLACE;
    int err = check_in_place(c);
    if (err == MPI_SUCCESS && !in_place) err = mcoll_check_blocks(c->sendcounts, c->sdispls, n);
    if (err == MPI_SUCCESS && !in_place) err = mcoll_check_block_types(c->sendtypes, c->sendcounts, n);
    if (err == MPI_SUCCESS) err = mcoll_check_blocks(c->recvcounts, c->rdispls, n);
    if (err == MPI_SUCCESS) err = mcoll_check_block_types(c->recvtypes, c->recvcounts, n);
    if (err == MPI_SUCCESS && !in_place && !c->cs->is_inter)
        err = mcoll_check_own_block(c->sendtypes[me], c->sendcounts[me], c->recvtypes[me], c->recvcounts[me]);
    return err;
}

static void layout_w(mcoll_call *c)
{
    int n = c->cs->remote_size, in_place = c->sendbuf == MPI_IN_PLACE;
    if (!in_place) mcoll_buf_blocks_w(&c->send, c->sendbuf, n, c->sendcounts, c->sdispls, NULL, c->sendtypes, 1, 0);
    mcoll_buf_blocks_w(&c->recv, c->recvbuf, n, c->recvcounts, c->rdispls, NULL, c->recvtypes, in_place, 1);
}

static MPI_Aint engine_block(const mcoll_call *c, const char **why)
{
    return mcoll_block_matching(c, c->count, c->recvcount, c->recvcount, why);
}

/* Each rank's own block is checked by validate; the other pairs are MPI's to match. */
static MPI_Aint engine_block_v(const mcoll_call *c, const char **why)
{
    (void)c;
    (void)why;
    return 0;
}

static mcoll_result engine(const mcoll_call *c, const mcoll_decision *d)
{
    return mcoll_engine_alltoall(c->cs, d, c->sendbuf, c->recvbuf);
}

static mcoll_result engine_v(const mcoll_call *c, const mcoll_decision *d)
{
    mcoll_engine_blocks send, recv;
    int n = c->cs->size;
    (void)d;
    mcoll_engine_blocks_set(&send, c->sendbuf, c->send.size, n, c->sendcounts, c->sdispls);
    mcoll_engine_blocks_set(&recv, c->recvbuf, c->recv.size, n, c->recvcounts, c->rdispls);
    return mcoll_engine_alltoallv(c->cs, &send, &recv);
}

static int mpi(const mcoll_call *c, const void *sendbuf, void *recvbuf, int count)
{
    (void)count;
    return mcoll_next_Alltoall(sendbuf, c->count, c->type, recvbuf, c->recvcount, c->recvtype, c->comm);
}

static int mpi_v(const mcoll_call *c, const void *sendbuf, void *recvbuf, int count)
{
    (void)count;
    return mcoll_next_Alltoallv(sendbuf, c->sendcounts, c->sdispls, c->type, recvbuf, c->recvcounts, c->rdispls,
                          c->recvtype, c->comm);
}

static int mpi_w(const mcoll_call *c, const void *sendbuf, void *recvbuf, int count)
{
    (void)count;
    return mcoll_next_Alltoallw(sendbuf, c->sendcounts, c->sdispls, c->sendtypes, recvbuf, c->recvcounts, c->rdispls,
                          c->recvtypes, c->comm);
}

const mcoll_coll mcoll_coll_alltoall = {"alltoall", 0, validate, layout, engine_block, engine, mpi, 0, 0};
const mcoll_coll mcoll_coll_alltoallv = {"alltoallv", 0, validate, layout, engine_block_v, engine_v, mpi_v, 1, 0};
const mcoll_coll mcoll_coll_alltoallw = {"alltoallw", 0, validate_w, layout_w, NULL, NULL, mpi_w, 0, 0};

int mcoll_mpi_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                       MPI_Datatype recvtype, MPI_Comm comm)
{
    mcoll_call c = {.coll = &mcoll_coll_alltoall, .sendbuf = sendbuf, .recvbuf = recvbuf, .count = sendcount,
                    .recvcount = recvcount, .type = sendtype, .recvtype = recvtype, .op = MPI_OP_NULL, .comm = comm};
    return mcoll_pmpi_run(&c);
}

int mcoll_mpi_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                        void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                        MPI_Comm comm)
{
    mcoll_call c = {.coll = &mcoll_coll_alltoallv, .sendbuf = sendbuf, .recvbuf = recvbuf, .sendcounts = sendcounts,
                    .sdispls = sdispls, .recvcounts = recvcounts, .rdispls = rdispls, .type = sendtype,
                    .recvtype = recvtype, .op = MPI_OP_NULL, .comm = comm};
    return mcoll_pmpi_run(&c);
}

int mcoll_mpi_alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                        const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[],
                        const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    mcoll_call c = {.coll = &mcoll_coll_alltoallw, .sendbuf = sendbuf, .recvbuf = recvbuf, .sendcounts = sendcounts,
                    .sdispls = sdispls, .recvcounts = recvcounts, .rdispls = rdispls, .sendtypes = sendtypes,
                    .recvtypes = recvtypes, .type = MPI_DATATYPE_NULL, .recvtype = MPI_DATATYPE_NULL,
                    .op = MPI_OP_NULL, .comm = comm};
    return mcoll_pmpi_run(&c);
}

int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                 MPI_Datatype recvtype, MPI_Comm comm)
{
    return mcoll_mpi_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

int MPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                  void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    return mcoll_mpi_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm);
}

int MPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[],
                  void *recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[],
                  MPI_Comm comm)
{
    return mcoll_mpi_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes,
                               comm);
}
