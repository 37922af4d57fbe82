/* Buffers; see bench_mem.h. */
#include "bench_mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_cuda.h"

void *bench_mem_alloc(bench_mem kind, size_t bytes)
{
    void *p = NULL;
    char msg[160];
    if (bytes == 0)
        bytes = 1;
    switch (kind) {
    case BENCH_MEM_HOST:
        if (posix_memalign(&p, 4096, bytes) != 0) {
            snprintf(msg, sizeof msg, "cannot allocate %zu bytes of host memory", bytes);
            bench_fatal(__FILE__, __LINE__, msg);
        }
        break;
    case BENCH_MEM_CUDA:
        BENCH_CUDA(cudaMalloc(&p, bytes));
        break;
    case BENCH_MEM_PINNED:
        BENCH_CUDA(cudaMallocHost(&p, bytes));
        break;
    case BENCH_MEM_MANAGED:
        BENCH_CUDA(cudaMallocManaged(&p, bytes, cudaMemAttachGlobal));
        break;
    }
    return p;
}

void bench_mem_free(bench_mem kind, void *p)
{
    if (!p)
        return;
    switch (kind) {
    case BENCH_MEM_HOST: free(p); break;
    case BENCH_MEM_CUDA:
    case BENCH_MEM_MANAGED: BENCH_CUDA(cudaFree(p)); break;
    case BENCH_MEM_PINNED: BENCH_CUDA(cudaFreeHost(p)); break;
    }
}

/* Device and managed memory are copied by the CUDA runtime (which knows where managed pages
 * are); host and pinned memory with memcpy. */
void bench_mem_put(bench_mem kind, void *dst, const void *host, size_t bytes)
{
    if (kind == BENCH_MEM_CUDA || kind == BENCH_MEM_MANAGED) {
        BENCH_CUDA(cudaMemcpy(dst, host, bytes, cudaMemcpyDefault));
        BENCH_CUDA(cudaDeviceSynchronize());
    } else if (dst != host) {
        memcpy(dst, host, bytes);
    }
}

void bench_mem_get(bench_mem kind, void *host, const void *src, size_t bytes)
{
    if (kind == BENCH_MEM_CUDA || kind == BENCH_MEM_MANAGED)
        BENCH_CUDA(cudaMemcpy(host, src, bytes, cudaMemcpyDefault));
    else if (host != src)
        memcpy(host, src, bytes);
}
