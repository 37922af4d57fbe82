/* The plug-in's one record per communicator, cached on it with an attribute keyval: what the
 * wrappers need to know about the communicator, and its GPU engine (a native communicator,
 * built by the first call the decision sends to the engines; see engine.c).
 *
 * The first intercepted collective on a communicator creates the record; where a GPU engine may
 * run (driver loaded, MCOLL_ENGINE not staged) it also asks, collectively, whether the
 * communicator lives on one node. A record and its engine are freed with the communicator; at
 * MPI_Finalize every remaining engine is freed, newest first, then every record. */
#ifndef MCOLL_COMM_ATTR_H
#define MCOLL_COMM_ATTR_H

#include <mpi.h>
#include "mcoll.h"
#include "reported.h"

typedef struct mcoll_comm_state {
    MPI_Comm comm;
    int rank;          /* in the local group */
    int size;          /* of the local group */
    int remote_size;   /* intercommunicators: size of the remote group; else = size */
    int is_inter;
    int node_local;    /* -1 not known yet, 0 spans nodes, 1 every rank on this node */
    int engine_tried;  /* the engine was built, or building it failed: never tried again */
    mcoll_comm *engine; /* NULL when the communicator has no engine */
    mcoll_reported reported; /* the decisions logged at INFO on it */
    struct mcoll_comm_state *prev, *next;
} mcoll_comm_state;

int mcoll_comm_attr_init(void);
/* Inside MPI_Finalize (the plug-in's MPI_COMM_SELF hook): engines first, then the records. */
void mcoll_comm_attr_finalize(void);

/* The state of `comm` (created on first use), or NULL when MPI refuses the attribute calls. */
mcoll_comm_state *mcoll_comm_state_get(MPI_Comm comm);
/* The same without the collective node-locality question, for calls that must not wait for
 * the other ranks (nonblocking and persistent ones); the decision asks it when device buffers
 * could go to the engines. */
mcoll_comm_state *mcoll_comm_state_find(MPI_Comm comm);

/* 1 when every rank of the (intra)communicator lives on this node. Collective the first time
 * (MPI_Comm_split_type), cached afterwards. */
int mcoll_comm_node_local(mcoll_comm_state *state);

/* Record the outcome of building the engine (NULL: none). Every rank builds its engines in the
 * same order (collectively), and MPI_Finalize frees them in the reverse order, so the barriers
 * of their teardown meet. */
void mcoll_comm_state_set_engine(mcoll_comm_state *state, mcoll_comm *engine);

#endif /* MCOLL_COMM_ATTR_H */
