/* The rows of the non-blocking OSU look-alikes (mcoll_osu_i<name>), measured as OSU 7.4's
 * osu_i<name> measures them:
 *   Pure Comm.  the call started and waited for at once (MPI_I<name> + MPI_Wait), per call;
 *   Overall     the call started, then computation on the CPU for as long as Pure Comm. took
 *               (with -t MPI_Test calls spread through it), then MPI_Wait;
 *   Compute     the computation alone (its MPI_Test calls not counted);
 *   Overlap     100 * (1 - (Overall - Compute) / Pure Comm.), between 0 and 100: the share of
 *               the communication that the computation hid.
 * Every column is the mean over ranks of each rank's mean over the timed calls; -f adds Coll.
 * Init (the start call), MPI_Test, MPI_Wait and the least and most Pure Comm. of any rank. */
#ifndef BENCH_OSU_NBC_H
#define BENCH_OSU_NBC_H

#include "bench_osu_run.h"

typedef struct {
    double pure;     /* us per call */
    double overall;
    double compute;
    double init;
    double test;
    double wait;
} osu_nbc_times;

/* This rank's means over `iters` timed calls of shape s, after `warmup` untimed ones. */
void osu_nbc_time(const osu_run *r, bench_shape *s, long warmup, long iters, osu_nbc_times *t);

/* Collective: rank 0 prints the size's row from every rank's times (validation column from
 * `wrong` when -c is on). */
void osu_nbc_print_row(const osu_run *r, size_t size, const osu_nbc_times *t, long long wrong);

/* The column line after "# Datatype: ...". */
void osu_nbc_print_columns(const osu_options *o);

#endif /* BENCH_OSU_NBC_H */
