/* Launcher environment and GPU selection; see bench_env.h. */
#include "bench_env.h"

#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime_api.h>

#include "bench_cli.h"

/* Launcher-specific names come first: inside a Slurm allocation, SLURM_LOCALID and
 * SLURM_PROCID describe the batch step, not the processes mpirun starts. */
static const char *const local_vars[] = {
    "OMPI_COMM_WORLD_LOCAL_RANK", "MV2_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID",
    "PMI_LOCAL_RANK", "PMIX_LOCAL_RANK", "PALS_LOCAL_RANKID", "SLURM_LOCALID", NULL
};
static const char *const world_vars[] = {
    "OMPI_COMM_WORLD_RANK", "MV2_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK",
    "PALS_RANKID", "SLURM_PROCID", NULL
};

static int first_rank(const char *const *names)
{
    for (int i = 0; names[i]; i++) {
        long v;
        if (bench_parse_long(getenv(names[i]), 0, 1L << 30, &v) == 0)
            return (int)v;
    }
    return -1;
}

int bench_env_local_rank(void) { return first_rank(local_vars); }
int bench_env_world_rank(void) { return first_rank(world_vars); }

int bench_env_is_printer(void)
{
    return bench_env_world_rank() <= 0;
}

int bench_select_device(char *why, size_t len)
{
    int ndev = 0;
    cudaError_t err = cudaGetDeviceCount(&ndev);
    if (err != cudaSuccess) {
        snprintf(why, len, "no usable CUDA GPU (cudaGetDeviceCount: %s)", cudaGetErrorString(err));
        return -1;
    }
    if (ndev <= 0) {
        snprintf(why, len, "no CUDA GPU visible (CUDA_VISIBLE_DEVICES=%s)",
                 getenv("CUDA_VISIBLE_DEVICES") ? getenv("CUDA_VISIBLE_DEVICES") : "unset");
        return -1;
    }
    int local = bench_env_local_rank();
    int dev = (local < 0 ? 0 : local) % ndev;
    err = cudaSetDevice(dev);
    if (err == cudaSuccess)
        err = cudaFree(NULL); /* create the context now, before MPI looks at it */
    if (err != cudaSuccess) {
        snprintf(why, len, "cannot use GPU %d: %s", dev, cudaGetErrorString(err));
        return -1;
    }
    return dev;
}
