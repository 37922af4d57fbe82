/* For contract tests that define PMPI_* themselves (mcoll, linked statically, calls theirs):
 * REAL(name, type) finds the MPI library's own function once, as real_<name>, and the types of
 * the collectives' entry points. Include after <dlfcn.h> with _GNU_SOURCE defined. */
#ifndef MCOLL_TEST_PMPI_REAL_H
#define MCOLL_TEST_PMPI_REAL_H

#include <mpi.h>

#define REAL(name, type) static type real_##name;                                              \
    if (!real_##name) real_##name = (type)dlsym(RTLD_NEXT, #name)

typedef int (*allreduce_fn)(const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm);
typedef int (*bcast_fn)(void *, int, MPI_Datatype, int, MPI_Comm);
typedef int (*reduce_fn)(const void *, void *, int, MPI_Datatype, MPI_Op, int, MPI_Comm);
typedef int (*rsb_fn)(const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm);
typedef int (*rs_fn)(const void *, void *, const int *, MPI_Datatype, MPI_Op, MPI_Comm);
typedef int (*allgather_fn)(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, MPI_Comm);
typedef int (*allgatherv_fn)(const void *, int, MPI_Datatype, void *, const int *, const int *, MPI_Datatype, MPI_Comm);
typedef int (*rooted_fn)(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, int, MPI_Comm);
typedef int (*gatherv_fn)(const void *, int, MPI_Datatype, void *, const int *, const int *, MPI_Datatype, int,
                          MPI_Comm);
typedef int (*alltoallv_fn)(const void *, const int *, const int *, MPI_Datatype, void *, const int *, const int *,
                            MPI_Datatype, MPI_Comm);
typedef int (*send_fn)(const void *, int, MPI_Datatype, int, int, MPI_Comm);
typedef int (*recv_fn)(void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Status *);
typedef int (*sendrecv_fn)(const void *, int, MPI_Datatype, int, int, void *, int, MPI_Datatype, int, int, MPI_Comm,
                           MPI_Status *);

#endif /* MCOLL_TEST_PMPI_REAL_H */
