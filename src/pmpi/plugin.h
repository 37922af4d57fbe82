/* Process-wide state of the PMPI plug-in: set up by the MPI_Init wrappers, torn down by the
 * delete callback of an MPI_COMM_SELF attribute, which MPI runs first inside MPI_Finalize. */
#ifndef MCOLL_PLUGIN_H
#define MCOLL_PLUGIN_H

#include <mpi.h>

/* 1 while the wrappers do their work (between a successful intercepted MPI_Init and the start of
 * MPI_Finalize, MCOLL_DISABLE unset). When 0 every call goes to PMPI untouched, except that the
 * 16-bit float reductions are still supplied (MPI has no other way to run them). */
extern int mcoll_plugin_active;

/* 1 when device buffers may be handed to the MPI below: MCOLL_CUDA_AWARE=1, or auto and
 * MPIX_Query_cuda_support() said so. Read once at MPI_Init. */
extern int mcoll_mpi_cuda_aware;

/* Called by every MPI_Init wrapper (C and Fortran) after PMPI_Init* succeeded. */
void mcoll_plugin_start(void);

/* MPI_Init_thread and MPI_Finalize as the Fortran entry points call them. */
int mcoll_mpi_init(int *argc, char ***argv);
int mcoll_mpi_init_thread(int *argc, char ***argv, int required, int *provided);
int mcoll_mpi_finalize(void);

/* MPIX_Query_cuda_support unless MCOLL_CUDA_AWARE says otherwise. */
int mcoll_cuda_aware_detect(void);

/* Look up the addresses of the Fortran MPI_IN_PLACE and MPI_BOTTOM sentinels. */
void mcoll_fortran_init(void);

#endif /* MCOLL_PLUGIN_H */
