/* Pass/fail accounting over MPI_COMM_WORLD.
 *
 * A case runs between case_begin and case_end on every rank. Each rank records its own failures
 * (the first detail is kept); case_end agrees on the outcome, and rank 0 prints one line:
 *   PASS <name> (<seconds> s)
 *   FAIL <name> (<seconds> s): rank R: <detail> [(+K more ranks)]
 *   SKIP <name>: <why>
 * A CUDA error leaves the GPU state untrustworthy: such a failure is fatal, every later case is
 * skipped and the program ends with a failure. Every rank must make the same sequence of calls. */
#ifndef GPU_REPORT_H
#define GPU_REPORT_H

#include <stdint.h>
#include <mpi.h>
#include "options.h"

void report_init(const char *program, const gpu_opts *opts);

/* Start a case named by the format. 0: the filter deselects it or an earlier fatal error stopped
 * the run; do not run it and do not call case_end. */
int case_begin(const char *fmt, ...);
/* The same, ignoring the filter: setup steps every later case depends on. */
int setup_begin(const char *fmt, ...);

void case_fail(const char *fmt, ...);
void case_fatal(const char *fmt, ...);
/* Mark the current case skipped (every rank must agree on this, e.g. too few ranks). */
void case_skip(const char *why);
/* 1 when this rank has recorded a failure in the current case. */
int case_failed(void);
/* The first failure this rank recorded in the current case ("" if none). */
const char *case_detail(void);

/* Collective: 1 when `ok` is true on every rank. Use it before a collective call so that no rank
 * starts one that another rank will not join. */
int case_agree(int ok);

/* Collective: decides and prints the outcome. Returns 1 when every rank passed. */
int case_end(void);

/* A seed for the current case's data: differs per case, same on every rank. */
uint64_t case_seed(void);

/* Wall-clock seconds (C11 timespec_get), for durations. */
double wall_seconds(void);

/* Print an information line (rank 0 only, prefixed with "# "). */
void say(const char *fmt, ...);

int report_quick(void);
int report_rank(void);
int report_size(void);
int report_stopped(void);
const gpu_opts *report_opts(void);

/* Print the summary; returns the exit status (0 all passed, 1 otherwise). */
int report_finish(void);

#endif /* GPU_REPORT_H */
