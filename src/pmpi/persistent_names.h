/* The names of the MPI's persistent collectives, which configure finds (MCOLL_PCOLL):
 * MPI_<Name>_init (MPI 4, MCOLL_PCOLL 1) or MPIX_<Name>_init from mpi-ext.h (Open MPI 4,
 * MCOLL_PCOLL 2). PMPI_INIT(Name) is the MPI's, USER_INIT(Name) the entry point mcoll defines;
 * neither is defined when the MPI has no persistent collectives, and INIT(fn) is then NULL. */
#ifndef MCOLL_PERSISTENT_NAMES_H
#define MCOLL_PERSISTENT_NAMES_H

#include <mpi.h>
#if MCOLL_PCOLL == 2
#include <mpi-ext.h>
#endif

#if MCOLL_PCOLL == 1
#define PMPI_INIT(name) PMPI_##name##_init
#define USER_INIT(name) MPI_##name##_init
#elif MCOLL_PCOLL == 2
#define PMPI_INIT(name) PMPIX_##name##_init
#define USER_INIT(name) MPIX_##name##_init
#endif

#ifdef PMPI_INIT
#define INIT(fn) fn
#else
#define INIT(fn) NULL
#endif

#endif /* MCOLL_PERSISTENT_NAMES_H */
