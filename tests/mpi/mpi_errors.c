/* Bad arguments to every intercepted call: each raises the expected MPI error class through
 * the communicator's error handler (MPI_ERRORS_RETURN here, so it comes back as the return
 * value; MPI_COMM_WORLD's handler for MPI_COMM_NULL and for MPI_Reduce_local), and no user
 * buffer is written. */
#include <stdio.h>
#include <string.h>
#include <mpi.h>
#include "mcoll.h"

#define N 8
static int failures, checks;
static int sendbuf[N * 8], recvbuf[N * 8];
static int rank, size;

static void reset(void)
{
    int i;
    for (i = 0; i < N * 8; i++) sendbuf[i] = 1000 + i, recvbuf[i] = -1;
}

static int untouched(void)
{
    int i;
    for (i = 0; i < N * 8; i++)
        if (sendbuf[i] != 1000 + i || recvbuf[i] != -1) return 0;
    return 1;
}

static void expect(const char *what, int rc, int want)
{
    int cls = rc;
    if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
    checks++;
    if (cls != want) {
        fprintf(stderr, "rank %d: FAIL %s: class %d, expected %d\n", rank, what, cls, want);
        failures++;
    } else if (!untouched()) {
        fprintf(stderr, "rank %d: FAIL %s: a user buffer was written\n", rank, what);
        failures++;
    }
    reset();
}

int main(int argc, char **argv)
{
    MPI_Datatype uncommitted, ints[64], null_types[64], uncommitted_types[64];
    MPI_Comm inter, half, ring;
    int counts[64], neg_counts[64], displs[64], neg_pair[2] = {1, -1}, i, total = 0, all_checks = 0, dims[1], periods[1] = {1};
    MPI_Aint bdispls[64];
    void *ip = MPI_IN_PLACE;
    const int root_bad = 99;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Type_contiguous(2, MPI_INT, &uncommitted);
    for (i = 0; i < 64; i++) {
        counts[i] = 1, neg_counts[i] = i == size - 1 ? -1 : 1, displs[i] = i, bdispls[i] = 4 * i;
        ints[i] = MPI_INT, null_types[i] = i == size - 1 ? MPI_DATATYPE_NULL : MPI_INT, uncommitted_types[i] = uncommitted;
    }
    dims[0] = size;
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
    MPI_Comm_set_errhandler(ring, MPI_ERRORS_RETURN);
    reset();

    /* MPI_Allreduce */
    expect("allreduce count -1", MPI_Allreduce(sendbuf, recvbuf, -1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_COUNT);
    expect("allreduce NULL sendbuf", MPI_Allreduce(NULL, recvbuf, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    expect("allreduce NULL recvbuf", MPI_Allreduce(sendbuf, NULL, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    expect("allreduce MPI_DATATYPE_NULL", MPI_Allreduce(sendbuf, recvbuf, N, MPI_DATATYPE_NULL, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_TYPE);
    expect("allreduce uncommitted type", MPI_Allreduce(sendbuf, recvbuf, 2, uncommitted, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_TYPE);
    expect("allreduce MPI_OP_NULL", MPI_Allreduce(sendbuf, recvbuf, N, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD), MPI_ERR_OP);
    expect("allreduce MPI_BAND on float", MPI_Allreduce(sendbuf, recvbuf, N, MPI_FLOAT, MPI_BAND, MPI_COMM_WORLD), MPI_ERR_OP);
    expect("allreduce MPI_MAXLOC on int", MPI_Allreduce(sendbuf, recvbuf, N, MPI_INT, MPI_MAXLOC, MPI_COMM_WORLD), MPI_ERR_OP);
    expect("allreduce MPI_COMM_NULL", MPI_Allreduce(sendbuf, recvbuf, N, MPI_INT, MPI_SUM, MPI_COMM_NULL), MPI_ERR_COMM);
    expect("allreduce recvbuf MPI_IN_PLACE", MPI_Allreduce(sendbuf, ip, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_ARG);
    expect("allreduce sendbuf == recvbuf", MPI_Allreduce(recvbuf, recvbuf, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    expect("allreduce MPI_BAND on MCOLL_FLOAT16", MPI_Allreduce(sendbuf, recvbuf, N, MCOLL_FLOAT16, MPI_BAND, MPI_COMM_WORLD), MPI_ERR_OP);

    /* MPI_Bcast */
    expect("bcast count -1", MPI_Bcast(recvbuf, -1, MPI_INT, 0, MPI_COMM_WORLD), MPI_ERR_COUNT);
    expect("bcast root -1", MPI_Bcast(recvbuf, N, MPI_INT, -1, MPI_COMM_WORLD), MPI_ERR_ROOT);
    expect("bcast root = size", MPI_Bcast(recvbuf, N, MPI_INT, size, MPI_COMM_WORLD), MPI_ERR_ROOT);
    expect("bcast NULL buffer", MPI_Bcast(NULL, N, MPI_INT, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    expect("bcast MPI_IN_PLACE buffer", MPI_Bcast(ip, N, MPI_INT, 0, MPI_COMM_WORLD), MPI_ERR_ARG);
    expect("bcast MPI_DATATYPE_NULL", MPI_Bcast(recvbuf, N, MPI_DATATYPE_NULL, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);
    expect("bcast uncommitted type", MPI_Bcast(recvbuf, 1, uncommitted, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);
    expect("bcast MPI_COMM_NULL", MPI_Bcast(recvbuf, N, MPI_INT, 0, MPI_COMM_NULL), MPI_ERR_COMM);

    /* MPI_Reduce */
    expect("reduce root 99", MPI_Reduce(sendbuf, recvbuf, N, MPI_INT, MPI_SUM, root_bad, MPI_COMM_WORLD), MPI_ERR_ROOT);
    expect("reduce count -1", MPI_Reduce(sendbuf, recvbuf, -1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD), MPI_ERR_COUNT);
    expect("reduce MPI_OP_NULL", MPI_Reduce(sendbuf, recvbuf, N, MPI_INT, MPI_OP_NULL, 0, MPI_COMM_WORLD), MPI_ERR_OP);
    expect("reduce MPI_DATATYPE_NULL", MPI_Reduce(sendbuf, recvbuf, N, MPI_DATATYPE_NULL, MPI_SUM, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);
    expect("reduce NULL sendbuf", MPI_Reduce(NULL, recvbuf, N, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    /* MPI_IN_PLACE as sendbuf is for the root only; as recvbuf never at the root. */
    expect("reduce MPI_IN_PLACE sendbuf off the root",
           MPI_Reduce(rank == 1 ? ip : sendbuf, recvbuf, N, MPI_INT, MPI_SUM, rank == 1 ? 0 : root_bad, MPI_COMM_WORLD),
           rank == 1 ? MPI_ERR_ARG : MPI_ERR_ROOT);
    expect("reduce recvbuf MPI_IN_PLACE at the root",
           MPI_Reduce(sendbuf, ip, N, MPI_INT, MPI_SUM, rank == 0 ? 0 : root_bad, MPI_COMM_WORLD),
           rank == 0 ? MPI_ERR_ARG : MPI_ERR_ROOT);
    expect("reduce NULL recvbuf at the root",
           MPI_Reduce(sendbuf, NULL, N, MPI_INT, MPI_SUM, rank == 0 ? 0 : root_bad, MPI_COMM_WORLD),
           rank == 0 ? MPI_ERR_BUFFER : MPI_ERR_ROOT);
    expect("reduce MPI_COMM_NULL", MPI_Reduce(sendbuf, recvbuf, N, MPI_INT, MPI_SUM, 0, MPI_COMM_NULL), MPI_ERR_COMM);

    /* MPI_Reduce_scatter_block, MPI_Reduce_scatter */
    expect("reduce_scatter_block count -1", MPI_Reduce_scatter_block(sendbuf, recvbuf, -1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_COUNT);
    expect("reduce_scatter_block recvbuf MPI_IN_PLACE", MPI_Reduce_scatter_block(sendbuf, ip, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_ARG);
    expect("reduce_scatter_block MPI_OP_NULL", MPI_Reduce_scatter_block(sendbuf, recvbuf, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD), MPI_ERR_OP);
    expect("reduce_scatter_block MPI_DATATYPE_NULL", MPI_Reduce_scatter_block(sendbuf, recvbuf, 1, MPI_DATATYPE_NULL, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_TYPE);
    expect("reduce_scatter_block NULL recvbuf", MPI_Reduce_scatter_block(sendbuf, NULL, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    expect("reduce_scatter_block MPI_COMM_NULL", MPI_Reduce_scatter_block(sendbuf, recvbuf, 1, MPI_INT, MPI_SUM, MPI_COMM_NULL), MPI_ERR_COMM);
    expect("reduce_scatter negative count", MPI_Reduce_scatter(sendbuf, recvbuf, neg_counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_COUNT);
    expect("reduce_scatter NULL recvcounts", MPI_Reduce_scatter(sendbuf, recvbuf, NULL, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_COUNT);
    expect("reduce_scatter recvbuf MPI_IN_PLACE", MPI_Reduce_scatter(sendbuf, ip, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_ARG);
    expect("reduce_scatter MPI_LOR on double", MPI_Reduce_scatter(sendbuf, recvbuf, counts, MPI_DOUBLE, MPI_LOR, MPI_COMM_WORLD), MPI_ERR_OP);

    /* MPI_Allgather */
    expect("allgather sendcount -1", MPI_Allgather(sendbuf, -1, MPI_INT, recvbuf, 1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_COUNT);
    expect("allgather recvcount -1", MPI_Allgather(sendbuf, 1, MPI_INT, recvbuf, -1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_COUNT);
    expect("allgather recvbuf MPI_IN_PLACE", MPI_Allgather(sendbuf, 1, MPI_INT, ip, 1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_ARG);
    expect("allgather sendtype MPI_DATATYPE_NULL", MPI_Allgather(sendbuf, 1, MPI_DATATYPE_NULL, recvbuf, 1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_TYPE);
    expect("allgather recvtype uncommitted", MPI_Allgather(sendbuf, 2, MPI_INT, recvbuf, 1, uncommitted, MPI_COMM_WORLD), MPI_ERR_TYPE);
    expect("allgather NULL recvbuf", MPI_Allgather(sendbuf, 1, MPI_INT, NULL, 1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    expect("allgather MPI_COMM_NULL", MPI_Allgather(sendbuf, 1, MPI_INT, recvbuf, 1, MPI_INT, MPI_COMM_NULL), MPI_ERR_COMM);

    /* sendbuf == recvbuf: MPI forbids it, Open MPI computes it for these two, and a rank that
     * refused it while others went on would leave them waiting. Computed like MPI_IN_PLACE. */
    for (i = 0; i < N * 8; i++) recvbuf[i] = rank + 1;
    checks++;
    if (MPI_Reduce_scatter_block(recvbuf, recvbuf, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD) != MPI_SUCCESS ||
        recvbuf[0] != size * (size + 1) / 2 || recvbuf[1] != size * (size + 1) / 2) {
        fprintf(stderr, "rank %d: FAIL reduce_scatter_block sendbuf == recvbuf: not computed\n", rank);
        failures++;
    }
    for (i = 0; i < N * 8; i++) recvbuf[i] = rank * 100 + i;
    checks++;
    if (MPI_Allgather(recvbuf, 1, MPI_INT, recvbuf, 1, MPI_INT, MPI_COMM_WORLD) != MPI_SUCCESS ||
        recvbuf[size - 1] != (size - 1) * 100) {
        fprintf(stderr, "rank %d: FAIL allgather sendbuf == recvbuf: not computed\n", rank);
        failures++;
    }
    reset();

    /* MPI_Barrier */
    expect("barrier MPI_COMM_NULL", MPI_Barrier(MPI_COMM_NULL), MPI_ERR_COMM);

    /* MPI_Allgatherv */
    expect("allgatherv negative recvcount", MPI_Allgatherv(sendbuf, 1, MPI_INT, recvbuf, neg_counts, displs, MPI_INT, MPI_COMM_WORLD), MPI_ERR_COUNT);
    expect("allgatherv NULL recvcounts", MPI_Allgatherv(sendbuf, 1, MPI_INT, recvbuf, NULL, displs, MPI_INT, MPI_COMM_WORLD), MPI_ERR_COUNT);
    expect("allgatherv NULL displs", MPI_Allgatherv(sendbuf, 1, MPI_INT, recvbuf, counts, NULL, MPI_INT, MPI_COMM_WORLD), MPI_ERR_ARG);
    expect("allgatherv recvbuf MPI_IN_PLACE", MPI_Allgatherv(sendbuf, 1, MPI_INT, ip, counts, displs, MPI_INT, MPI_COMM_WORLD), MPI_ERR_ARG);
    expect("allgatherv sendtype MPI_DATATYPE_NULL", MPI_Allgatherv(sendbuf, 1, MPI_DATATYPE_NULL, recvbuf, counts, displs, MPI_INT, MPI_COMM_WORLD), MPI_ERR_TYPE);
    expect("allgatherv NULL recvbuf", MPI_Allgatherv(sendbuf, 1, MPI_INT, NULL, counts, displs, MPI_INT, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    expect("allgatherv MPI_COMM_NULL", MPI_Allgatherv(sendbuf, 1, MPI_INT, recvbuf, counts, displs, MPI_INT, MPI_COMM_NULL), MPI_ERR_COMM);

    /* MPI_Alltoall, MPI_Alltoallv, MPI_Alltoallw */
    expect("alltoall sendcount -1", MPI_Alltoall(sendbuf, -1, MPI_INT, recvbuf, 1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_COUNT);
    expect("alltoall recvbuf MPI_IN_PLACE", MPI_Alltoall(sendbuf, 1, MPI_INT, ip, 1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_ARG);
    expect("alltoall blocks of different sizes", MPI_Alltoall(sendbuf, 2, MPI_INT, recvbuf, 1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_TRUNCATE);
    expect("alltoall uncommitted recvtype", MPI_Alltoall(sendbuf, 2, MPI_INT, recvbuf, 1, uncommitted, MPI_COMM_WORLD), MPI_ERR_TYPE);
    expect("alltoall MPI_COMM_NULL", MPI_Alltoall(sendbuf, 1, MPI_INT, recvbuf, 1, MPI_INT, MPI_COMM_NULL), MPI_ERR_COMM);
    expect("alltoallv NULL sendcounts", MPI_Alltoallv(sendbuf, NULL, displs, MPI_INT, recvbuf, counts, displs, MPI_INT, MPI_COMM_WORLD), MPI_ERR_COUNT);
    expect("alltoallv NULL rdispls", MPI_Alltoallv(sendbuf, counts, displs, MPI_INT, recvbuf, counts, NULL, MPI_INT, MPI_COMM_WORLD), MPI_ERR_ARG);
    expect("alltoallv negative recvcount", MPI_Alltoallv(sendbuf, counts, displs, MPI_INT, recvbuf, neg_counts, displs, MPI_INT, MPI_COMM_WORLD), MPI_ERR_COUNT);
    expect("alltoallv NULL sendbuf", MPI_Alltoallv(NULL, counts, displs, MPI_INT, recvbuf, counts, displs, MPI_INT, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    expect("alltoallw NULL sendtypes", MPI_Alltoallw(sendbuf, counts, displs, NULL, recvbuf, counts, displs, ints, MPI_COMM_WORLD), MPI_ERR_ARG);
    expect("alltoallw a MPI_DATATYPE_NULL", MPI_Alltoallw(sendbuf, counts, displs, ints, recvbuf, counts, displs, null_types, MPI_COMM_WORLD), MPI_ERR_TYPE);
    expect("alltoallw uncommitted types", MPI_Alltoallw(sendbuf, counts, displs, uncommitted_types, recvbuf, counts, displs, ints, MPI_COMM_WORLD), MPI_ERR_TYPE);
    expect("alltoallw recvbuf MPI_IN_PLACE", MPI_Alltoallw(sendbuf, counts, displs, ints, ip, counts, displs, ints, MPI_COMM_WORLD), MPI_ERR_ARG);

    /* MPI_Gather, MPI_Gatherv, MPI_Scatter, MPI_Scatterv: ranks that would take part get the
     * error under test, the others a bad root, so that nobody waits. */
    expect("gather root 99", MPI_Gather(sendbuf, 1, MPI_INT, recvbuf, 1, MPI_INT, root_bad, MPI_COMM_WORLD), MPI_ERR_ROOT);
    expect("gather sendcount -1", MPI_Gather(sendbuf, -1, MPI_INT, recvbuf, 1, MPI_INT, 0, MPI_COMM_WORLD), MPI_ERR_COUNT);
    expect("gather MPI_IN_PLACE sendbuf off the root",
           MPI_Gather(rank == 1 ? ip : sendbuf, 1, MPI_INT, recvbuf, 1, MPI_INT, rank == 1 ? 0 : root_bad, MPI_COMM_WORLD),
           rank == 1 ? MPI_ERR_ARG : MPI_ERR_ROOT);
    expect("gather recvcount -1 at the root",
           MPI_Gather(sendbuf, 1, MPI_INT, recvbuf, -1, MPI_INT, rank == 0 ? 0 : root_bad, MPI_COMM_WORLD),
           rank == 0 ? MPI_ERR_COUNT : MPI_ERR_ROOT);
    expect("gather NULL recvbuf at the root",
           MPI_Gather(sendbuf, 1, MPI_INT, NULL, 1, MPI_INT, rank == 0 ? 0 : root_bad, MPI_COMM_WORLD),
           rank == 0 ? MPI_ERR_BUFFER : MPI_ERR_ROOT);
    expect("gatherv NULL recvcounts at the root",
           MPI_Gatherv(sendbuf, 1, MPI_INT, recvbuf, NULL, displs, MPI_INT, rank == 0 ? 0 : root_bad, MPI_COMM_WORLD),
           rank == 0 ? MPI_ERR_COUNT : MPI_ERR_ROOT);
    expect("gatherv MPI_COMM_NULL", MPI_Gatherv(sendbuf, 1, MPI_INT, recvbuf, counts, displs, MPI_INT, 0, MPI_COMM_NULL), MPI_ERR_COMM);
    expect("scatter root -1", MPI_Scatter(sendbuf, 1, MPI_INT, recvbuf, 1, MPI_INT, -1, MPI_COMM_WORLD), MPI_ERR_ROOT);
    expect("scatter recvtype MPI_DATATYPE_NULL", MPI_Scatter(sendbuf, 1, MPI_INT, recvbuf, 1, MPI_DATATYPE_NULL, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);
    expect("scatter MPI_IN_PLACE recvbuf off the root",
           MPI_Scatter(sendbuf, 1, MPI_INT, rank == 1 ? ip : recvbuf, 1, MPI_INT, rank == 1 ? 0 : root_bad, MPI_COMM_WORLD),
           rank == 1 ? MPI_ERR_ARG : MPI_ERR_ROOT);
    expect("scatter MPI_IN_PLACE sendbuf at the root",
           MPI_Scatter(rank == 0 ? ip : sendbuf, 1, MPI_INT, recvbuf, 1, MPI_INT, rank == 0 ? 0 : root_bad, MPI_COMM_WORLD),
           rank == 0 ? MPI_ERR_ARG : MPI_ERR_ROOT);
    expect("scatterv NULL displs at the root",
           MPI_Scatterv(sendbuf, counts, NULL, MPI_INT, recvbuf, 1, MPI_INT, rank == 0 ? 0 : root_bad, MPI_COMM_WORLD),
           rank == 0 ? MPI_ERR_ARG : MPI_ERR_ROOT);

    /* MPI_Scan, MPI_Exscan, MPI_Reduce_local (no communicator: MPI_COMM_WORLD's handler; MPI_COMM_SELF's
     * is still MPI_ERRORS_ARE_FATAL, so an error raised there would end the test) */
    expect("scan count -1", MPI_Scan(sendbuf, recvbuf, -1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_COUNT);
    expect("scan MPI_OP_NULL", MPI_Scan(sendbuf, recvbuf, N, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD), MPI_ERR_OP);
    expect("scan recvbuf MPI_IN_PLACE", MPI_Scan(sendbuf, ip, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_ARG);
    expect("scan sendbuf == recvbuf", MPI_Scan(recvbuf, recvbuf, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    expect("exscan MPI_BAND on float", MPI_Exscan(sendbuf, recvbuf, N, MPI_FLOAT, MPI_BAND, MPI_COMM_WORLD), MPI_ERR_OP);
    expect("exscan MPI_COMM_NULL", MPI_Exscan(sendbuf, recvbuf, N, MPI_INT, MPI_SUM, MPI_COMM_NULL), MPI_ERR_COMM);
    expect("reduce_local MPI_OP_NULL", MPI_Reduce_local(sendbuf, recvbuf, N, MPI_INT, MPI_OP_NULL), MPI_ERR_OP);
    expect("reduce_local count -1", MPI_Reduce_local(sendbuf, recvbuf, -1, MPI_INT, MPI_SUM), MPI_ERR_COUNT);
    expect("reduce_local MPI_DATATYPE_NULL", MPI_Reduce_local(sendbuf, recvbuf, N, MPI_DATATYPE_NULL, MPI_SUM), MPI_ERR_TYPE);
    expect("reduce_local MPI_IN_PLACE", MPI_Reduce_local(ip, recvbuf, N, MPI_INT, MPI_SUM), MPI_ERR_ARG);
    expect("reduce_local NULL inoutbuf", MPI_Reduce_local(sendbuf, NULL, N, MPI_INT, MPI_SUM), MPI_ERR_BUFFER);
    expect("reduce_local MPI_MAXLOC on int", MPI_Reduce_local(sendbuf, recvbuf, N, MPI_INT, MPI_MAXLOC), MPI_ERR_OP);

    /* The neighbourhood collectives: a communicator with a topology, no MPI_IN_PLACE */
    expect("neighbor_allgather without topology", MPI_Neighbor_allgather(sendbuf, 1, MPI_INT, recvbuf, 1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_TOPOLOGY);
    expect("neighbor_alltoallw without topology", MPI_Neighbor_alltoallw(sendbuf, counts, bdispls, ints, recvbuf, counts, bdispls, ints, MPI_COMM_WORLD), MPI_ERR_TOPOLOGY);
    expect("neighbor_allgather MPI_IN_PLACE", MPI_Neighbor_allgather(ip, 1, MPI_INT, recvbuf, 1, MPI_INT, ring), MPI_ERR_ARG);
    expect("neighbor_allgatherv negative recvcount", MPI_Neighbor_allgatherv(sendbuf, 1, MPI_INT, recvbuf, neg_pair, displs, MPI_INT, ring), MPI_ERR_COUNT);
    expect("neighbor_alltoall blocks of different sizes", MPI_Neighbor_alltoall(sendbuf, 1, MPI_INT, recvbuf, 2, MPI_INT, ring), MPI_ERR_TRUNCATE);
    expect("neighbor_alltoallv NULL sdispls", MPI_Neighbor_alltoallv(sendbuf, counts, NULL, MPI_INT, recvbuf, counts, displs, MPI_INT, ring), MPI_ERR_ARG);
    expect("neighbor_alltoallw uncommitted types", MPI_Neighbor_alltoallw(sendbuf, counts, bdispls, ints, recvbuf, counts, bdispls, uncommitted_types, ring), MPI_ERR_TYPE);
    expect("neighbor_alltoall MPI_COMM_NULL", MPI_Neighbor_alltoall(sendbuf, 1, MPI_INT, recvbuf, 1, MPI_INT, MPI_COMM_NULL), MPI_ERR_COMM);

    /* On a communicator with its own handler, and on an intercommunicator (no MPI_IN_PLACE;
     * roots are MPI_ROOT, MPI_PROC_NULL or a remote rank). */
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    MPI_Comm_set_errhandler(half, MPI_ERRORS_RETURN);
    expect("split: allreduce count -1", MPI_Allreduce(sendbuf, recvbuf, -1, MPI_INT, MPI_SUM, half), MPI_ERR_COUNT);
    if (size >= 2) {
        MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 ? 0 : 1, 7, &inter);
        MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
        expect("intercomm: allreduce MPI_IN_PLACE", MPI_Allreduce(ip, recvbuf, N, MPI_INT, MPI_SUM, inter), MPI_ERR_ARG);
        expect("intercomm: bcast root -5", MPI_Bcast(recvbuf, N, MPI_INT, -5, inter), MPI_ERR_ROOT);
        expect("intercomm: reduce root 99", MPI_Reduce(sendbuf, recvbuf, N, MPI_INT, MPI_SUM, root_bad, inter), MPI_ERR_ROOT);
        expect("intercomm: scan", MPI_Scan(sendbuf, recvbuf, N, MPI_INT, MPI_SUM, inter), MPI_ERR_COMM);
        expect("intercomm: exscan", MPI_Exscan(sendbuf, recvbuf, N, MPI_INT, MPI_SUM, inter), MPI_ERR_COMM);
        expect("intercomm: alltoall MPI_IN_PLACE", MPI_Alltoall(ip, 1, MPI_INT, recvbuf, 1, MPI_INT, inter), MPI_ERR_ARG);
        expect("intercomm: gather MPI_IN_PLACE at MPI_ROOT",
               MPI_Gather(rank == 0 ? ip : sendbuf, 1, MPI_INT, recvbuf, 1, MPI_INT, rank == 0 ? MPI_ROOT : root_bad, inter),
               rank == 0 ? MPI_ERR_ARG : MPI_ERR_ROOT);
        expect("intercomm: scatter root 99", MPI_Scatter(sendbuf, 1, MPI_INT, recvbuf, 1, MPI_INT, root_bad, inter), MPI_ERR_ROOT);
        expect("intercomm: neighbor_alltoall", MPI_Neighbor_alltoall(sendbuf, 1, MPI_INT, recvbuf, 1, MPI_INT, inter), MPI_ERR_COMM);
        MPI_Comm_free(&inter);
    }
    MPI_Comm_free(&half);
    MPI_Comm_free(&ring);

    MPI_Type_free(&uncommitted);
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&checks, &all_checks, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) printf("mpi_errors: %d checks, %d failures\n", all_checks, total);
    MPI_Finalize();
    return total ? 1 : 0;
}
