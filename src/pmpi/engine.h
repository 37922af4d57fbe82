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

/* The communicator's engine, built (collectively) if this is its first use; NULL when it has
 * none. Persistent calls build it when they are initialized. */
mcoll_comm *mcoll_engine_of(mcoll_comm_state *cs);

/* While on (this thread only), the functions above return once the kernel is queued on the
 * team's stream (mcoll_comm_stream) instead of waiting for it: the nonblocking calls record an
 * event after it and complete their request when the event has passed (request.h). */
void mcoll_engine_launch_only(int on);

#endif /* MCOLL_ENGINE_H */
