/* The correctness matrices, shared by the native, MPI and sub-communicator programs.
 *
 * Full mode: counts 0, 1, 2, 3, 7, 1023 and 1 Mi + 3 (per-rank blocks of reduce_scatter and
 * allgather: 256 Ki + 3 for the largest), each out of place and in place, aligned and one element
 * off alignment (the largest count: out of place aligned and in place unaligned, and no alias
 * handles). Quick mode (-q): counts up to 1023 plus one count past the one-shot limit, out of
 * place aligned and in place unaligned only, and alias handles for allreduce only. */
#ifndef GPU_SUITE_H
#define GPU_SUITE_H

#include "api.h"
#include "prep.h"

/* Every datatype x every op that applies. */
void suite_allreduce(coll_api *api);
/* Every datatype x op with the root rotating, and every root for a few of them; also with
 * recvbuf NULL at non-root ranks. */
void suite_reduce(coll_api *api);
/* From every root. */
void suite_bcast(coll_api *api);
void suite_reduce_scatter(coll_api *api);
void suite_allgather(coll_api *api);
/* Allgatherv, alltoall(v), gather(v), scatter(v) (blocks.h: uneven counts with empty blocks,
 * displacements out of rank order with gaps): block counts as reduce_scatter's, in place and
 * not, aligned and not; the rooted calls with the root moving on, from every root for two
 * datatypes, and gathers with recvbuf NULL off the root. Native API and MPI_*. */
void suite_blocks(coll_api *api);
/* Scan and exscan: every datatype x op at counts 1, 7 and 1023 (quick: 1 and 1023, one op of
 * each kind), in place and not, aligned and not (exscan: out of place aligned and in place
 * unaligned); count 0; a few past the one-shot limit. Native API and MPI_*. */
void suite_scan(coll_api *api);
/* The whole matrix, in this order: allreduce, reduce, bcast, reduce_scatter, allgather, the
 * block collectives, scan and exscan. */
void suite_matrix(coll_api *api);
/* Allreduce of at least 1 GiB: float sum, and int32 sum when `with_int`. Not in quick mode. */
void suite_large(coll_api *api, int with_int);
/* A small cross-section of all the above, for sub-communicators. */
void suite_subset(coll_api *api);

/* Call i of a varied sequence: collective, datatype, op, count, root, in place and alignment
 * all move on from one call to the next (for bursts, graphs and interleaving). */
coll_case suite_mixed(int i, int size);
/* The same over the native-only calls (block collectives, scan, exscan). */
coll_case suite_mixed_native(int i, int size);

#endif /* GPU_SUITE_H */
