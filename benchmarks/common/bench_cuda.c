/* CUDA checks and device description; see bench_cuda.h. */
#include "bench_cuda.h"

#include <stdio.h>
#include <stdlib.h>
#include <mpi.h>

void bench_fatal(const char *file, int line, const char *msg)
{
    int up = 0, done = 0, rank = -1;
    MPI_Initialized(&up);
    MPI_Finalized(&done);
    if (up && !done)
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    fprintf(stderr, "[rank %d] %s:%d: %s\n", rank, file, line, msg);
    fflush(stderr);
    if (up && !done)
        MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);
}

void bench_cuda_check(cudaError_t err, const char *what, const char *file, int line)
{
    if (err == cudaSuccess)
        return;
    char msg[512];
    snprintf(msg, sizeof msg, "%s failed: %s (%s)", what, cudaGetErrorString(err), cudaGetErrorName(err));
    bench_fatal(file, line, msg);
}

void bench_gpu_describe(char *buf, size_t len)
{
    int dev = -1;
    struct cudaDeviceProp prop;
    char bus[32] = "?";
    if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&prop, dev) != cudaSuccess) {
        snprintf(buf, len, "unknown GPU");
        return;
    }
    if (cudaDeviceGetPCIBusId(bus, (int)sizeof bus, dev) != cudaSuccess)
        snprintf(bus, sizeof bus, "?");
    snprintf(buf, len, "%s (%s)", prop.name, bus);
}
