/* Start and end of every GPU test program.
 *
 * harness_start parses the command line, refuses to run unless multicast is switched off
 * (NCCL_NVLS_ENABLE=0, nothing asking for NVLS) and, when MCOLL_TEST_REQUIRE_GUARD=1, unless the
 * cuMulticast guard is loaded; picks this rank's GPU before MPI_Init; initializes MPI and the
 * report, and prints a header (ranks, GPUs, node, versions). */
#ifndef GPU_HARNESS_H
#define GPU_HARNESS_H

#include "options.h"

/* -1 to go on (MPI is initialized); otherwise the exit status to return from main, MPI not
 * initialized: 0 after --help, 2 refused or bad usage, 77 no GPU. */
int harness_start(int *argc, char ***argv, const char *program, const char *about, gpu_opts *opts);

/* The same for a run on host buffers only: no GPU is picked or needed (never 77). */
int harness_start_host(int *argc, char ***argv, const char *program, const char *about, gpu_opts *opts);

/* Summary, MPI_Finalize; returns the exit status. */
int harness_finish(void);

#endif /* GPU_HARNESS_H */
