/* mcoll-bench's command line. Parsed before MPI_Init (the GPU is chosen from it then). */
#ifndef MB_OPTIONS_H
#define MB_OPTIONS_H

#include <stddef.h>
#include "bench_coll.h"
#include "bench_dtype.h"
#include "peers.h"

typedef struct {
    int coll[BENCH_NCOLLS]; /* 1: measure this collective */
    int peer[MB_NPEERS];    /* 1: run this peer */
    size_t min_bytes, max_bytes;
    double step;            /* size multiplier between rows */
    int iters;              /* most calls in one timed batch */
    int warmup;             /* untimed calls before the batches (at most one batch's worth) */
    int reps;               /* timed batches; the median is reported */
    double batch_ms;        /* a batch has as many calls as fit in this time, up to iters */
    const bench_dtype *dtype;
    const char *outdir;     /* NULL: mcoll-bench-<date>-<time> */
    const char *nccl_lib;
    int check;              /* count wrong elements after timing */
    int plot;               /* run gnuplot at the end */
    int quick;
} mb_options;

/* 0: run; 1: help printed, exit 0; -1: error printed, exit BENCH_EXIT_USAGE. */
int mb_options_parse(int argc, char **argv, mb_options *o);

#endif /* MB_OPTIONS_H */
