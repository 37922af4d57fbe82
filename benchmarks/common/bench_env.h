/* What the launcher tells a process before MPI_Init, and the GPU chosen from it.
 *
 * The GPU must be current before MPI_Init: CUDA-aware MPI libraries and mcoll look at the current
 * device when they start, and a process that first touches GPU 0 keeps a context there. */
#ifndef BENCH_ENV_H
#define BENCH_ENV_H

#include <stddef.h>

/* This process's rank among the processes of its node, from the launcher's environment
 * (Open MPI, MVAPICH, MPICH/Hydra, PMI, Cray PALS, Slurm). -1 when none is set. */
int bench_env_local_rank(void);

/* This process's rank in the job, from the same sources. -1 when none is set. */
int bench_env_world_rank(void);

/* Whether this process should print messages that come before MPI_Init (usage, "no GPU"):
 * world rank 0, or every process when the launcher is not known. */
int bench_env_is_printer(void);

/* Make GPU (local rank % GPU count) current. Returns its ordinal, or -1 with the reason in
 * `why` when no GPU can be used. */
int bench_select_device(char *why, size_t len);

/* Exit status of a benchmark that found no GPU to measure (the test suite's "skipped"). */
#define BENCH_EXIT_NO_GPU 77
/* Exit status after a command-line error. */
#define BENCH_EXIT_USAGE 2

#endif /* BENCH_ENV_H */
