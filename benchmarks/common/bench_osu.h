/* The driver behind the OSU look-alikes (mcoll_osu_*): OSU Micro-Benchmarks 7.4's options,
 * defaults, header, size loop, timing and output columns, so scripts written for OSU's
 * collective latency tests run them unchanged. Each benchmark file supplies only its MPI call.
 * The calls are plain MPI, so with libmcoll in front of MPI they measure the plug-in path.
 *
 * Timing follows OSU: each call is timed alone with MPI_Wtime and followed by a barrier; a rank's
 * latency is its mean over the timed calls; "Avg" is the mean over ranks, "Min"/"Max" the
 * extremes over ranks; tail latencies (-z) are percentiles of the per-call mean over ranks.
 * Validation (-c) differs from OSU's in when it runs: after the timed calls, on fresh input,
 * one checked call per size (OSU checks every timed call). */
#ifndef BENCH_OSU_H
#define BENCH_OSU_H

#include <mpi.h>
#include "bench_coll.h"

/* The OSU Micro-Benchmarks release whose options and output these programs follow. */
#define BENCH_OSU_VERSION "7.4"

typedef struct {
    const void *send;   /* MPI_IN_PLACE where this rank's call is in place */
    void *recv;
    int count;          /* the count argument (per rank for reduce_scatter_block and allgather) */
    const int *counts;  /* MPI_Reduce_scatter: every rank's receive count */
    MPI_Datatype dtype;
    MPI_Op op;
    int root;
    MPI_Comm comm;
} bench_osu_args;

typedef struct {
    bench_coll coll;
    const char *osu_name;  /* "osu_allreduce": the OSU program this one stands for */
    const char *title;     /* "Allreduce": "# OSU MPI-CUDA Allreduce Latency Test v7.4" */
    const char *mpi_call;  /* "MPI_Allreduce", for the help text */
    int per_rank_size;     /* 1: the Size column is bytes per rank (allgather, as OSU reports it) */
    int uneven;            /* 1: MPI_Reduce_scatter, per-rank counts split as OSU splits them */
    int (*call)(const bench_osu_args *a);
    /* Non-blocking programs (osu_i<name>) set this instead of call: start the call. Their rows
     * are OSU's overlap rows (bench_osu_nbc.h). */
    int (*icall)(const bench_osu_args *a, MPI_Request *req);
} bench_osu;

/* Runs the whole benchmark; returns the process exit status: 0, 1 (a validation failed),
 * BENCH_EXIT_USAGE or BENCH_EXIT_NO_GPU (bench_env.h). */
int bench_osu_main(int argc, char **argv, const bench_osu *b);

#endif /* BENCH_OSU_H */
