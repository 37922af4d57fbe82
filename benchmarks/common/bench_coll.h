/* The collectives the benchmarks measure (the five with buffers, and barrier): names, element counts for a size, the bus
 * bandwidth factor, and the inputs and expected results of a correctness check.
 *
 * Sizes are counted as nccl-tests counts them: allreduce, bcast and reduce by the buffer;
 * reduce_scatter by its send buffer and allgather by its receive buffer (the full vector).
 * Reductions are MPI_SUM, MPI_MIN or MPI_MAX (their results have closed forms); the root is 0
 * unless the caller sets another. */
#ifndef BENCH_COLL_H
#define BENCH_COLL_H

#include <stddef.h>
#include <mpi.h>
#include "bench_dtype.h"

typedef enum {
    BENCH_ALLREDUCE, BENCH_BCAST, BENCH_REDUCE, BENCH_REDUCE_SCATTER, BENCH_ALLGATHER,
    BENCH_BARRIER, /* no buffers: one row of size 0 per run */
    BENCH_NCOLLS
} bench_coll;

#define BENCH_ROOT 0

const char *bench_coll_name(bench_coll c);  /* "allreduce", "reduce_scatter" */
int bench_coll_find(const char *name);      /* -1 when unknown; accepts "reducescatter", "bcast"/"broadcast" */
int bench_coll_reduces(bench_coll c);       /* 1 for allreduce, reduce, reduce_scatter */
int bench_coll_has_root(bench_coll c);      /* 1 for bcast and reduce */

typedef enum { BENCH_OP_SUM, BENCH_OP_MIN, BENCH_OP_MAX, BENCH_NOPS } bench_op;

const char *bench_op_name(bench_op op);      /* "sum": nccl-tests' name */
int bench_op_find(const char *name);         /* -1 when unknown; "sum", "MPI_SUM", ... */
MPI_Op bench_op_mpi(bench_op op);

/* One call: element counts, and where this rank's part of the result lies. */
typedef struct {
    size_t count;      /* the count argument: per rank for reduce_scatter (recv) and allgather (send) */
    size_t send_elems; /* elements in the send buffer */
    size_t recv_elems; /* elements in the receive buffer (bcast: its one buffer) */
    size_t bytes;      /* the size as reported: the full vector, rounded down to whole elements */
    size_t first;      /* reduce_scatter: the element of the full vector this rank's block starts at */
    int root;          /* bcast, reduce: BENCH_ROOT unless the caller sets another */
    bench_op op;       /* reductions: BENCH_OP_SUM unless the caller sets another */
} bench_shape;

/* Shape of rank `rank`'s call moving `bytes` of `elem`-byte elements over `nranks` ranks.
 * Returns -1 when the size holds less than one element (per rank, where counts are per rank).
 * Barrier's shape is empty (no elements, 0 bytes) at every size. */
int bench_shape_for(bench_coll c, size_t bytes, size_t elem, int nranks, int rank, bench_shape *s);

/* MPI_Reduce_scatter with per-rank counts, split as OSU's osu_reduce_scatter splits a vector of
 * E = bytes / elem elements: E / nranks each, one more for the first E % nranks ranks (so some
 * ranks receive nothing when E < nranks). Returns -1 when E is 0. */
int bench_shape_reduce_scatter_v(size_t bytes, size_t elem, int nranks, int rank, bench_shape *s);
size_t bench_reduce_scatter_v_count(size_t elems, int nranks, int rank);

/* nccl-tests' bus bandwidth factor: busbw = algbw * factor, comparable with link speed. */
double bench_busbw_factor(bench_coll c, int nranks);
const char *bench_busbw_formula(bench_coll c); /* "2(n-1)/n" */

/* Elements the receive buffer must hold: recv_elems, except in-place reduce_scatter, whose
 * input (send_elems) is read from the receive buffer. */
size_t bench_recv_buffer_elems(bench_coll c, const bench_shape *s, int in_place);

/* Host images for a check with `seed`. `send` gets send_elems elements (unused by bcast);
 * `recv` (bench_recv_buffer_elems elements) gets what the receive buffer must hold before the
 * call: the input where it is read in place (root's data for bcast, this rank's input for
 * in-place calls) and 0xff bytes elsewhere, so an element the collective does not write is
 * counted wrong. */
void bench_check_inputs(bench_coll c, const bench_dtype *t, const bench_shape *s, int rank,
                        int in_place, int seed, void *send, void *recv);

/* Elements of this rank's receive image that differ from the expected result (0 on ranks that
 * receive nothing: non-roots of reduce). */
size_t bench_check_result(bench_coll c, const bench_dtype *t, const bench_shape *s, int rank,
                          int nranks, int in_place, int seed, const void *recv);

#endif /* BENCH_COLL_H */
