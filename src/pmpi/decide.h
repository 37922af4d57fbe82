/* The decision: which path one intercepted call takes, made once per call in one place and
 * handed down as a value. Below it nothing checks the datatype, the op or the layout again: the
 * engine bridge runs the kernels' types and counts it names (engine.h), the staged path the
 * buffers it marks.
 *
 * Every rank of a collective must choose the same path wherever the paths differ in their
 * collective steps (the engines, chunked staging), so those choices rest only on what every
 * rank sees alike: the type signature (signature.h), the counts, the op, the communicator and
 * the kind of memory of the buffers every rank has (see docs/pmpi.md for the one exception). */
#ifndef MCOLL_DECIDE_H
#define MCOLL_DECIDE_H

#include <stddef.h>
#include "launch.h"
#include "pmpi.h"

typedef enum {
    MCOLL_PATH_MPI,    /* every buffer is host memory: PMPI_* with the user's arguments */
    MCOLL_PATH_ENGINE, /* device buffers, a GPU engine runs the call */
    MCOLL_PATH_DIRECT, /* device buffers handed to a CUDA-aware MPI */
    MCOLL_PATH_STAGED, /* device buffers copied through host memory around PMPI_* */
    MCOLL_PATH_HIER    /* device buffers, communicator spanning NVLink domains: the engine inside
                          each domain, the MPI between them (src/hier, hier_path.h) */
} mcoll_path;

struct mcoll_decision {
    mcoll_path path;
    const char *why;               /* the reason for the path (the INFO line) */
    const char *engine_why;        /* why the engines do not run it; NULL when they do, or when
                                      every buffer is host memory */
    /* The call as the engines run it, set when path is MCOLL_PATH_ENGINE: */
    const mcoll_type_info *base;   /* the one predefined type of the signature; NULL for other
                                      contiguous datatypes (moved as bytes) */
    MPI_Aint per_element;          /* base elements per element of the call's datatype */
    int reduces;                   /* a reduction, by the kernels' dtype and op below */
    mcoll_dtype dtype;
    mcoll_op op;
    int multimem;                  /* the switch can reduce it (teams with multicast) */
    size_t count;                  /* base elements of one rank's block */
    size_t bytes;                  /* bytes of one rank's block */
    int zero_copy;                 /* map the peers' buffers for this call and run it zero-copy
                                      where every rank's can be mapped (engine_map.h) */
    /* Nonblocking and persistent calls (engine.h, mcoll_engine_ring_plan): posted to the
       resident kernel's ring, as this LL call, where it takes them when they start. */
    int ring;
    mcoll_ll_call ll;
    /* The staged path: */
    int chunk;                     /* elements per pipelined PMPI call; 0: the call whole */
};

/* Decide a validated, laid-out and classified call: fills *d and marks the buffers to stage.
 * May call the collective MPI_Comm_split_type of a communicator's first call (comm_attr.h). */
void mcoll_decide(mcoll_call *c, mcoll_decision *d);

/* The engine declined the call (it has none for the communicator): decide without it. */
void mcoll_decide_without_engine(mcoll_call *c, mcoll_decision *d, const char *why);

/* Whether the PMPI calls of an elementwise call are cut into chunks. Every rank must chunk or
 * none, so this is agreed with one small PMPI_Allreduce when the call is large enough to be
 * cut (see docs/pmpi.md); a call without a communicator (MPI_Reduce_local) decides alone.
 * Sets d->chunk; returns MPI_SUCCESS or the agreement's error. */
int mcoll_decide_chunk(mcoll_call *c, mcoll_decision *d);

#endif /* MCOLL_DECIDE_H */
