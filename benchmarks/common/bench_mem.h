/* Benchmark buffers in host or GPU memory, and copies between them and host images.
 * Allocation failures end the job with a message (bench_cuda.h). */
#ifndef BENCH_MEM_H
#define BENCH_MEM_H

#include <stddef.h>

typedef enum {
    BENCH_MEM_HOST,    /* malloc'd (page-aligned) host memory */
    BENCH_MEM_CUDA,    /* cudaMalloc */
    BENCH_MEM_PINNED,  /* cudaMallocHost */
    BENCH_MEM_MANAGED  /* cudaMallocManaged: CUDA unified memory, OSU's -d managed */
} bench_mem;

/* At least one byte, page-aligned on the host. */
void *bench_mem_alloc(bench_mem kind, size_t bytes);
void bench_mem_free(bench_mem kind, void *p);

/* Copy a host image into a buffer of `kind`, and back. Both complete before returning. */
void bench_mem_put(bench_mem kind, void *dst, const void *host, size_t bytes);
void bench_mem_get(bench_mem kind, void *host, const void *src, size_t bytes);

#endif /* BENCH_MEM_H */
