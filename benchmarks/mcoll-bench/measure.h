/* Timing one peer on one collective at one size, the same way for every peer:
 *   1. one untimed call absorbs one-time costs (connections, lazy setup); for mcoll-window it
 *      also tells whether the point runs zero-copy (mcoll_comm_info's zero_copy_calls);
 *   2. one timed call, then min(--warmup, calls that fit in --batch-ms) warm-up calls timed
 *      together; the faster of the two (slowest rank) sets the batch length N: as many calls
 *      as fit in --batch-ms, at most --iters, at least one;
 *   3. a graph peer captures N calls in one graph and replays it once, untimed;
 *   4. --reps batches of N calls, each after a barrier: stream peers timed with cudaEvents around
 *      the enqueued calls (or the -G graph launches), blocking peers with MPI_Wtime. A batch's
 *      time per call is that of the slowest rank (-a 3; -a 0, 1, 2: rank 0's, the mean, the
 *      fastest); the median over batches is reported with the minimum and maximum;
 *   5. -c checks on fresh input: one more call (one graph replay) each, every element compared. */
#ifndef MB_MEASURE_H
#define MB_MEASURE_H

#include "context.h"
#include "split.h"

typedef struct {
    int ran;            /* 0: the peer could not run this point; note says why */
    char note[320];
    double median_us, min_us, max_us; /* time per call */
    long long wrong;    /* elements wrong over all ranks and checks; -1 when not checked */
    int iters;          /* calls per timed batch */
    mb_path path;       /* how the calls moved data (the peer's, or probed on the first call) */
} mb_result;

/* Collective over the context's communicator. */
/* With `split` (mcoll-mpi), the time split of the timed batches' hierarchical calls, without the
 * first, warm-up and check calls (the first builds the domains' teams). */
void mb_measure(mb_ctx *ctx, int peer, const mb_op *op, mb_result *res, mb_split *split);

#endif /* MB_MEASURE_H */
