/* mcoll-bench's command line. Parsed before MPI_Init (the GPU is chosen from it then).
 * Letters nccl-tests has mean what they mean there (-b -e -f -i -d -o -r -n -w -c -z -G -a -g
 * -t -m -N, and its other letters at their default values); mcoll-bench's own settings are
 * long options (and -q). */
#ifndef MB_OPTIONS_H
#define MB_OPTIONS_H

#include <stddef.h>
#include "bench_coll.h"
#include "bench_dtype.h"
#include "peers.h"

enum { MB_OUT_OF_PLACE = 1, MB_IN_PLACE = 2 }; /* bits of mb_options.places */

typedef struct {
    int coll[BENCH_NCOLLS]; /* 1: measure this collective */
    int peer[MB_NPEERS];    /* 1: run this peer */
    size_t min_bytes, max_bytes;
    double step;            /* -f: size multiplier between rows; 0 when -i sets step_bytes */
    size_t step_bytes;      /* -i: size increment between rows */
    int iters;              /* -n: most calls in one timed batch */
    int warmup;             /* -w: untimed calls before the batches (at most one batch's worth) */
    int reps;               /* timed batches; the median is reported */
    double batch_ms;        /* a batch has as many calls as fit in this time, up to iters */
    const bench_dtype *dtype;
    bench_op op;            /* -o */
    int root;               /* -r */
    int check;              /* -c: checked calls after timing (0: none) */
    int graph_launches;     /* -G: graph replays per timed batch; 0 leaves out the graph peers */
    int average;            /* -a: a batch's time is rank 0's (0), the mean (1), min (2), max (3) */
    int places;             /* MB_OUT_OF_PLACE | MB_IN_PLACE */
    const char *outdir;     /* NULL: mcoll-bench-<date>-<time> */
    const char *nccl_lib;
    int plot;               /* draw the PNGs at the end */
    int quick;
    int dry_run;            /* print the settings and the table header, measure nothing */
} mb_options;

/* 0: run (or, with dry_run, print); 1: help printed, exit 0; -1: error printed, exit
 * BENCH_EXIT_USAGE. */
int mb_options_parse(int argc, char **argv, mb_options *o);

#endif /* MB_OPTIONS_H */
