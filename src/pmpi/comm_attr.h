/* The plug-in's one record per communicator, cached on it with an attribute keyval: what the
 * wrappers need to know about the communicator, and its GPU engine (a native communicator,
 * built by the first call the decision sends to the engines; see engine.c).
 *
 * The first intercepted collective on a communicator creates the record; where a GPU engine may
 * run (driver loaded, MCOLL_ENGINE not staged) it also asks, collectively, whether the
 * communicator is one NVLink domain. A record and its engine are freed with the communicator; at
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
    int one_domain;    /* -1 not known yet; 1 one NVLink domain (one node, or one clique over
                          nodes: one team can hold it); 0 otherwise */
    int engine_tried;  /* the engine was built, or building it failed: never tried again */
    mcoll_comm *engine; /* NULL when the communicator has no engine */
    struct mcoll_hier *hier; /* its NVLink domains when it spans several (src/hier), else NULL;
                                learnt with one_domain */
    mcoll_reported reported; /* the decisions logged at INFO on it */
    struct mcoll_comm_state *prev, *next;
} mcoll_comm_state;

int mcoll_comm_attr_init(void);
/* Inside MPI_Finalize (the plug-in's MPI_COMM_SELF hook): engines first, then the records. */
void mcoll_comm_attr_finalize(void);

/* The state of `comm` (created on first use), or NULL when MPI refuses the attribute calls. */
mcoll_comm_state *mcoll_comm_state_get(MPI_Comm comm);
/* The same without the collective question of its NVLink domains, for calls that must not wait for
 * the other ranks (nonblocking and persistent ones); the decision asks it when device buffers
 * could go to the engines. */
mcoll_comm_state *mcoll_comm_state_find(MPI_Comm comm);

/* 1 when the ranks of the (intra)communicator are one NVLink domain: one node, or one NVLink
 * clique over several nodes (src/hier/hier.h). Collective the first time, cached afterwards. */
int mcoll_comm_one_domain(mcoll_comm_state *state);

/* A GPU engine of the communicator's (its hierarchy's domain engine) was built now: its record
 * moves to the head of the list, so MPI_Finalize frees it in the order every rank built it. */
void mcoll_comm_state_engine_built(mcoll_comm_state *state);

/* Record the outcome of building the engine (NULL: none). Every rank builds its engines in the
 * same order (collectively), and MPI_Finalize frees them in the reverse order, so the barriers
 * of their teardown meet. */
void mcoll_comm_state_set_engine(mcoll_comm_state *state, mcoll_comm *engine);

#endif /* MCOLL_COMM_ATTR_H */
