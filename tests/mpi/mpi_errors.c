/* Bad arguments to every intercepted call: each raises the expected MPI error class through
 * the communicator's error handler (MPI_ERRORS_RETURN here, so it comes back as the return
 * value; MPI_COMM_WORLD's handler for MPI_COMM_NULL), and no user buffer is written. */
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
    MPI_Datatype uncommitted;
    MPI_Comm inter, half;
    int counts[64], neg_counts[64], i, total = 0, all_checks = 0;
    void *ip = MPI_IN_PLACE;
    const int root_bad = 99;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Type_contiguous(2, MPI_INT, &uncommitted);
    for (i = 0; i < 64; i++) counts[i] = 1, neg_counts[i] = i == size - 1 ? -1 : 1;
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
        MPI_Comm_free(&inter);
    }
    MPI_Comm_free(&half);

    MPI_Type_free(&uncommitted);
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&checks, &all_checks, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) printf("mpi_errors: %d checks, %d failures\n", all_checks, total);
    MPI_Finalize();
    return total ? 1 : 0;
}
