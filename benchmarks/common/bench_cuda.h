/* CUDA runtime calls in the benchmarks go through one check: a failure prints the call, file and
 * line on the failing rank and ends the whole job (a lone rank leaving would hang the others). */
#ifndef BENCH_CUDA_H
#define BENCH_CUDA_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#define BENCH_CUDA(call) bench_cuda_check((call), #call, __FILE__, __LINE__)

void bench_cuda_check(cudaError_t err, const char *what, const char *file, int line);

/* Report a fatal error the same way and end the job. */
void bench_fatal(const char *file, int line, const char *msg);

/* "NVIDIA H200 (0000:18:00.0)" for the current device. */
void bench_gpu_describe(char *buf, size_t len);

#endif /* BENCH_CUDA_H */
