/* The PMPI wrappers' shared machinery.
 *
 * Every intercepted collective fills one mcoll_call and hands it to mcoll_pmpi_run, which does
 * the same steps for all of them: look the datatype and op up in the table (typeinfo.h),
 * validate the arguments, describe the buffers this rank reads and writes, classify them (host
 * or device), decide the path once (decide.h) and run it:
 *   mpi       every buffer is host memory: PMPI_* with the user's arguments;
 *   engine    device buffers, and a GPU engine takes the call (engine.h);
 *   direct    device buffers handed to a CUDA-aware MPI;
 *   staged    device buffers copied through pinned host memory around PMPI_* (stage.h).
 * What differs between collectives lives in one mcoll_coll per collective, in one file per family
 * (pmpi_<family>.c: pmpi_alltoall.c holds alltoall, alltoallv and alltoallw). */
#ifndef MCOLL_PMPI_H
#define MCOLL_PMPI_H

#include <mpi.h>
#include "mcoll.h"
#include "classify.h"
#include "comm_attr.h"
#include "typeinfo.h"
#include "chain.h" /* the wrappers pass the user's calls on with mcoll_next_<Name> */

/* One buffer of a call as this rank uses it. Counts are in elements of `type`, counted from the
 * user's pointer. */
typedef struct {
    char *user;          /* the user's pointer */
    MPI_Datatype type;
    MPI_Aint first;      /* the call uses elements [first, first + count): 0 except for the */
    MPI_Aint count;      /* blocks of v and w variants, which may start anywhere */
    int in;              /* this rank reads it */
    int out;             /* this rank writes it ... */
    MPI_Aint out_first;  /* ... elements [out_first, out_first + out_count) */
    MPI_Aint out_count;
    /* filled by mcoll_pmpi_run */
    MPI_Aint extent, true_lb, true_extent;
    int size;            /* bytes of data per element */
    int dense;           /* no gaps: extent == true extent == size */
    mcoll_mem_kind mem;
    int device;
    int staged;          /* copied through host memory on this call */
    int ignored;         /* an argument MPI does not read on this rank (reduce's recvbuf off
                            the root): handed to PMPI as NULL when it is device memory */
    int local_only;      /* a buffer only this rank has (reduce's recvbuf at the root): its
                            kind must not change whether the engines are asked, which every
                            rank must decide alike */
} mcoll_buf;

/* Which MPI function of a collective the user called (MPI_Allreduce, MPI_Iallreduce or
 * MPI_Allreduce_init): error reports name it, the INFO lines tell the three apart. */
typedef enum { MCOLL_CALL_BLOCKING, MCOLL_CALL_NONBLOCKING, MCOLL_CALL_PERSISTENT } mcoll_call_form;

typedef struct mcoll_call mcoll_call;
typedef struct mcoll_decision mcoll_decision;

typedef struct {
    const char *name;                              /* "allreduce" */
    int elementwise;                               /* may be cut into chunks of elements */
    /* MPI_SUCCESS or the error class of the first bad argument (comm already checked). */
    int (*validate)(const mcoll_call *c);
    /* Fill c->send and c->recv: which buffers this rank reads and writes. */
    void (*layout)(mcoll_call *c);
    /* Elements of c->recvtype in one rank's block of the call as the engines run it, or -1 with
     * *why set when the engines cannot run calls of this shape. Depends only on arguments every
     * rank passes alike. */
    MPI_Aint (*engine_block)(const mcoll_call *c, const char **why);
    /* Run the call on the engine as decided (engine.h), or NULL when the collective has none. */
    mcoll_result (*engine)(const mcoll_call *c, const mcoll_decision *d);
    /* The PMPI call on the given buffers. Elementwise collectives run `count` elements from
     * there; the others ignore `count` and use the call's own counts. */
    int (*mpi)(const mcoll_call *c, const void *sendbuf, void *recvbuf, int count);
    /* 1 when a rank may move no data while others do and cannot tell what they pass (gatherv,
     * scatterv, alltoallv: counts that only some ranks know): the ranks agree on the engines
     * (decide.c). */
    int uneven;
    /* The engines' zero-copy form of the call (src/api/direct.c), which the plug-in may map the
     * buffers for (decide.c): MCOLL_ZERO_COPY_NONE, _MESSAGE (its largest buffer is the block:
     * allreduce, reduce, bcast) or _PER_RANK (a block per rank: reduce-scatter, allgather). */
    int zero_copy;
} mcoll_coll;

enum { MCOLL_ZERO_COPY_NONE = 0, MCOLL_ZERO_COPY_MESSAGE, MCOLL_ZERO_COPY_PER_RANK };

struct mcoll_call {
    const mcoll_coll *coll;
    mcoll_call_form form;      /* blocking unless the nonblocking entry points say otherwise */
    const void *sendbuf;
    void *recvbuf;             /* MPI_Bcast: its buffer; MPI_Reduce_local: inoutbuf */
    int count;                 /* allreduce, reduce, bcast, scan, exscan, reduce_local: count;
                                  reduce_scatter_block: recvcount; the others: sendcount */
    int recvcount;             /* allgather, alltoall, gather, scatter(v), neighbor_allgather,
                                  neighbor_alltoall */
    const int *recvcounts;     /* reduce_scatter and the v and w variants */
    const int *sendcounts;     /* alltoallv/w, scatterv, neighbor_alltoallv/w */
    const int *sdispls;        /* alltoallv, scatterv, neighbor_alltoallv (elements); alltoallw
                                  (bytes) */
    const int *rdispls;        /* allgatherv, gatherv, neighbor_allgatherv: displs; alltoallv,
                                  neighbor_alltoallv (elements); alltoallw (bytes) */
    const MPI_Aint *sdispls_bytes, *rdispls_bytes; /* neighbor_alltoallw */
    const MPI_Datatype *sendtypes, *recvtypes;     /* the w variants */
    MPI_Datatype type;         /* the others: sendtype */
    MPI_Datatype recvtype;     /* allgather and the others with a recvtype */
    MPI_Op op;
    MPI_Op mpi_op;             /* the op PMPI gets: 16-bit float ops replaced by mcoll's */
    int opi;                   /* index of a built-in op (typeinfo.h), -1 otherwise */
    const mcoll_type_info *info, *recvinfo; /* table rows of type and recvtype; NULL: derived */
    int root;
    MPI_Comm comm;
    int local;                 /* no communicator (MPI_Reduce_local): comm is MPI_COMM_SELF, for
                                  its record; nothing is agreed with other ranks and errors go
                                  to MPI_COMM_WORLD's handler, as Open MPI does */
    int nonblocking;           /* a nonblocking or persistent call: decided without waiting */
    mcoll_comm_state *cs;      /* set before validate */
    mcoll_buf send, recv;      /* set by layout; unused roles have in = out = 0 */
};

/* Run one intercepted collective; returns what the MPI function returns. */
int mcoll_pmpi_run(mcoll_call *c);

/* The steps before the run (look up, validate, lay out, classify, decide), shared with the
 * nonblocking and persistent calls (request.h). Returns MPI_SUCCESS with *d decided,
 * MCOLL_PMPI_FORWARD when the call goes to PMPI untouched (plug-in off), or the error class of a
 * bad argument, already raised through the communicator's error handler. c->cs may be set by
 * the caller; else it is looked up (created on first use). */
#define MCOLL_PMPI_FORWARD (-1)
int mcoll_pmpi_prepare(mcoll_call *c, mcoll_decision *d);
/* The INFO (and TRACE) lines saying which path a decided call takes and why. */
void mcoll_pmpi_log_path(const mcoll_call *c, const mcoll_decision *d);

/* engine_block of the collectives whose block is the call's count. */
MPI_Aint mcoll_block_is_count(const mcoll_call *c, const char **why);
/* engine_block of the collectives with one block on each side at this rank (engine_blocks.c):
 * `block` when this rank's send block (sendcount elements) and receive block (recvcount) have
 * the same bytes, as MPI requires, or one side is not used here; else -1 with *why set. The
 * engines move the send block into the receive block as bytes. */
MPI_Aint mcoll_block_matching(const mcoll_call *c, MPI_Aint sendcount, MPI_Aint recvcount, MPI_Aint block,
                              const char **why);

/* layout of allreduce, scan and exscan: sendbuf (or MPI_IN_PLACE) and recvbuf of count
 * elements. */
void mcoll_layout_elementwise(mcoll_call *c);

/* Rooted collectives (reduce, gather, scatter and their v variants): this rank is the root (on
 * an intercommunicator, it passed MPI_ROOT). */
int mcoll_is_root(const mcoll_call *c);
/* ... this rank sends to or receives from the root: every rank of an intracommunicator, the
 * root included; on an intercommunicator the ranks of the other group (not MPI_ROOT, not
 * MPI_PROC_NULL). */
int mcoll_is_leaf(const mcoll_call *c);

/* The collectives (pmpi_<family>.c). */
extern const mcoll_coll mcoll_coll_allreduce, mcoll_coll_bcast, mcoll_coll_reduce,
    mcoll_coll_reduce_scatter_block, mcoll_coll_reduce_scatter, mcoll_coll_allgather;
extern const mcoll_coll mcoll_coll_allgatherv, mcoll_coll_alltoall, mcoll_coll_alltoallv, mcoll_coll_alltoallw,
    mcoll_coll_gather, mcoll_coll_gatherv, mcoll_coll_scatter, mcoll_coll_scatterv, mcoll_coll_scan,
    mcoll_coll_exscan, mcoll_coll_reduce_local, mcoll_coll_neighbor_allgather, mcoll_coll_neighbor_allgatherv,
    mcoll_coll_neighbor_alltoall, mcoll_coll_neighbor_alltoallv, mcoll_coll_neighbor_alltoallw;

/* Entry points the Fortran bindings call (the C ones call them too). */
int mcoll_mpi_allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm);
int mcoll_mpi_bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm);
int mcoll_mpi_reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, int root,
                     MPI_Comm comm);
int mcoll_mpi_reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype type,
                                   MPI_Op op, MPI_Comm comm);
int mcoll_mpi_reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype type,
                             MPI_Op op, MPI_Comm comm);
int mcoll_mpi_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                        MPI_Datatype recvtype, MPI_Comm comm);
int mcoll_mpi_barrier(MPI_Comm comm);
int mcoll_mpi_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                         const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm);
int mcoll_mpi_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                       MPI_Datatype recvtype, MPI_Comm comm);
int mcoll_mpi_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                        void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                        MPI_Comm comm);
int mcoll_mpi_alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                        const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[],
                        const MPI_Datatype recvtypes[], MPI_Comm comm);
int mcoll_mpi_gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                     MPI_Datatype recvtype, int root, MPI_Comm comm);
int mcoll_mpi_gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm);
int mcoll_mpi_scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                      MPI_Datatype recvtype, int root, MPI_Comm comm);
int mcoll_mpi_scatterv(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                       void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
int mcoll_mpi_scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm);
int mcoll_mpi_exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm);
int mcoll_mpi_reduce_local(const void *inbuf, void *inoutbuf, int count, MPI_Datatype type, MPI_Op op);
int mcoll_mpi_neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int mcoll_mpi_neighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                  const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm);
int mcoll_mpi_neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int mcoll_mpi_neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                                 MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
                                 MPI_Datatype recvtype, MPI_Comm comm);
int mcoll_mpi_neighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                                 const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                                 const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm);

/* A buffer role: the user's pointer, its datatype and count; `in`/`out` as above, the whole
 * buffer written when out. */
void mcoll_buf_set(mcoll_buf *b, const void *user, MPI_Datatype type, MPI_Aint count, int in, int out);
/* A buffer argument that means nothing on this rank. */
void mcoll_buf_ignore(mcoll_buf *b, const void *user);

/* The blocks of the v variants (blocks.c): block i of n has counts[i] elements of `type` at
 * element displs[i]; with counts NULL (the fixed-count collectives) every block has `fixed`
 * elements and block i starts at i * fixed. The role spans the blocks that hold data, from the
 * lowest displacement to the highest end. A written role whose blocks leave gaps is read too,
 * so that copying the span back leaves the gaps as they were. */
void mcoll_buf_blocks(mcoll_buf *b, const void *user, MPI_Datatype type, int n, const int *counts,
                      const int *displs, int fixed, int in, int out);
/* The w variants: block i is counts[i] elements of types[i] at byte displacement displs[i]
 * (int displacements, or MPI_Aint ones in displs_bytes: the other is NULL). The role is its
 * span in bytes, as MPI_BYTE. */
void mcoll_buf_blocks_w(mcoll_buf *b, const void *user, int n, const int *counts, const int *displs,
                        const MPI_Aint *displs_bytes, const MPI_Datatype *types, int in, int out);
/* The in- and out-degree of a communicator with a topology (the blocks of the neighbourhood
 * collectives: 2 x dimensions for a Cartesian one, whose MPI_PROC_NULL neighbours still have
 * blocks); MPI_ERR_TOPOLOGY when it has none. */
int mcoll_neighbor_degrees(MPI_Comm comm, int *indegree, int *outdegree);

#endif /* MCOLL_PMPI_H */
