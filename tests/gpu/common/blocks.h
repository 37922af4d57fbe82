/* Blocks of the gathers, scatters and all-to-all calls: how many elements each rank sends each
 * other rank, where they sit on both sides, and the check of a receive buffer. Every rank can
 * compute every rank's layout from the case alone.
 *
 * Fixed-count calls: `count` elements per block, blocks in rank order without gaps.
 * Variable-count calls: the block of a rank pair has uneven(count, k) elements, where k is the
 * sender (allgatherv, gatherv), the receiver (scatterv) or their sum (alltoallv: symmetric, so
 * that in place works): 0 when count is 0 or k % 4 == 1 (rank 1 always sends or receives an
 * empty block), else count + (k % 3) * (count / 2 + 1). Blocks are placed from the last rank to
 * the first, block q after a gap of 1 + q % 3 elements.
 *
 * A rank's input (gen.h, plain data) is its send buffer: element i is gen_value(rank, i). In
 * place, the send buffer is the receive buffer (alltoall) or the rank's own block in it. */
#ifndef GPU_BLOCKS_H
#define GPU_BLOCKS_H

#include <stddef.h>
#include "api.h"
#include "prep.h"

/* 1 for the kinds whose data moves in blocks (allgatherv .. scatterv). */
int blocks_kind(coll_kind kind);
/* 1 for the variable-count kinds. */
int blocks_variable(coll_kind kind);

/* Elements rank `from` sends rank `to`. */
size_t block_elems(const coll_case *c, int size, int from, int to);
/* Rank `rank`'s blocks on its send side (recv_side 0: the block for each rank) or its receive
 * side (1: the block from each rank): counts and displacements in elements, and the elements
 * the buffer spans. */
size_t block_side(const coll_case *c, int size, int rank, int recv_side, size_t *counts, size_t *displs);
/* Where the block for rank `to` starts in rank `from`'s send buffer (its input). */
size_t block_send_at(const coll_case *c, int size, int from, int to);

/* Compare this rank's receive buffer `out` with what it must hold: each block from its sender's
 * input, every other element as the case loaded it (the poison, or in-place input). 0 when
 * equal; otherwise the number of bytes that differ, the first described. */
size_t blocks_check(const coll_prep *p, const void *out, char *why, size_t len);

#endif /* GPU_BLOCKS_H */
