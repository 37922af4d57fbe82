/* The time split of hierarchical calls; see split.h. */
#include "split.h"

#include <string.h>

#include "mcoll.h"

void mb_split_begin(mb_ctx *ctx)
{
    mcoll_hier_times_t t;
    mcoll_hier_times(ctx->mpi_comm, 1, &t);
}

void mb_split_end(mb_ctx *ctx, mb_split *split)
{
    mcoll_hier_times_t t;
    struct {
        double seconds;
        int rank;
    } mine, slowest;
    double per_call[3] = {0, 0, 0}; /* calls, between, inside */
    memset(split, 0, sizeof *split);
    if (mcoll_hier_times(ctx->mpi_comm, 1, &t) != MCOLL_SUCCESS)
        memset(&t, 0, sizeof t);
    if (t.calls > 0) {
        per_call[0] = (double)t.calls;
        per_call[1] = 1e6 * t.between_seconds / (double)t.calls;
        per_call[2] = 1e6 * (t.seconds - t.between_seconds) / (double)t.calls;
    }
    /* The split of the rank whose calls took longest (the table's times are the slowest rank's
     * by default, -a 3). */
    mine.seconds = per_call[1] + per_call[2];
    mine.rank = ctx->rank;
    MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE_INT, MPI_MAXLOC, ctx->comm);
    MPI_Bcast(per_call, 3, MPI_DOUBLE, slowest.rank, ctx->comm);
    split->calls = (long)per_call[0];
    split->between_us = per_call[1];
    split->inside_us = per_call[2];
}
