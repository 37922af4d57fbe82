/* Hierarchical collectives: a communicator whose ranks span several NVLink domains runs each
 * collective as steps inside every domain (on the domain's GPU engine) and steps between the
 * domains (through the user's MPI: device pointers when it is CUDA-aware, pinned host memory
 * otherwise). See docs/hierarchical.md.
 *
 * The domain split, the sub-communicators and the domain's engine are computed once per
 * communicator and kept in one record, which the plug-in caches with the communicator's own
 * (src/pmpi/comm_attr.h) and frees with it. */
#ifndef MCOLL_HIER_H
#define MCOLL_HIER_H

#include <mpi.h>
#include <stddef.h>
#include "launch.h"
#include "mcoll.h"

typedef struct mcoll_hier mcoll_hier;

/* Collective over the intracommunicator `comm` (the node split of nodes.h, an allreduce on the
 * node, one allreduce and one allgather over `comm`, and two MPI_Comm_split when it spans
 * domains). Returns 1 when the ranks of `comm` are one NVLink domain, which one team of the
 * engines can hold: one node (not cut by MCOLL_DOMAIN_SIZE), or one NVLink clique over several
 * nodes; else 0. *out is the record when the ranks form more than one domain, NULL otherwise
 * (one domain, or MPI failed or the ranks disagree: then a communicator on several nodes is
 * taken as one group the engines cannot take). */
int mcoll_hier_learn(MPI_Comm comm, mcoll_hier **out);
/* Collective (with MPI_Comm_free, or inside MPI_Finalize): the domain's engine, the
 * sub-communicators, the memory. */
void mcoll_hier_free(mcoll_hier *h);

/* Every domain of at least two ranks: the hierarchy can use NVLink somewhere (1 rank per
 * domain everywhere gives it nothing to do). */
int mcoll_hier_useful(const mcoll_hier *h);
/* Nonblocking and persistent calls take the hierarchy too (MCOLL_HIER_NONBLOCKING on every
 * rank, agreed by mcoll_hier_learn). */
int mcoll_hier_nonblocking(const mcoll_hier *h);
/* 1 once, the first time after the domain's GPU engine was built (the plug-in then lists the
 * communicator's record as holding an engine, for the order of teardown). */
int mcoll_hier_engine_built(mcoll_hier *h);
/* The calls' time split so far (mcoll.h, mcoll_hier_times), then zeros when `reset`. */
void mcoll_hier_times_take(mcoll_hier *h, int reset, mcoll_hier_times_t *times);
/* One line for logs: "4 ranks in 2 domains of 2 (MCOLL_DOMAIN_SIZE)". */
const char *mcoll_hier_describe(const mcoll_hier *h);

/* One call as the plug-in decided it. Counts are elements of `type` (size `esize`): the whole
 * vector for allreduce, reduce and bcast, one rank's block for allgather and reduce-scatter.
 * Bcast and allgather move bytes (type MPI_BYTE, esize 1). */
typedef struct {
    const void *sendbuf;     /* may be MPI_IN_PLACE */
    void *recvbuf;           /* bcast: the buffer */
    size_t count;
    size_t esize;
    MPI_Datatype type;       /* a predefined type the MPI reduces with `op` */
    MPI_Op op;               /* MPI_OP_NULL for bcast and allgather */
    mcoll_dtype dtype;       /* the kernels' type and op for the same reduction */
    mcoll_op kernel_op;
    int root;                /* bcast, reduce: rank in the communicator */
    int device;              /* the buffers are device memory (of the current context's GPU) */
    int cuda_aware;          /* the MPI takes device pointers */
    int engines;             /* the domains may use their GPU engine (else MPI inside them too) */
} mcoll_hier_args;

/* Run the call; MCOLL_SUCCESS, or the first error (every MPI step is still made, so the other
 * ranks are not left waiting). */
mcoll_result mcoll_hier_allreduce(mcoll_hier *h, const mcoll_hier_args *a);
mcoll_result mcoll_hier_reduce(mcoll_hier *h, const mcoll_hier_args *a);
mcoll_result mcoll_hier_bcast(mcoll_hier *h, const mcoll_hier_args *a);
mcoll_result mcoll_hier_allgather(mcoll_hier *h, const mcoll_hier_args *a);
mcoll_result mcoll_hier_reduce_scatter(mcoll_hier *h, const mcoll_hier_args *a);

/* Nonblocking and persistent calls (hier_op.h says how they run). */
typedef struct mcoll_hier_op mcoll_hier_op;
typedef mcoll_result (*mcoll_hier_collective)(mcoll_hier *h, const mcoll_hier_args *a);
/* The steps `collective` would make on `a`, recorded with their own scratch and staging memory;
 * never communicates, and uses the domain's engine only when an earlier blocking call built it.
 * NULL with *rc set when it cannot be recorded (memory). */
mcoll_hier_op *mcoll_hier_op_record(mcoll_hier *h, const mcoll_hier_args *a, mcoll_hier_collective collective,
                                    mcoll_result *rc);
/* Start it (again, for a persistent call): behind the communicator's calls in flight. */
void mcoll_hier_op_start(mcoll_hier_op *op);
/* Never blocks: advances it as far as queries allow; 1 once done (*rc the result), else 0. */
int mcoll_hier_op_test(mcoll_hier_op *op, mcoll_result *rc);
/* 1 while started and not done. */
int mcoll_hier_op_in_flight(const mcoll_hier_op *op);
/* Free one that is not in flight. */
void mcoll_hier_op_free(mcoll_hier_op *op);

#endif /* MCOLL_HIER_H */
