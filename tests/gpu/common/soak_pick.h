/* The soak's random calls: one generator, seeded alike on every rank, draws the same sequence
 * of calls everywhere (collective, datatype, op, size, root, in place, alignment, path and
 * communicator), so that every rank makes the call its peers make.
 *
 * Sizes are weighted to small messages so that 100 000 calls fit in minutes (the host reference
 * of the large ones is what takes the time): 3% move nothing (count 0), 89% up to max/1024
 * bytes, 7.9% up to max/16 and 0.1% up to max (log-uniform within each band). "Bytes" bounds
 * the largest buffer of the call on any rank. */
#ifndef GPU_SOAK_PICK_H
#define GPU_SOAK_PICK_H

#include <stddef.h>
#include <stdint.h>
#include "prep.h"

typedef enum { SOAK_NATIVE, SOAK_GRAPH, SOAK_MPI, SOAK_MPI_NONBLOCKING, SOAK_PATHS } soak_path;

typedef struct {
    uint64_t state;
} soak_rng;

typedef struct {
    size_t max_bytes;  /* the largest buffer any call may need on one rank */
    int host_only;     /* host buffers and MPI_* calls only (no GPU) */
    int ncomms;        /* communicators to choose from */
    int world_size;    /* the largest communicator */
} soak_limits;

typedef struct {
    coll_case c;       /* root: any value; the caller takes it modulo its communicator's size */
    soak_path path;
    int comm;          /* 0 .. ncomms - 1 */
    size_t bytes;      /* the size drawn */
    int barrier;       /* 1 in 100: a barrier on `comm` by `path` instead of c (graphs: natively) */
} soak_call;

const char *soak_path_name(soak_path path);
void soak_rng_seed(soak_rng *rng, uint64_t seed);
uint64_t soak_rng_next(soak_rng *rng);
void soak_pick(soak_rng *rng, const soak_limits *lim, soak_call *out);

/* The first calls of the warm-up, before the random ones: they bring the plug-in's bounded host
 * caches to their largest, so that growth after the warm-up means a leak. Through MPI on
 * MPI_COMM_WORLD, staged (padded pairs, or calls with no engine): every blocking collective at
 * the largest size (the per-thread staging buffer grows to the largest call), then every
 * nonblocking one at each power-of-two size from 64 KiB to the largest (the request pool keeps
 * blocks per power-of-two size). */
int soak_ladder_length(const soak_limits *lim);
void soak_ladder(const soak_limits *lim, int i, soak_call *out);

#endif /* GPU_SOAK_PICK_H */
