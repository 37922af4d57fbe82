/* The driver behind the OSU-format benchmarks (mcoll_osu_*): OSU's options, header, size loop,
 * timing and output columns. Each benchmark file supplies only its MPI call. The calls are plain
 * MPI, so with libmcoll in front of MPI they measure the plug-in path.
 *
 * Timing follows OSU: each call is timed alone with MPI_Wtime and followed by a barrier; a rank's
 * latency is its mean over the timed calls; "Avg" is the mean over ranks, "Min"/"Max" the
 * extremes over ranks. Validation (-c) runs after the timed calls, on fresh input. */
#ifndef BENCH_OSU_H
#define BENCH_OSU_H

#include <mpi.h>
#include "bench_coll.h"

typedef struct {
    const void *send; /* MPI_IN_PLACE where this rank's call is in place */
    void *recv;
    int count;        /* the count argument (per rank for reduce_scatter_block and allgather) */
    MPI_Datatype dtype;
    int root;
    MPI_Comm comm;
} bench_osu_args;

typedef struct {
    bench_coll coll;
    const char *title;   /* "Allreduce": "# OSU MPI-CUDA Allreduce Latency Test" */
    int per_rank_size;   /* 1: the Size column is bytes per rank (allgather, as OSU reports it) */
    int (*call)(const bench_osu_args *a);
} bench_osu;

/* Runs the whole benchmark; returns the process exit status: 0, 1 (a validation failed),
 * BENCH_EXIT_USAGE or BENCH_EXIT_NO_GPU (bench_env.h). */
int bench_osu_main(int argc, char **argv, const bench_osu *b);

#endif /* BENCH_OSU_H */
