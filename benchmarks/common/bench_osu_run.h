/* What the OSU look-alike driver (bench_osu.c) shares with its non-blocking rows
 * (bench_osu_nbc.c): the run's state and one call. Private to those two files. */
#ifndef BENCH_OSU_RUN_H
#define BENCH_OSU_RUN_H

#include "bench_coll.h"
#include "bench_osu.h"
#include "bench_osu_opts.h"

typedef struct {
    const bench_osu *b;
    const osu_options *o;
    const char *prog;
    int rank, nranks;
    size_t max_size;       /* -m MAX, lowered to fit -M */
    const bench_dtype *t;  /* the datatype being measured */
    void *send, *recv;     /* the buffers the calls use */
    void *hsend, *hrecv;   /* host images (the buffers themselves with host memory) */
    int *counts;           /* MPI_Reduce_scatter: every rank's receive count */
    double *lat;           /* -z: this rank's latency of each timed call (us) */
    double *lat_sum;       /* rank 0: the same summed over ranks */
} osu_run;

#define OSU_FIELD_WIDTH 20
#define OSU_PRECISION 2

/* -k rotate on a rooted collective: call i has root i % ranks. */
int osu_is_rotating(const osu_run *r);

/* The arguments of this rank's call of shape s. */
void osu_make_args(const osu_run *r, const bench_shape *s, bench_osu_args *a);

/* Start the call (non-blocking programs) and, with wait, complete it; exits naming the error
 * if MPI returns one. */
void osu_start(const osu_run *r, const bench_osu_args *a, MPI_Request *req);
void osu_wait(MPI_Request *req);

/* One call, completed: blocking programs make it, non-blocking ones start and wait for it. */
void osu_call(const osu_run *r, const bench_osu_args *a);

#endif /* BENCH_OSU_RUN_H */
