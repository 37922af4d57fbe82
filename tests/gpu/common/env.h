/* The process environment before MPI_Init: launcher ranks, the multicast safety checks, the
 * guard, and the GPU this rank uses. */
#ifndef GPU_ENV_H
#define GPU_ENV_H

#include <stddef.h>

/* This process's rank on its node / in the job from the launcher's variables; -1 if unknown. */
int env_local_rank(void);
int env_world_rank(void);
/* Whether messages printed before MPI_Init should come from this process (world rank 0 or unknown). */
int env_is_printer(void);

/* NULL when the environment keeps multicast off (NCCL_NVLS_ENABLE=0, nothing asking for NVLS);
 * otherwise why these programs must not run. They never create a multicast object. */
const char *env_multicast_hazard(void);

/* 1 when the cuMulticast guard library is mapped into this process. */
int env_guard_loaded(void);
/* 1 when MCOLL_TEST_REQUIRE_GUARD=1: refuse to run without the guard. */
int env_guard_required(void);
/* MCOLL_TEST_EMULATE_MULTIMEM=1 (run.sh's emulation step): the team must say multimem is emulated. */
int env_emulate_multimem(void);

/* Make GPU (local rank modulo GPU count) current and create its context, before MPI_Init so that
 * mcoll (and MPI) see it. Returns the ordinal, or -1 with the reason in `why`. */
int env_select_device(char *why, size_t len);

#endif /* GPU_ENV_H */
