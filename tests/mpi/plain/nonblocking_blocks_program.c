/* An ordinary MPI program that knows nothing of mcoll (it is not linked to it): the nonblocking
 * and (where the MPI has them) persistent forms of allgatherv, alltoall, alltoallv, alltoallw,
 * gather, gatherv, scatter, scatterv, scan and exscan on host buffers, with blocks of 0, 1 and 2
 * elements, every root, in place where MPI allows it, completed by MPI_Waitall, MPI_Testall and
 * MPI_Waitsome in turn; rank 0 prints every rank's results, so two runs can be compared line by
 * line (tests/mpi/test_preload_nonblocking.sh runs it with and without LD_PRELOAD=libmcoll.so). */
#include <stdio.h>
#include <string.h>
#include <mpi.h>
#ifdef OPEN_MPI
#include <mpi-ext.h>
#endif
#include "show.h"

#define MAXR 16
#define M (3 * MAXR)          /* ints of one rank's buffers */
#define NCALLS 10
static int rank, size;

static void finish(int how, int n, MPI_Request *q)
{
    int flag = 0, out, idx[NCALLS], done = 0;
    if (how == 0) MPI_Waitall(n, q, MPI_STATUSES_IGNORE);
    while (how == 1 && !flag) MPI_Testall(n, q, &flag, MPI_STATUSES_IGNORE);
    while (how == 2 && done < n) {
        MPI_Waitsome(n, q, &out, idx, MPI_STATUSES_IGNORE);
        done += out == MPI_UNDEFINED ? n : out;
    }
}

/* The buffers and block layouts of one round. */
typedef struct {
    int in[M], agv[M], a2a[M], a2av[M], a2aw[M], g[M], gv[M], s[M], sv[M], scan[M], exscan[M];
    int one[MAXR], three[MAXR], sc[MAXR], sd[MAXR], rc[MAXR], rd[MAXR], sdb[MAXR], rdb[MAXR];
    MPI_Datatype types[MAXR];
} round_bufs;

static void fill(round_bufs *b, int round)
{
    int i;
    for (i = 0; i < M; i++) {
        b->in[i] = 100 * rank + i + round;
        b->agv[i] = b->a2a[i] = b->a2av[i] = b->a2aw[i] = b->g[i] = b->gv[i] = -1;
        b->s[i] = b->sv[i] = b->scan[i] = b->exscan[i] = -1;
    }
    for (i = 0; i < size; i++) {
        b->one[i] = i % 3;                      /* gatherv/allgatherv block of rank i */
        b->three[i] = 3 * i + 1;                /* its displacement: gaps between blocks */
        b->sc[i] = (rank + i + round) % 3;      /* alltoallv: what this rank sends to i ... */
        b->rc[i] = (i + rank + round) % 3;      /* ... and receives from i */
        b->sd[i] = 3 * i;
        b->rd[i] = 3 * (size - 1 - i);          /* blocks in reverse order */
        b->sdb[i] = b->sd[i] * (int)sizeof(int);
        b->rdb[i] = b->rd[i] * (int)sizeof(int);
        b->types[i] = MPI_INT;
    }
}

/* Post the ten calls of one round with `root`; in place at the root on odd rounds. */
static void post(round_bufs *b, int root, int round, MPI_Request *q)
{
    int me = rank == root, ip = round % 2;
    MPI_Iallgatherv(b->in, rank % 3, MPI_INT, b->agv, b->one, b->three, MPI_INT, MPI_COMM_WORLD, &q[0]);
    MPI_Ialltoall(b->in, 2, MPI_INT, b->a2a, 2, MPI_INT, MPI_COMM_WORLD, &q[1]);
    MPI_Ialltoallv(b->in, b->sc, b->sd, MPI_INT, b->a2av, b->rc, b->rd, MPI_INT, MPI_COMM_WORLD, &q[2]);
    MPI_Ialltoallw(b->in, b->sc, b->sdb, b->types, b->a2aw, b->rc, b->rdb, b->types, MPI_COMM_WORLD, &q[3]);
    if (me && ip) memcpy(b->g + 2 * root, b->in, 2 * sizeof(int));
    MPI_Igather(me && ip ? MPI_IN_PLACE : b->in, 2, MPI_INT, b->g, 2, MPI_INT, root, MPI_COMM_WORLD, &q[4]);
    MPI_Igatherv(b->in, rank % 3, MPI_INT, b->gv, b->one, b->three, MPI_INT, root, MPI_COMM_WORLD, &q[5]);
    MPI_Iscatter(b->in, 3, MPI_INT, me && ip ? MPI_IN_PLACE : b->s, 3, MPI_INT, root, MPI_COMM_WORLD, &q[6]);
    MPI_Iscatterv(b->in, b->one, b->three, MPI_INT, b->sv, rank % 3, MPI_INT, root, MPI_COMM_WORLD, &q[7]);
    if (ip) memcpy(b->scan, b->in, 5 * sizeof(int));
    MPI_Iscan(ip ? MPI_IN_PLACE : b->in, b->scan, 5, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q[8]);
    MPI_Iexscan(b->in, b->exscan, 5, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &q[9]);
}

static void report(const char *what, int round, round_bufs *b)
{
    char label[64];
    if (rank == 0) memset(b->exscan, 0, sizeof b->exscan); /* undefined there */
#define SHOW(name, n)                                                      \
    snprintf(label, sizeof label, "%s %d " #name, what, round);            \
    show(label, b->name, n)
    SHOW(agv, 3 * size);
    SHOW(a2a, 2 * size);
    SHOW(a2av, 3 * size);
    SHOW(a2aw, 3 * size);
    SHOW(g, 2 * size);
    SHOW(gv, 3 * size);
    SHOW(s, 3);
    SHOW(sv, 2);
    SHOW(scan, 5);
    SHOW(exscan, 5);
#undef SHOW
}

int main(int argc, char **argv)
{
    static round_bufs b;
    MPI_Request q[NCALLS];
    int round;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size > MAXR) MPI_Abort(MPI_COMM_WORLD, 2);
    for (round = 0; round < 2 * size; round++) {
        fill(&b, round);
        post(&b, round % size, round, q);
        finish(round % 3, NCALLS, q);
        report("round", round, &b);
    }
#ifdef OMPI_HAVE_MPI_EXT_PCOLLREQ
    /* Built once with root 1 (or 0), started twice with new inputs. */
    fill(&b, 0);
    {
        int root = 1 % size;
        MPIX_Allgatherv_init(b.in, rank % 3, MPI_INT, b.agv, b.one, b.three, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &q[0]);
        MPIX_Alltoall_init(b.in, 2, MPI_INT, b.a2a, 2, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &q[1]);
        MPIX_Alltoallv_init(b.in, b.sc, b.sd, MPI_INT, b.a2av, b.rc, b.rd, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &q[2]);
        MPIX_Alltoallw_init(b.in, b.sc, b.sdb, b.types, b.a2aw, b.rc, b.rdb, b.types, MPI_COMM_WORLD, MPI_INFO_NULL,
                            &q[3]);
        MPIX_Gather_init(b.in, 2, MPI_INT, b.g, 2, MPI_INT, root, MPI_COMM_WORLD, MPI_INFO_NULL, &q[4]);
        MPIX_Gatherv_init(b.in, rank % 3, MPI_INT, b.gv, b.one, b.three, MPI_INT, root, MPI_COMM_WORLD, MPI_INFO_NULL,
                          &q[5]);
        MPIX_Scatter_init(b.in, 3, MPI_INT, b.s, 3, MPI_INT, root, MPI_COMM_WORLD, MPI_INFO_NULL, &q[6]);
        MPIX_Scatterv_init(b.in, b.one, b.three, MPI_INT, b.sv, rank % 3, MPI_INT, root, MPI_COMM_WORLD, MPI_INFO_NULL,
                           &q[7]);
        MPIX_Scan_init(b.in, b.scan, 5, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &q[8]);
        MPIX_Exscan_init(b.in, b.exscan, 5, MPI_INT, MPI_MAX, MPI_COMM_WORLD, MPI_INFO_NULL, &q[9]);
        for (round = 0; round < 2; round++) {
            int i;
            for (i = 0; i < M; i++) b.in[i] = 7 * rank + i * (round + 1);
            MPI_Startall(NCALLS, q);
            MPI_Waitall(NCALLS, q, MPI_STATUSES_IGNORE);
            report("persistent", round, &b);
        }
        for (round = 0; round < NCALLS; round++) MPI_Request_free(&q[round]);
    }
#endif
    MPI_Finalize();
    return 0;
}
