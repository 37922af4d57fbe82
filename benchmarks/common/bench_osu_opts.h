/* The OSU look-alikes' command line (OSU 7.4's collective options and defaults) and the header
 * lines they print. Parsed before MPI_Init: the GPU is chosen from it. */
#ifndef BENCH_OSU_OPTS_H
#define BENCH_OSU_OPTS_H

#include <stddef.h>
#include "bench_dtype.h"
#include "bench_mem.h"
#include "bench_osu.h"

#define OSU_MAX_TYPES 16
#define OSU_MAX_TAIL 5         /* OSU prints at most five percentiles */
#define OSU_ROOT_ROTATE (-1)   /* -k rotate: the root of call i is i % ranks */
#define OSU_LARGE_MESSAGE 8192 /* above this, the smaller "large" iteration counts apply */

typedef struct {
    bench_mem mem;                 /* -d: host (no -d), cuda, managed */
    size_t min_size, max_size;     /* -m */
    size_t mem_limit;              /* -M: bytes per buffer at most (OSU's per-process limit) */
    long iters, iters_large;       /* -i */
    long warmup, warmup_large;     /* -x */
    int full;                      /* -f */
    int validate;                  /* -c */
    int validation_warmup;         /* -u: untimed calls before the checked one */
    int in_place;                  /* -l */
    int root;                      /* -k: a rank, or OSU_ROOT_ROTATE */
    const bench_dtype *types[OSU_MAX_TYPES]; /* -T, in the order given; MPI_CHAR when none */
    int ntypes;
    int tail[OSU_MAX_TAIL];        /* -z: percentiles; ntail 0 without -z */
    int ntail;
    int num_tests;                 /* -t: MPI_Test calls during the computation of non-blocking
                                      programs [1] */
    int dry_run;                   /* --dry-run */
} osu_options;

/* 0: run; 1: done, exit 0 (help, version or dry run printed); -1: error printed, exit
 * BENCH_EXIT_USAGE. Only the printing process (bench_env_is_printer) prints. */
int osu_parse_options(int argc, char **argv, const bench_osu *b, osu_options *o);

/* A blank line, "# OSU MPI-CUDA Allreduce Latency Test v7.4" and the line saying which program
 * this is, as rank 0 prints them before the first datatype. */
void osu_print_preamble(const bench_osu *b, const osu_options *o);

/* "# Datatype: MPI_CHAR." and the column header line, before each datatype's rows. */
void osu_print_columns(const bench_osu *b, const osu_options *o, const bench_dtype *t);

#endif /* BENCH_OSU_OPTS_H */
