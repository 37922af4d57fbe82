/* The MPI's persistent collectives under the names it declares (configure's MCOLL_PCOLL):
 * INIT(Allreduce) is MPI_Allreduce_init (MPI 4) or MPIX_Allreduce_init (Open MPI 4's
 * mpi-ext.h); INIT is not defined when the MPI has neither. */
#ifndef MCOLL_TEST_PCOLL_H
#define MCOLL_TEST_PCOLL_H

#include <mpi.h>
#if MCOLL_PCOLL == 2
#include <mpi-ext.h>
#endif

#if MCOLL_PCOLL == 1
#define INIT(name) MPI_##name##_init
#elif MCOLL_PCOLL == 2
#define INIT(name) MPIX_##name##_init
#endif

#endif /* MCOLL_TEST_PCOLL_H */
