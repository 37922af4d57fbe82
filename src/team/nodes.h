/* Which ranks of a communicator share a node. The ranks MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)
 * groups together, each group cut further by the testing aid MCOLL_TEST_NODE_SIZE=k: the ranks
 * whose MPI_COMM_WORLD rank / k is the same form a (fake) node of their own, so that one machine
 * plays a job spanning nodes (consecutive world ranks, k to a node). Every question the library
 * asks about nodes goes through here, so all of it sees the same nodes. */
#ifndef MCOLL_NODES_H
#define MCOLL_NODES_H

#include <mpi.h>

/* The ranks of `comm` on this rank's node, in their order in `comm` (the caller frees it).
 * Collective; returns MPI's error code. */
int mcoll_node_split(MPI_Comm comm, MPI_Comm *node);

/* Where this rank sits: its node's size, its rank there, and the node's lowest rank in `comm`
 * (which names the node alike on every rank). */
typedef struct {
    int size;
    int rank;
    int leader;
} mcoll_node_place;

/* Collective over `comm`; 1, or 0 when MPI failed (then *place says one node of one rank). */
int mcoll_node_place_of(MPI_Comm comm, mcoll_node_place *place);

#endif /* MCOLL_NODES_H */
