/* The settings the hierarchical contract tests run under unless the environment says otherwise:
 * steps inside the domains through MPI (MCOLL_HIER=mpi), two simulated domains per node, an MPI
 * that is not CUDA-aware; and 64 KiB chunks always, so that moderate counts take several. */
#ifndef MCOLL_TEST_HIER_TEST_H
#define MCOLL_TEST_HIER_TEST_H

#include <stdlib.h>
#include <string.h>

/* Before MPI_Init; returns 1 when the MPI is taken as CUDA-aware. */
static inline int hier_test_settings(void)
{
    setenv("MCOLL_HIER", "mpi", 0);
    setenv("MCOLL_DOMAIN_SIZE", "2", 0);
    setenv("MCOLL_CUDA_AWARE", "0", 0);
    setenv("MCOLL_STAGE_CHUNK", "64K", 1);
    return !strcmp(getenv("MCOLL_CUDA_AWARE"), "1");
}

#endif /* MCOLL_TEST_HIER_TEST_H */
