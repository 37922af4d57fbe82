/* A minimal PMPI tool, as profilers are written: it defines MPI_Init, MPI_Allreduce,
 * MPI_Iallreduce and MPI_Finalize, counts the calls and passes each on with PMPI_*. At
 * MPI_Finalize it prints "NAME: rank R: MPI_Init 1 MPI_Allreduce N MPI_Iallreduce M" on stderr.
 * count_before.c and count_after.c build it under their own names, to be loaded in front of
 * mcoll and behind it (tests/mpi/test_pmpi_chain.sh). */
#ifndef COUNT_TOOL_H
#define COUNT_TOOL_H

#include <stdio.h>
#include <mpi.h>

static int inits, allreduces, iallreduces;

int MPI_Init(int *argc, char ***argv)
{
    inits++;
    return PMPI_Init(argc, argv);
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    allreduces++;
    return PMPI_Allreduce(sendbuf, recvbuf, count, type, op, comm);
}

int MPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                   MPI_Request *request)
{
    iallreduces++;
    return PMPI_Iallreduce(sendbuf, recvbuf, count, type, op, comm, request);
}

int MPI_Finalize(void)
{
    int rank = -1;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    fprintf(stderr, "%s: rank %d: MPI_Init %d MPI_Allreduce %d MPI_Iallreduce %d\n", COUNT_TOOL_NAME, rank, inits,
            allreduces, iallreduces);
    return PMPI_Finalize();
}

#endif /* COUNT_TOOL_H */
