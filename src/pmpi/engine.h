/* The GPU engines as the MPI layer sees them.
 *
 * Each function runs one collective on device buffers of a communicator whose ranks share a
 * node, and returns when the result is in the user's buffer (MPI semantics):
 *   MCOLL_SUCCESS          done on a GPU engine;
 *   MCOLL_ERR_UNSUPPORTED  not taken (communicator spans nodes or is too small, datatype or op
 *                          the kernels lack, engines off or unavailable); nothing was done and
 *                          the caller must use its fallback. Every rank of the communicator
 *                          gets the same answer for the same call arguments;
 *   other errors           the engine failed; the caller reports MPI_ERR_OTHER.
 * The first call on a communicator builds its team (collective: all ranks must be making the
 * same call, which MPI already requires; all ranks pass device buffers) and keeps it in the
 * communicator's record (comm_attr.h), which frees it with the communicator or at MPI_Finalize.
 * Arguments have been validated by the caller. */
#ifndef MCOLL_ENGINE_H
#define MCOLL_ENGINE_H

#include <mpi.h>
#include "mcoll.h"
#include "comm_attr.h"

mcoll_result mcoll_engine_allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type,
                                    MPI_Op op, mcoll_comm_state *cs);
mcoll_result mcoll_engine_bcast(void *buf, int count, MPI_Datatype type, int root, mcoll_comm_state *cs);
mcoll_result mcoll_engine_reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type,
                                 MPI_Op op, int root, mcoll_comm_state *cs);
mcoll_result mcoll_engine_reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                                               MPI_Datatype type, MPI_Op op, mcoll_comm_state *cs);
mcoll_result mcoll_engine_allgather(const void *sendbuf, int sendcount, void *recvbuf, int recvcount,
                                    MPI_Datatype type, mcoll_comm_state *cs);

#endif /* MCOLL_ENGINE_H */
