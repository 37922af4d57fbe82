/* What the wrappers need to know about a communicator, cached on it with an attribute keyval.
 * The first intercepted collective on a communicator creates the entry; where a GPU engine may
 * run (driver loaded, MCOLL_ENGINE not staged) it also asks, collectively, whether the
 * communicator lives on one node. Entries are freed with the communicator, and all remaining
 * ones at MPI_Finalize. */
#ifndef MCOLL_COMM_ATTR_H
#define MCOLL_COMM_ATTR_H

#include <mpi.h>

typedef struct mcoll_comm_state {
    MPI_Comm comm;
    int rank;          /* in the local group */
    int size;          /* of the local group */
    int remote_size;   /* intercommunicators: size of the remote group; else = size */
    int is_inter;
    int node_local;    /* -1 not known yet, 0 spans nodes, 1 every rank on this node */
    struct mcoll_comm_state *prev, *next;
} mcoll_comm_state;

int mcoll_comm_attr_init(void);
void mcoll_comm_attr_finalize(void);

/* The state of `comm` (created on first use), or NULL when MPI refuses the attribute calls. */
mcoll_comm_state *mcoll_comm_state_get(MPI_Comm comm);

/* 1 when every rank of the (intra)communicator lives on this node. Collective the first time
 * (MPI_Comm_split_type), cached afterwards. */
int mcoll_comm_node_local(mcoll_comm_state *state);

#endif /* MCOLL_COMM_ATTR_H */
