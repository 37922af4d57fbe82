/* Zero-copy forms of the collectives (direct.c). Each returns 1 when it took the call (its
 * result in *rc), 0 when the call does not qualify and must take the staged path; every rank
 * answers alike. Arguments as the mcoll_comm_run_* functions take them, MPI_IN_PLACE resolved,
 * counts non-zero, the team's context entered. */
#ifndef MCOLL_DIRECT_H
#define MCOLL_DIRECT_H

#include "comm_internal.h"

int mcoll_direct_allreduce(mcoll_comm *comm, const void *sendbuf, void *recvbuf, size_t count, mcoll_dtype dtype,
                           mcoll_op op, struct CUstream_st *stream, mcoll_result *rc);
int mcoll_direct_reduce(mcoll_comm *comm, const void *sendbuf, void *recvbuf, size_t count, mcoll_dtype dtype,
                        mcoll_op op, int root, struct CUstream_st *stream, mcoll_result *rc);
int mcoll_direct_reduce_scatter(mcoll_comm *comm, const void *sendbuf, void *recvbuf, size_t recvcount,
                                mcoll_dtype dtype, mcoll_op op, struct CUstream_st *stream, mcoll_result *rc);
int mcoll_direct_bcast(mcoll_comm *comm, void *buf, size_t bytes, int root, struct CUstream_st *stream,
                       mcoll_result *rc);
int mcoll_direct_allgather(mcoll_comm *comm, const void *sendbuf, void *recvbuf, size_t sendbytes,
                           struct CUstream_st *stream, mcoll_result *rc);

/* Whether the team runs the forms above at all (its engine). */
int mcoll_direct_team(const mcoll_comm *comm);

/* What the forms above need of a call's buffers, for callers that map them per call
 * (src/pmpi/engine_map.c): the reach of a buffer read in 16-byte packs; reduce_scatter's input
 * bytes; and whether its receive block lies outside its input (a rank alone can tell, so such
 * callers agree on it before they map). */
size_t mcoll_direct_round16(size_t n);
size_t mcoll_direct_reduce_scatter_total(size_t recvcount, mcoll_dtype dtype, int size);
int mcoll_direct_apart(const void *sendbuf, size_t total, const void *recvbuf, size_t block);

#endif /* MCOLL_DIRECT_H */
