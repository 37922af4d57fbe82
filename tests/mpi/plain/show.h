/* The output of the plain programs: rank 0 prints one line, `label` then every rank's `n` ints,
 * so that two runs (with and without mcoll) can be compared line by line. Collective over
 * MPI_COMM_WORLD. */
#ifndef PLAIN_SHOW_H
#define PLAIN_SHOW_H

#include <stdio.h>
#include <stdlib.h>
#include <mpi.h>

static void show(const char *label, const int *v, int n)
{
    int rank, size, k, *all;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    all = rank == 0 ? (int *)malloc(sizeof(int) * (size_t)n * (size_t)size + 1) : NULL;
    MPI_Gather(v, n, MPI_INT, all, n, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank != 0) return;
    printf("%s:", label);
    for (k = 0; all && k < n * size; k++) printf("%s%d", k % n ? " " : " | ", all[k]);
    printf("\n");
    free(all);
}

#endif /* PLAIN_SHOW_H */
