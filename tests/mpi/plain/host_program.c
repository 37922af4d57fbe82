/* An ordinary MPI program that knows nothing of mcoll (it is not linked to it): it runs the
 * intercepted collectives on host buffers and rank 0 prints every rank's results, so two runs
 * can be compared line by line (tests/mpi/test_preload.sh runs it with and without
 * LD_PRELOAD=libmcoll.so). */
#include <stdio.h>
#include <stdlib.h>
#include <mpi.h>

static int rank, size;

/* Rank 0 prints `n` ints of every rank under `label`. */
static void show(const char *label, const int *v, int n)
{
    int *all = rank == 0 ? (int *)malloc(sizeof(int) * (size_t)(n * size)) : NULL, r, i;
    MPI_Gather(v, n, MPI_INT, all, n, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        for (r = 0; r < size; r++) {
            printf("%s rank %d:", label, r);
            for (i = 0; i < n; i++) printf(" %d", all[r * n + i]);
            printf("\n");
        }
        free(all);
    }
}

int main(int argc, char **argv)
{
    int in[64], out[64], counts[64], displs[64], i, n = 16;
    double d[8], dout[8];
    int dbits[8];
    MPI_Comm half;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (i = 0; i < 64; i++) in[i] = (rank + 1) * (i + 3) % 17, out[i] = -1;

    MPI_Allreduce(in, out, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    show("allreduce sum", out, n);
    MPI_Allreduce(MPI_IN_PLACE, in, n, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    show("allreduce max in place", in, n);
    for (i = 0; i < 8; i++) d[i] = 1.0 / (rank + i + 1);
    MPI_Allreduce(d, dout, 8, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    for (i = 0; i < 8; i++) dbits[i] = (int)(dout[i] * 1e6);
    show("allreduce double", dbits, 8);

    for (i = 0; i < n; i++) out[i] = rank == 2 % size ? 100 + i : 0;
    MPI_Bcast(out, n, MPI_INT, 2 % size, MPI_COMM_WORLD);
    show("bcast", out, n);

    for (i = 0; i < n; i++) in[i] = rank * i, out[i] = -1;
    MPI_Reduce(in, out, n, MPI_INT, MPI_PROD, 0, MPI_COMM_WORLD);
    show("reduce prod", out, n);

    for (i = 0; i < 2 * size; i++) in[i] = rank + i;
    MPI_Reduce_scatter_block(in, out, 2, MPI_INT, MPI_BXOR, MPI_COMM_WORLD);
    show("reduce_scatter_block bxor", out, 2);
    for (i = 0; i < size; i++) counts[i] = 1 + i % 2;
    for (i = 0; i < 64; i++) out[i] = -1;
    MPI_Reduce_scatter(in, out, counts, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    show("reduce_scatter min", out, 2);

    in[0] = rank * rank;
    MPI_Allgather(in, 1, MPI_INT, out, 1, MPI_INT, MPI_COMM_WORLD);
    show("allgather", out, size);

    for (i = 0; i < size; i++) counts[i] = 1 + (rank + i) % 2, displs[i] = 3 * (size - 1 - i);
    for (i = 0; i < 64; i++) in[i] = rank * 10 + i, out[i] = -1;
    MPI_Alltoallv(in, counts, displs, MPI_INT, out, counts, displs, MPI_INT, MPI_COMM_WORLD);
    show("alltoallv", out, 3 * size);
    MPI_Scan(in, out, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    show("scan", out, 4);
    {
        int dims[1], periods[1] = {1};
        MPI_Comm ring;
        dims[0] = size;
        MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
        MPI_Neighbor_allgather(in, 2, MPI_INT, out, 2, MPI_INT, ring);
        show("neighbor_allgather", out, 4);
        MPI_Comm_free(&ring);
    }

    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half);
    in[0] = rank;
    MPI_Allreduce(in, out, 1, MPI_INT, MPI_SUM, half);
    show("split allreduce", out, 1);
    MPI_Comm_free(&half);

    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) printf("done\n");
    MPI_Finalize();
    return 0;
}
