/* An ordinary MPI program that knows nothing of mcoll (it is not linked to it): nonblocking and
 * (where the MPI has them) persistent collectives on host buffers, mixed with point-to-point
 * requests and completed by every MPI_Wait / MPI_Test form; rank 0 prints every rank's results,
 * so two runs can be compared line by line (tests/mpi/test_preload_nonblocking.sh runs it with
 * and without LD_PRELOAD=libmcoll.so). */
#include <stdio.h>
#include <stdlib.h>
#include <mpi.h>
#ifdef OPEN_MPI
#include <mpi-ext.h>
#endif
#include "show.h"

#define N 16
static int rank, size;

/* Every request done, by one of the completion forms. */
static void finish(int how, int n, MPI_Request *q)
{
    int flag = 0, index, out, idx[16], done = 0;
    switch (how) {
    case 0: MPI_Waitall(n, q, MPI_STATUSES_IGNORE); return;
    case 1: while (!flag) MPI_Testall(n, q, &flag, MPI_STATUSES_IGNORE); return;
    case 2: for (index = 0; index < n; index++) MPI_Wait(&q[index], MPI_STATUS_IGNORE); return;
    default: break;
    }
    while (done < n) {
        if (how == 3) {
            MPI_Waitany(n, q, &index, MPI_STATUS_IGNORE);
            done++;
        } else if (how == 4) {
            MPI_Testany(n, q, &index, &flag, MPI_STATUS_IGNORE);
            done += flag && index != MPI_UNDEFINED;
        } else {
            (how == 5 ? MPI_Waitsome : MPI_Testsome)(n, q, &out, idx, MPI_STATUSES_IGNORE);
            done += out == MPI_UNDEFINED ? n : out;
        }
    }
}

int main(int argc, char **argv)
{
    int in[N], ar[N], bc[N], rd[N], rsb[N], rs[N], ag[N * 64], counts[64], tok = -1, how, i;
    MPI_Request q[8];
    char label[32];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size > 64) MPI_Abort(MPI_COMM_WORLD, 2);
    for (i = 0; i < size; i++) counts[i] = 1;
    for (how = 0; how < 7; how++) {
        int rsin[N * 64];
        for (i = 0; i < N; i++) in[i] = 3 * rank + i + how, bc[i] = rank == how % size ? i * how : -1;
        for (i = 0; i < N * size; i++) rsin[i] = i + rank;
        MPI_Iallreduce(in, ar, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q[0]);
        MPI_Irecv(&tok, 1, MPI_INT, (rank + size - 1) % size, how, MPI_COMM_WORLD, &q[1]);
        MPI_Ibcast(bc, N, MPI_INT, how % size, MPI_COMM_WORLD, &q[2]);
        MPI_Ireduce(in, rd, N, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD, &q[3]);
        MPI_Ireduce_scatter_block(rsin, rsb, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q[4]);
        MPI_Ireduce_scatter(rsin, rs, counts, MPI_INT, MPI_MIN, MPI_COMM_WORLD, &q[5]);
        MPI_Iallgather(in, 1, MPI_INT, ag, 1, MPI_INT, MPI_COMM_WORLD, &q[6]);
        MPI_Isend(&rank, 1, MPI_INT, (rank + 1) % size, how, MPI_COMM_WORLD, &q[7]);
        finish(how, 8, q);
        MPI_Ibarrier(MPI_COMM_WORLD, &q[0]);
        MPI_Wait(&q[0], MPI_STATUS_IGNORE);
        snprintf(label, sizeof label, "way %d allreduce", how);
        show(label, ar, N);
        snprintf(label, sizeof label, "way %d bcast", how);
        show(label, bc, N);
        snprintf(label, sizeof label, "way %d reduce", how);
        show(label, rank == 0 ? rd : in, N);
        snprintf(label, sizeof label, "way %d rsb/rs/ag", how);
        rsb[1] = rs[0];
        rsb[2] = ag[size - 1];
        rsb[3] = tok;
        show(label, rsb, 4);
    }
#ifdef OMPI_HAVE_MPI_EXT_PCOLLREQ
    MPIX_Allreduce_init(in, ar, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &q[0]);
    for (how = 0; how < 3; how++) {
        for (i = 0; i < N; i++) in[i] = rank * how + i;
        MPI_Start(&q[0]);
        MPI_Wait(&q[0], MPI_STATUS_IGNORE);
        snprintf(label, sizeof label, "persistent %d", how);
        show(label, ar, N);
    }
    MPI_Request_free(&q[0]);
#endif
    MPI_Finalize();
    return 0;
}
