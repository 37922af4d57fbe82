/* N blocking MPI_Allreduce calls (argv[1], default 1000) and one MPI_Iallreduce on host buffers
 * of MPI_COMM_WORLD, each result checked. Rank 0 prints one line saying how many calls gave the
 * right sums; exit 1 on a wrong one. Not linked to mcoll: the tests preload it (and PMPI tools
 * around it). */
#include <stdio.h>
#include <stdlib.h>
#include <mpi.h>

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1000, rank, size, i, in, out, wrong = 0;
    MPI_Request request;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (i = 0; i < n; i++) {
        in = rank + i;
        MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        wrong += out != size * (size - 1) / 2 + size * i;
    }
    in = rank;
    MPI_Iallreduce(&in, &out, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &request);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    wrong += out != size - 1;
    if (rank == 0) printf("allreduce_loop: %d of %d calls on %d ranks gave the right result\n", n + 1 - wrong, n + 1, size);
    MPI_Finalize();
    return wrong != 0;
}
