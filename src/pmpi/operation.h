/* One mcoll operation in flight (see request.h): the decided call, its steps and what it holds.
 * Shared by request.c (registry, generalized requests, progress) and operation.c (the steps
 * of the engine and staged paths); nothing else looks inside. */
#ifndef MCOLL_OPERATION_H
#define MCOLL_OPERATION_H

#include <stdatomic.h>
#include <stdint.h>
#include <cuda.h>
#include "async.h"
#include "engine_map.h"
#include "request.h"
#include "hier.h"
#include "pool.h"
#include "mcoll.h"

typedef enum {
    MCOLL_NB_IDLE,      /* persistent, not started */
    MCOLL_NB_RING,      /* engine: posted to the resident kernel's ring, not yet done */
    MCOLL_NB_QUEUED,    /* engine: launch queued to the launcher thread (async.h) */
    MCOLL_NB_KERNEL,    /* engine: kernel queued, its completion word or an event to wait for */
    MCOLL_NB_MPI,       /* staged: the MPI's request on the host copies in flight */
    MCOLL_NB_HIER,      /* hierarchical: its recorded steps under way (hier_op.h) */
    MCOLL_NB_COPY_OUT,  /* results being copied to the user's buffers, event recorded after */
    MCOLL_NB_DONE
} mcoll_nbop_state;

/* One copy of a result to the user's buffer. */
typedef struct {
    char *dst;
    const char *src;
    size_t bytes;
    int to_device;
} mcoll_copy;

struct mcoll_nbop {
    /* The call as decided (kept for every start of a persistent operation). */
    mcoll_call call;
    mcoll_decision d;
    const mcoll_nb_coll *nb;
    int persistent;
    /* What the user holds: the generalized request of the current start, and for a
     * persistent operation the inactive request standing for it between starts. */
    MPI_Request greq;
    MPI_Request handle;
    /* The current start. */
    mcoll_nbop_state state;
    int error;                  /* MPI error class, MPI_SUCCESS */
    MPI_Request inner;          /* staged: the MPI's request */
    mcoll_comm *engine;         /* engine: whose abort flag tells a dead peer, and whose ring
                                   runs the call in RING */
    uint64_t ticket;            /* RING: the ring's done count that completes it */
    CUcontext ctx;              /* context of the event and the copies */
    CUevent event;
    uint64_t word;              /* KERNEL: the value of the kernel's completion word, or 0: the
                                   event (completion_word.h) */
    uint64_t word_checked;      /* when the stream was last asked about the word (mcoll_word_check_due) */
    mcoll_copy copies[2];
    int ncopies;
    mcoll_block *host;          /* staged: host copies of the staged buffers */
    mcoll_block *scratch;       /* engine: device memory for a host receive buffer */
    mcoll_held_windows held;    /* engine, persistent, zero-copy: its buffers mapped once */
    mcoll_hier_op *hop;         /* hierarchical: the recorded steps (kept for every start) */
    /* QUEUED: the launcher thread's job, and 1 until it has run; the thread writes engine,
     * ctx, event, word and error before setting it to 0 (release), the advancing thread reads
     * them after (acquire). */
    mcoll_async_job job;
    atomic_int queued;
    uint64_t queued_at;         /* TRACE: when the job was queued */
    CUcontext launch_ctx;       /* the context the caller would have launched in */
    /* Lifetime (request.c). */
    int active;                 /* started; its generalized request not yet freed */
    int completed;              /* MPI_Grequest_complete called for the current start */
    int mpi_freed;              /* the free function of the current start's request ran */
    int user_freed;             /* persistent: MPI_Request_free came while active */
    struct mcoll_nbop *prev, *next; /* operations in flight */
    struct mcoll_nbop *chain[2];    /* hash chains: by generalized request, by persistent handle */
};

/* Start the current run of op (operation.c): start its recorded steps (hierarchical, recorded
 * at its first start), post it to the resident kernel's ring (engine, a
 * call decided for it that the ring takes now), or queue the kernel (engine; with MCOLL_ASYNC_START,
 * through the launcher thread, whose failure then completes the request with an error) or copy the inputs to
 * host memory and make the MPI's nonblocking call (staged). MPI_SUCCESS with op->state set (a
 * failed copy leaves op->error set and the MPI call made, so the peers are not left waiting);
 * MCOLL_NB_DECLINED when the communicator has no engine (nothing done: decide again without
 * it); or an error class already raised, with nothing in flight. */
#define MCOLL_NB_DECLINED (-2)
int mcoll_nbop_launch(mcoll_nbop *op);
/* A persistent operation decided zero-copy maps its buffers now, once (engine_map.h);
 * collective, at its initialization. Nothing otherwise. */
void mcoll_nbop_map_once(mcoll_nbop *op);
/* One step; 1 when the operation is done (op->error tells how it went). */
int mcoll_nbop_advance(mcoll_nbop *op);
/* Free what the operation holds (idempotent). */
void mcoll_nbop_release(mcoll_nbop *op);

#endif /* MCOLL_OPERATION_H */
