/* Nonblocking and persistent hierarchical calls (hier_op.c): the steps of a call are recorded by
 * running its algorithm with nothing communicated (the algorithms' control flow depends only on
 * sizes and ranks), then made one after the other, each started by a nonblocking call (a launch
 * on the domain's engine, PMPI_I*, an asynchronous copy) and finished when a query says so.
 * Inside the algorithms' chunk pipelines the engine's steps are queued ahead and waited for at
 * the same points as in the blocking call (MARK, WAIT, FINISH), so the engine's work of one chunk
 * runs while another crosses the MPI.
 *
 * Only the oldest call of a communicator advances: its sub-communicators and its domain's engine
 * then see every rank's steps in the order in which the calls were started, as MPI requires of
 * collectives on one communicator. A blocking hierarchical call on the same communicator first
 * finishes the calls in flight (hier_ops_drain). The steps advance only inside the MPI
 * completion calls (the request layer's progress), which is why the plug-in takes nonblocking
 * calls on this path only with MCOLL_HIER_NONBLOCKING=1 (docs/hierarchical.md). */
#ifndef MCOLL_HIER_OP_H
#define MCOLL_HIER_OP_H

#include "hier_internal.h"

/* One step, as the blocking run would have made it. */
typedef enum {
    HIER_STEP_ENGINE, HIER_STEP_MPI, HIER_STEP_COPY,
    HIER_STEP_MARK,      /* a point after the engine's work queued so far, in slot 0 or 1 */
    HIER_STEP_WAIT,      /* until the engine has reached the point in the slot */
    HIER_STEP_FINISH,    /* until the engine has run everything queued */
    HIER_STEP_REDUCE     /* the D copies of a part reduced into the last (exchange.c) */
} hier_step_kind;

typedef struct {
    hier_step_kind kind;
    int queued;              /* engine and copy steps inside a pipeline: queued on the engine's
                                stream and not waited for (a later WAIT or FINISH does) */
    int slot;                /* MARK, WAIT */
    hier_engine_step engine;
    hier_mpi_step mpi;       /* counts and displs point into `arrays` */
    hier_copy_step copy;
    struct {                 /* REDUCE: d copies of n elements, one after the other (device) */
        char *parts;
        int d;
        size_t n;
    } reduce;
    int *arrays;             /* owned */
} hier_step;

/* Recording (called by the step functions while x->rec is set). */
void hier_record_engine(hier_run *x, const hier_engine_step *s);
void hier_record_mpi(hier_run *x, const hier_mpi_step *s);
void hier_record_copy(hier_run *x, const hier_copy_step *s);
void hier_record_point(hier_run *x, hier_step_kind kind, int slot);
/* The reduction of the exchange's parts: domain 0's copy op (domain 1's op (...)), into the last
 * copy; on the domain's engine stream, or on the host where the call has no engine. */
void hier_record_reduce(hier_run *x, char *parts, int d, size_t n);
/* Scratch memory of the recorded call, its own (not the communicator's). */
char *hier_record_scratch(hier_run *x, size_t bytes);

/* Finish every call of h in flight (before a blocking call, and before h goes). */
void hier_ops_drain(mcoll_hier *h);

#endif /* MCOLL_HIER_OP_H */
