/* mcoll's requests: nonblocking and persistent collectives on device buffers.
 *
 * A call whose buffers are host memory (or that a CUDA-aware MPI takes as it is) goes to the
 * MPI's own nonblocking or persistent call, and the user holds the MPI's own request. A call on
 * device buffers that the engines or the staged path run becomes an mcoll operation, and the
 * user holds an MPI generalized request (MPI_Grequest_start): an ordinary MPI request to every
 * completion call, mixed freely with the MPI's own, with statuses and MPI_ERR_IN_STATUS as MPI
 * defines them for generalized requests. A persistent operation is held as an inactive
 * persistent request of the MPI's (a receive from MPI_PROC_NULL, never started), and each
 * MPI_Start of it opens a generalized request that the completion calls see in its place.
 *
 * Operations advance in steps, each a cheap query, whenever the application calls an MPI
 * completion function (the wrappers in completion.c call mcoll_requests_progress first):
 *   ring     a call of the LL protocol that the resident kernel's ring takes (decided with
 *            mcoll_engine_ring_plan) is posted there (src/api/resident.h); RING until the ring's
 *            done count has passed its number. Never queued to the launcher thread;
 *   engine   the call launches the kernel on the team's stream and records an event after it, or
 *            with MCOLL_ASYNC_START=1 queues that to the launcher thread (src/api/async.h; QUEUED
 *            until it has been done); KERNEL until the event has passed (then, for a host receive
 *            buffer at a reduce's root, which always launches in the caller, COPY_OUT from device
 *            scratch memory);
 *   hier     a communicator spanning NVLink domains: the call's steps are recorded at its start
 *            (src/hier/hier_op.h) and made one by one, each a launch, a PMPI_I* call or a copy
 *            started and then queried; HIER until the last is done (then, for a reduce root's
 *            host receive buffer, COPY_OUT from device scratch memory);
 *   staged   the device-to-host copy is waited for at the call and the MPI's nonblocking call
 *            made on pinned host memory, so the MPI part is posted before the call returns (MPI
 *            then progresses it in any MPI call, as its progress rule requires); MPI until that
 *            request completes, then COPY_OUT (host-to-device copies and an event).
 * A finished operation's generalized request is completed (MPI_Grequest_complete); the
 * completion call that sees it reads its status and frees it. The launcher thread, when on, only
 * launches; progress happens in the completion calls. */
#ifndef MCOLL_REQUEST_H
#define MCOLL_REQUEST_H

#include <mpi.h>
#include "pmpi.h"
#include "decide.h"

/* What the plug-in needs of a collective's nonblocking and persistent forms, beyond its
 * mcoll_coll: one entry per collective (nonblocking.c). */
typedef struct {
    const mcoll_coll *coll;
    const char *name;    /* "iallreduce" */
    /* PMPI_I<name> on the given buffers, with the call's own counts and types. */
    int (*start)(const mcoll_call *c, const void *sendbuf, void *recvbuf, MPI_Request *req);
    /* The MPI's persistent form (PMPI_<Name>_init or PMPIX_<Name>_init); NULL when the MPI
     * declares none. */
    int (*init)(const mcoll_call *c, MPI_Info info, MPI_Request *req);
    /* 1: its engine hook asks the resident kernel first, so the call may go to its ring
     * (mcoll_engine_ring_plan). */
    int ring;
} mcoll_nb_coll;

/* The entries (nonblocking.c). */
extern const mcoll_nb_coll mcoll_nb_allreduce, mcoll_nb_bcast, mcoll_nb_reduce, mcoll_nb_reduce_scatter_block,
    mcoll_nb_reduce_scatter, mcoll_nb_allgather;
/* nonblocking_blocks.c, nonblocking_scan.c */
extern const mcoll_nb_coll mcoll_nb_allgatherv, mcoll_nb_alltoall, mcoll_nb_alltoallv, mcoll_nb_alltoallw,
    mcoll_nb_gather, mcoll_nb_gatherv, mcoll_nb_scatter, mcoll_nb_scatterv, mcoll_nb_scan, mcoll_nb_exscan;

/* Entry points the Fortran bindings call (the C ones call them too). */
int mcoll_mpi_iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                         MPI_Request *request);
int mcoll_mpi_ibcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm, MPI_Request *request);
int mcoll_mpi_ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, int root,
                      MPI_Comm comm, MPI_Request *request);
int mcoll_mpi_ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype type, MPI_Op op,
                                    MPI_Comm comm, MPI_Request *request);
int mcoll_mpi_ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype type,
                              MPI_Op op, MPI_Comm comm, MPI_Request *request);
int mcoll_mpi_iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                         MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
int mcoll_mpi_ibarrier(MPI_Comm comm, MPI_Request *request);
int mcoll_mpi_iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                          const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                          MPI_Request *request);
int mcoll_mpi_ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                        MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
int mcoll_mpi_ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                         void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                         MPI_Comm comm, MPI_Request *request);
int mcoll_mpi_ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                         const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[],
                         const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request);
int mcoll_mpi_igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                      MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request);
int mcoll_mpi_igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                       const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm,
                       MPI_Request *request);
int mcoll_mpi_iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                       MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request);
int mcoll_mpi_iscatterv(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                        void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                        MPI_Request *request);
int mcoll_mpi_iscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                    MPI_Request *request);
int mcoll_mpi_iexscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                      MPI_Request *request);

typedef struct mcoll_nbop mcoll_nbop;

/* Nonblocking call: prepare and decide like a blocking call, then hand the user the MPI's own
 * request or an mcoll one. Returns what the MPI function returns. */
int mcoll_nb_run(mcoll_call *c, const mcoll_nb_coll *nb, MPI_Request *request);
/* Persistent initialization: the same, once; the plan is kept for every MPI_Start. */
int mcoll_nb_init(mcoll_call *c, const mcoll_nb_coll *nb, MPI_Info info, MPI_Request *request);
/* One of the two: persistent, or nonblocking. */
int mcoll_nb_call(mcoll_call *c, const mcoll_nb_coll *nb, int persistent, MPI_Info info, MPI_Request *request);

/* An operation on a decided call (path engine, hier or staged). persistent: kept for MPI_Start, and
 * *request receives its persistent handle; otherwise it starts now and *request receives its
 * generalized request. On failure the error class has been raised and nothing is left. */
int mcoll_nbop_create(const mcoll_call *c, const mcoll_decision *d, const mcoll_nb_coll *nb, int persistent,
                    MPI_Request *request);
/* MPI_Start of a persistent operation: MPI_SUCCESS or the class raised (MPI_ERR_REQUEST when it
 * is active already, MPI_ERR_COMM when its communicator was freed). */
int mcoll_nbop_start(mcoll_nbop *op);
/* MPI_Request_free of a persistent operation: at once when inactive; when active it finishes
 * in the background and is freed then. */
void mcoll_nbop_free_persistent(mcoll_nbop *op);

/* Lookups by the handle the user holds (under the registry's lock; the answers stay valid while
 * the user does not free the request). */
mcoll_nbop *mcoll_request_persistent(MPI_Request r);
/* 1 when r is the generalized request of an operation that has not finished yet. */
int mcoll_request_pending(MPI_Request r);
/* The generalized request of a started persistent operation (what completion calls see in its
 * place), or MPI_REQUEST_NULL when it is inactive. */
MPI_Request mcoll_request_active(const mcoll_nbop *op);
/* 1 when op is persistent. */
int mcoll_nbop_is_persistent(const mcoll_nbop *op);

/* Nonzero while mcoll requests are alive (generalized requests not yet freed, persistent
 * operations not yet freed) or operations in flight; 0 lets the completion wrappers go straight
 * to PMPI. */
int mcoll_requests_live(void);
/* Advance every operation by one step and complete the generalized requests of those that
 * finished. Cheap when nothing is in flight; one thread at a time (others return at once). */
void mcoll_requests_progress(void);
/* The communicator of `cs` is being freed: operations still using its engine finish first,
 * and persistent operations on it can no longer be started. */
void mcoll_requests_comm_freed(mcoll_comm_state *cs);
/* Inside MPI_Finalize, before the engines go: finish every operation, free what they hold. */
void mcoll_requests_finalize(void);

#endif /* MCOLL_REQUEST_H */
