/* The time split of the mcoll-mpi peer's hierarchical calls at one point: on a communicator that
 * spans NVLink domains (or nodes split into simulated ones with MCOLL_DOMAIN_SIZE), MPI_* calls
 * on device buffers run as steps inside the domains and steps between them. The library measures
 * both in every such call (mcoll_hier_times, the same measurements as its TRACE line
 * "hier allreduce N B: ..."); this reads them around the peer's calls of one point. */
#ifndef MB_SPLIT_H
#define MB_SPLIT_H

#include "context.h"

typedef struct {
    long calls;          /* hierarchical calls of the point (0: the path was not hierarchical) */
    double between_us;   /* per call: steps between domains (MPI, staging included) */
    double inside_us;    /* per call: steps inside the domains and copies */
} mb_split;

/* Local: start the sums of ctx->mpi_comm again, before the peer's calls of a point. */
void mb_split_begin(mb_ctx *ctx);
/* Collective over ctx->comm: the split per call of the rank whose calls took longest, on every
 * rank. */
void mb_split_end(mb_ctx *ctx, mb_split *split);

#endif /* MB_SPLIT_H */
