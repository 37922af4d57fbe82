/* Nodes of a communicator, fake ones included (see nodes.h). */
#include "config.h"
#include "nodes.h"

int mcoll_node_split(MPI_Comm comm, MPI_Comm *node)
{
    int fake = mcoll_settings_get()->test_node_size, world_rank = 0, err;
    MPI_Comm shared;
    if (!fake) return PMPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, node);
    err = PMPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shared);
    if (err != MPI_SUCCESS) return err;
    /* A process's fake node follows from its world rank alone: the same in every communicator. */
    PMPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    err = PMPI_Comm_split(shared, world_rank / fake, 0, node);
    PMPI_Comm_free(&shared);
    return err;
}

int mcoll_node_place_of(MPI_Comm comm, mcoll_node_place *place)
{
    MPI_Comm node;
    int rank = 0, ok;
    PMPI_Comm_rank(comm, &rank);
    place->size = 1;
    place->rank = 0;
    place->leader = rank;
    if (mcoll_node_split(comm, &node) != MPI_SUCCESS) return 0;
    PMPI_Comm_size(node, &place->size);
    PMPI_Comm_rank(node, &place->rank);
    ok = PMPI_Allreduce(&rank, &place->leader, 1, MPI_INT, MPI_MIN, node) == MPI_SUCCESS;
    PMPI_Comm_free(&node);
    if (!ok) {
        place->size = 1;
        place->rank = 0;
        place->leader = rank;
    }
    return ok;
}
