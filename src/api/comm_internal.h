/* What the rest of the library needs of a native communicator beyond the public API: its
 * layout, and the collectives without argument checks.
 *
 * The mcoll_comm_run_* functions trust their caller: the datatype and op are already decoded
 * to the kernels' types, counts are in elements of that type (bytes for bcast and allgather),
 * the root is a rank of the team and the buffers are device memory of the team's GPU. The
 * public functions (collectives.c) check and decode the user's arguments and call them; the
 * PMPI plug-in calls them with what its decision has established (src/pmpi/decide.h). Each
 * enqueues on `stream` and returns; count 0 does nothing; sendbuf may be MPI_IN_PLACE. */
#ifndef MCOLL_COMM_INTERNAL_H
#define MCOLL_COMM_INTERNAL_H

#include <stddef.h>
#include "mcoll.h"
#include "async.h"
#include "completion_word.h"
#include "launch.h"
#include "resident.h"
#include "team.h"
#include "window.h"

struct mcoll_comm {
    mcoll_team *team;
    mcoll_config config;
    mcoll_windows windows;       /* memory allocated or registered on it (src/mem/) */
    unsigned long long zero_copy_calls; /* collectives run on windows without staging (direct.c) */
    mcoll_resident resident;     /* the resident kernel of blocking calls through MPI (resident.h) */
    mcoll_async_lane lane;       /* launches queued to the launcher thread (async.h) */
    mcoll_word word;             /* completion word of the launches on the team's stream */
};

/* Enter the team's context before driver calls; MCOLL_ERR_ABORTED once a peer is gone. Outside
 * the launcher thread it first waits for every launch queued before it, on any communicator
 * (async.h): every launch, stream and resident-kernel use on the team passes here, so this is
 * where the queue's order is kept. */
mcoll_result mcoll_comm_enter_context(mcoll_comm *comm);
/* The same before a launch on `stream`: the resident kernel is told to end after the calls in
 * its ring, and `stream` waits on the GPU until it has (resident.h, mcoll_resident_fence), so
 * launches keep their order, no launched LL kernel runs beside it, and the caller never waits for
 * the peers here. Launches on the team's stream are then armed with a completion word
 * (completion_word.h); the launchers take the team from mcoll_comm_dev. */
mcoll_result mcoll_comm_enter_on(mcoll_comm *comm, struct CUstream_st *stream);
/* The team as the launches after mcoll_comm_enter_on get it. */
const mcoll_dev_team *mcoll_comm_dev(const mcoll_comm *comm);
/* The same before a use of the team that is not a launch on a stream: every call posted to the
 * ring is waited for on the host and the kernel told to end. An error of that wait is returned
 * (the ring is unusable from then on). */
mcoll_result mcoll_comm_enter(mcoll_comm *comm);
/* Only the context part of mcoll_comm_enter_context, without waiting: for a completion call that
 * starts the resident kernel again. */
mcoll_result mcoll_comm_current(mcoll_comm *comm);

/* The LL protocol's form of a call (collectives/ll.cuh) in *out, or 0 when the call is not for
 * it. Counts as for the mcoll_comm_run_* below (elements of dtype; bytes for bcast and allgather,
 * whose dtype is ignored); sendbuf may be MPI_IN_PLACE. Every rank of a call gets the same answer. */
int mcoll_comm_ll_form(const mcoll_comm *comm, mcoll_ll_kind kind, const void *sendbuf, void *recvbuf, size_t count,
                       mcoll_dtype dtype, mcoll_op op, int root, mcoll_ll_call *out);
/* A launcher's status as a result; a failed launch logs `what` and the CUDA error. */
mcoll_result mcoll_comm_launched(int status, const char *what);

mcoll_result mcoll_comm_run_allreduce(mcoll_comm *comm, const void *sendbuf, void *recvbuf, size_t count,
                                      mcoll_dtype dtype, mcoll_op op, struct CUstream_st *stream);
mcoll_result mcoll_comm_run_reduce(mcoll_comm *comm, const void *sendbuf, void *recvbuf, size_t count,
                                   mcoll_dtype dtype, mcoll_op op, int root, struct CUstream_st *stream);
mcoll_result mcoll_comm_run_bcast(mcoll_comm *comm, void *buf, size_t bytes, int root, struct CUstream_st *stream);
/* recvcount elements per rank; sendbuf holds team size * recvcount. */
mcoll_result mcoll_comm_run_reduce_scatter(mcoll_comm *comm, const void *sendbuf, void *recvbuf, size_t recvcount,
                                           mcoll_dtype dtype, mcoll_op op, struct CUstream_st *stream);
/* sendbytes per rank; recvbuf holds team size * sendbytes. */
mcoll_result mcoll_comm_run_allgather(mcoll_comm *comm, const void *sendbuf, void *recvbuf, size_t sendbytes,
                                      struct CUstream_st *stream);
mcoll_result mcoll_comm_run_barrier(mcoll_comm *comm, struct CUstream_st *stream);

/* The calls that move data without reducing it, with counts and displacements in elements of
 * `size` bytes (any contiguous datatype) and arrays of one entry per rank of the team, read
 * during the call; what MPI reads on the root only (root's receive side of gatherv, send side
 * of scatterv) may be NULL elsewhere. MPI_IN_PLACE where MPI allows it (sendbuf; recvbuf on the
 * root of scatter and scatterv). Fixed counts of 0 do nothing; the variable-count calls always
 * reach the kernels, since a rank with nothing to move may still take part in moving the others'. */
mcoll_result mcoll_comm_run_allgatherv(mcoll_comm *comm, const void *sendbuf, size_t sendcount, void *recvbuf,
                                       const size_t recvcounts[], const size_t displs[], size_t size,
                                       struct CUstream_st *stream);
mcoll_result mcoll_comm_run_alltoall(mcoll_comm *comm, const void *sendbuf, void *recvbuf, size_t count, size_t size,
                                     struct CUstream_st *stream);
mcoll_result mcoll_comm_run_alltoallv(mcoll_comm *comm, const void *sendbuf, const size_t sendcounts[],
                                      const size_t sdispls[], void *recvbuf, const size_t recvcounts[],
                                      const size_t rdispls[], size_t size, struct CUstream_st *stream);
mcoll_result mcoll_comm_run_gather(mcoll_comm *comm, const void *sendbuf, void *recvbuf, size_t count, size_t size,
                                   int root, struct CUstream_st *stream);
mcoll_result mcoll_comm_run_gatherv(mcoll_comm *comm, const void *sendbuf, size_t sendcount, void *recvbuf,
                                    const size_t recvcounts[], const size_t displs[], size_t size, int root,
                                    struct CUstream_st *stream);
mcoll_result mcoll_comm_run_scatter(mcoll_comm *comm, const void *sendbuf, void *recvbuf, size_t count, size_t size,
                                    int root, struct CUstream_st *stream);
mcoll_result mcoll_comm_run_scatterv(mcoll_comm *comm, const void *sendbuf, const size_t sendcounts[],
                                     const size_t displs[], void *recvbuf, size_t recvcount, size_t size, int root,
                                     struct CUstream_st *stream);
/* Prefix reductions: counts in elements of dtype. Exscan does not write rank 0's recvbuf. */
mcoll_result mcoll_comm_run_scan(mcoll_comm *comm, const void *sendbuf, void *recvbuf, size_t count, mcoll_dtype dtype,
                                 mcoll_op op, struct CUstream_st *stream);
mcoll_result mcoll_comm_run_exscan(mcoll_comm *comm, const void *sendbuf, void *recvbuf, size_t count,
                                   mcoll_dtype dtype, mcoll_op op, struct CUstream_st *stream);

/* The context the calling thread launches on `comm` in: the team's, when the team made it
 * current for a thread without one, else the caller's (whose streams the team made). A launch
 * queued to the launcher thread (async.h) runs in the context its caller would have used. */
CUcontext mcoll_comm_context(mcoll_comm *comm);

/* The team's streams for calls through MPI (call_streams.c). Blocking calls run on the blocking
 * stream, which the legacy default stream orders after the application's earlier work there.
 * Nonblocking and persistent calls run on the non-blocking stream, so that the application's
 * legacy-stream work after the start (a cudaMemcpy before a message that lets a peer reach the
 * call) never waits for their kernels; with MCOLL_LEGACY_STREAM_ORDER on, each launch there
 * waits on the GPU for the legacy default stream's work queued before it. */
struct CUstream_st *mcoll_comm_stream(mcoll_comm *comm);
struct CUstream_st *mcoll_comm_nb_stream(mcoll_comm *comm);
/* Before a launch on `stream` (from mcoll_comm_enter_on): on either stream of the team, the
 * launch is made to come after every earlier launch of the team on the other one (an event
 * waited for on the GPU, only where the other stream has had launches since). Other streams
 * (the native API's) are the caller's to order. */
mcoll_result mcoll_comm_order(mcoll_comm *comm, struct CUstream_st *stream);
/* 1 while a launch on either stream may still run (a stream query says so). */
int mcoll_comm_calls_running(mcoll_comm *comm);
/* Wait for everything enqueued on the two streams. */
mcoll_result mcoll_comm_sync(mcoll_comm *comm);
/* Wait for the call just launched on that stream by this thread: on its completion word where
 * its kernel carries one (mcoll_launch_word_taken), else as mcoll_comm_sync. A call that mapped
 * buffers for itself waits for the stream when they go (src/mem/call_windows.c). */
mcoll_result mcoll_comm_wait(mcoll_comm *comm);

#endif /* MCOLL_COMM_INTERNAL_H */
