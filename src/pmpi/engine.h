/* The engine bridge: the GPU engines as the MPI layer sees them.
 *
 * Each function runs one decided call (decide.h, path MCOLL_PATH_ENGINE) on the native
 * communicator of its MPI communicator and returns when the result is in the user's buffer
 * (MPI semantics). Nothing is checked again: the kernels' dtype, op, counts and bytes are the
 * decision's. Results:
 *   MCOLL_SUCCESS          done on a GPU engine;
 *   MCOLL_ERR_UNSUPPORTED  the communicator has no engine (its team could not be built, which
 *                          every rank learns together); nothing was done and the caller falls
 *                          back (mcoll_decide_without_engine);
 *   other errors           the engine failed; the caller reports MPI_ERR_OTHER.
 * The first call on a communicator builds its team (collective: all ranks must be making the
 * same call, which MPI already requires, and all decide alike) and keeps it in the
 * communicator's record (comm_attr.h), which frees it with the communicator or at MPI_Finalize. */
#ifndef MCOLL_ENGINE_H
#define MCOLL_ENGINE_H

#include "mcoll.h"
#include "comm_attr.h"
#include "decide.h"

mcoll_result mcoll_engine_allreduce(mcoll_comm_state *cs, const mcoll_decision *d, const void *sendbuf, void *recvbuf);
mcoll_result mcoll_engine_reduce(mcoll_comm_state *cs, const mcoll_decision *d, const void *sendbuf, void *recvbuf,
                                 int root);
mcoll_result mcoll_engine_bcast(mcoll_comm_state *cs, const mcoll_decision *d, void *buf, int root);
/* d->count elements of every rank's block; sendbuf holds one block per rank. */
mcoll_result mcoll_engine_reduce_scatter(mcoll_comm_state *cs, const mcoll_decision *d, const void *sendbuf,
                                         void *recvbuf);
/* d->bytes per rank. */
mcoll_result mcoll_engine_allgather(mcoll_comm_state *cs, const mcoll_decision *d, const void *sendbuf, void *recvbuf);
/* d->bytes in each block (the block every rank sends to each, gathers from each or is sent). */
mcoll_result mcoll_engine_alltoall(mcoll_comm_state *cs, const mcoll_decision *d, const void *sendbuf, void *recvbuf);
mcoll_result mcoll_engine_gather(mcoll_comm_state *cs, const mcoll_decision *d, const void *sendbuf, void *recvbuf,
                                 int root);
mcoll_result mcoll_engine_scatter(mcoll_comm_state *cs, const mcoll_decision *d, const void *sendbuf, void *recvbuf,
                                  int root);
/* d->count elements of the kernels' dtype, combined with d->op in rank order. */
mcoll_result mcoll_engine_scan(mcoll_comm_state *cs, const mcoll_decision *d, const void *sendbuf, void *recvbuf);
mcoll_result mcoll_engine_exscan(mcoll_comm_state *cs, const mcoll_decision *d, const void *sendbuf, void *recvbuf);

/* The blocks of one side of a v variant as the engines take them: bytes and byte offsets per
 * rank from `base`, which is the user's pointer moved to the lowest displacement of a block that
 * holds data (MPI allows negative displacements; the kernels' offsets are unsigned). */
typedef struct {
    char *base;
    size_t bytes[MCOLL_MAX_RANKS];
    size_t offs[MCOLL_MAX_RANKS];
} mcoll_engine_blocks;

/* Fill `eb` from n counts and element displacements of a contiguous datatype of `size` bytes
 * (engine_blocks.c); MPI_IN_PLACE stays MPI_IN_PLACE. */
void mcoll_engine_blocks_set(mcoll_engine_blocks *eb, const void *user, int size, int n, const int *counts,
                             const int *displs);

/* A single block is sendbytes/recvbytes at sendbuf/recvbuf (or MPI_IN_PLACE); a side that this
 * rank does not have (gatherv's receive side off the root, scatterv's send side) is NULL. */
mcoll_result mcoll_engine_allgatherv(mcoll_comm_state *cs, const void *sendbuf, size_t sendbytes,
                                     const mcoll_engine_blocks *recv);
mcoll_result mcoll_engine_alltoallv(mcoll_comm_state *cs, const mcoll_engine_blocks *send,
                                    const mcoll_engine_blocks *recv);
mcoll_result mcoll_engine_gatherv(mcoll_comm_state *cs, const void *sendbuf, size_t sendbytes,
                                  const mcoll_engine_blocks *recv, int root);
mcoll_result mcoll_engine_scatterv(mcoll_comm_state *cs, const mcoll_engine_blocks *send, void *recvbuf,
                                   size_t recvbytes, int root);

/* A collective's engine hook (mcoll_coll.engine). */
typedef mcoll_result (*mcoll_engine_fn)(const mcoll_call *c, const mcoll_decision *d);
/* The root-only role of a call in host memory (local_only: reduce's and gather's recvbuf,
 * scatter's sendbuf at the root), or NULL. */
mcoll_buf *mcoll_engine_host_role(mcoll_call *e);
/* Run `run` with a root-only buffer in host memory (local_only, engine_root.c) replaced by
 * device scratch memory, copied in and out around it; `run` as it is when there is none. The
 * blocking calls run every engine hook through it (pmpi_run.c); the nonblocking ones replace
 * the buffer themselves (operation.c). */
mcoll_result mcoll_engine_root(const mcoll_call *c, const mcoll_decision *d, mcoll_engine_fn run);

/* The communicator's engine, built (collectively) if this is its first use; NULL when it has
 * none. Persistent calls build it when they are initialized. */
mcoll_comm *mcoll_engine_of(mcoll_comm_state *cs);
/* The communicator's engine, if it has one, takes its team's failure (a peer has exited): the
 * watchdog leaves the job running, since the call fails through the error handler. */
void mcoll_engine_take_failure(mcoll_comm_state *cs);

/* The part of a nonblocking or persistent call's decision that the engine must answer: whether
 * it goes to the resident kernel's ring (d->ring, with its LL form in d->ll; resident.h). Only
 * for collectives whose engine hook asks the resident kernel first (mcoll_nb_coll.ring): the
 * hook is run in a mode that stops there. Builds the communicator's engine if needed. */
int mcoll_engine_ring_plan(const mcoll_call *c, mcoll_decision *d);

/* While on (this thread only), the functions above return once the kernel is queued on the
 * team's stream for nonblocking calls (mcoll_comm_nb_stream) instead of waiting for it: the
 * nonblocking calls complete their request when its completion word, or an event recorded after
 * it, has passed (request.h). */
void mcoll_engine_launch_only(int on);

#endif /* MCOLL_ENGINE_H */
