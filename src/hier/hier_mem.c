/* One call's run (its start builds the domain's engine on the first call that may use it), and
 * the memory and copies of the hierarchical steps. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "checks.h"
#include "comm_internal.h"
#include "config.h"
#include "hier_internal.h"
#include "locality.h"

#define GRANULE (1u << 20)

static size_t rounded(size_t bytes) { return (bytes + GRANULE - 1) / GRANULE * GRANULE; }

/* Built collectively over the domain on its first call; a domain of one rank needs none, and
 * one whose team cannot be built runs its steps through MPI (every rank of the domain learns
 * that together, inside mcoll_comm_create). */
static void build_engine(mcoll_hier *h)
{
    mcoll_result rc;
    h->engine_tried = 1;
    if (h->local_size < 2 || h->local_size < mcoll_settings_get()->min_ranks) return;
    rc = mcoll_comm_create(h->domain, NULL, &h->engine);
    if (rc != MCOLL_SUCCESS) {
        h->engine = NULL;
        if (h->local_rank == 0)
            MCOLL_INFO("domain %d without GPU engine (%s): its steps go through MPI", h->my_domain, mcoll_strerror(rc));
    }
}

static mcoll_result begin(hier_run *x, mcoll_hier *h, const mcoll_hier_args *a)
{
    x->h = h;
    x->a = a;
    x->rc = MCOLL_SUCCESS;
    x->engine = NULL;
    x->queued = 0;
    x->start = MPI_Wtime();
    x->mpi_s = 0;
    if (a->device && a->engines) {
        if (!h->engine_tried) build_engine(h);
        x->engine = h->engine;
    }
    if (a->device && !h->stream && mcoll_cu.cuStreamCreate(&h->stream, CU_STREAM_DEFAULT) != CUDA_SUCCESS) {
        h->stream = NULL;
        return MCOLL_ERR_CUDA;
    }
    /* Without both events the engine's steps still run, one after the other (hier_can_queue). */
    if (x->engine && !h->marks[1] && (mcoll_cu.cuEventCreate(&h->marks[0], CU_EVENT_DISABLE_TIMING) != CUDA_SUCCESS ||
                                      mcoll_cu.cuEventCreate(&h->marks[1], CU_EVENT_DISABLE_TIMING) != CUDA_SUCCESS)) {
        if (h->marks[0]) mcoll_cu.cuEventDestroy(h->marks[0]);
        h->marks[0] = h->marks[1] = NULL;
    }
    return MCOLL_SUCCESS;
}

mcoll_result hier_execute(mcoll_hier *h, const mcoll_hier_args *a, const char *name, hier_algorithm equal,
                          hier_algorithm unequal)
{
    hier_run x;
    double total;
    mcoll_result rc = begin(&x, h, a);
    if (rc != MCOLL_SUCCESS) return rc;
    (h->equal ? equal : unequal)(&x);
    total = MPI_Wtime() - x.start;
    h->times.calls++;
    h->times.seconds += total;
    h->times.between_seconds += x.mpi_s;
    MCOLL_TRACE("hier %s %zu B: %.3f ms, between domains %.3f ms, inside domains %.3f ms", name, a->count * a->esize,
                1e3 * total, 1e3 * x.mpi_s, 1e3 * (total - x.mpi_s));
    return x.rc;
}

char *hier_scratch(hier_run *x, size_t bytes)
{
    mcoll_hier *h = x->h;
    CUdeviceptr p = 0;
    if (bytes <= h->scratch_bytes && h->scratch_on_device == x->a->device) return h->scratch;
    if (h->scratch) {
        if (h->scratch_on_device) mcoll_cu.cuMemFree((CUdeviceptr)(uintptr_t)h->scratch);
        else free(h->scratch);
    }
    h->scratch = NULL;
    h->scratch_bytes = 0;
    h->scratch_on_device = x->a->device;
    if (!x->a->device) h->scratch = malloc(rounded(bytes));
    else if (mcoll_cu.cuMemAlloc(&p, rounded(bytes)) == CUDA_SUCCESS) h->scratch = (char *)(uintptr_t)p;
    if (!h->scratch) {
        MCOLL_WARN("cannot allocate %zu bytes of scratch memory for a hierarchical collective", bytes);
        if (x->rc == MCOLL_SUCCESS) x->rc = MCOLL_ERR_NO_MEMORY;
        return NULL;
    }
    h->scratch_bytes = rounded(bytes);
    return h->scratch;
}

char *hier_host(hier_run *x, size_t bytes)
{
    mcoll_hier *h = x->h;
    CUdevice dev = 0;
    if (bytes <= h->host_bytes) return h->host;
    if (h->host) mcoll_host_free_near(h->host, h->host_bytes, h->host_registered);
    h->host_bytes = 0;
    if (mcoll_cu.cuCtxGetDevice(&dev) != CUDA_SUCCESS) dev = 0;
    h->host = mcoll_host_alloc_near((int)dev, rounded(bytes), &h->host_registered);
    if (!h->host) {
        MCOLL_WARN("cannot pin %zu bytes of staging memory for a hierarchical collective", bytes);
        if (x->rc == MCOLL_SUCCESS) x->rc = MCOLL_ERR_NO_MEMORY;
        return NULL;
    }
    h->host_bytes = rounded(bytes);
    return h->host;
}

void hier_copy(hier_run *x, void *dst, const void *src, size_t bytes)
{
    CUresult r;
    if (!bytes || dst == src || !dst || !src) return;
    if (!x->a->device) {
        memmove(dst, src, bytes);
        return;
    }
    r = mcoll_cu.cuMemcpyDtoDAsync((CUdeviceptr)(uintptr_t)dst, (CUdeviceptr)(uintptr_t)src, bytes, x->h->stream);
    if (r == CUDA_SUCCESS) r = mcoll_cu.cuStreamSynchronize(x->h->stream);
    if (r != CUDA_SUCCESS && x->rc == MCOLL_SUCCESS) {
        MCOLL_WARN("hierarchical collective: device copy of %zu bytes failed (%s)", bytes, mcoll_cu_errname(r));
        x->rc = MCOLL_ERR_CUDA;
    }
}

/* Quietly: at MPI_Finalize the context may be gone already, and these with it. */
void hier_free_memory(mcoll_hier *h)
{
    if (h->scratch) {
        if (h->scratch_on_device) mcoll_cu.cuMemFree((CUdeviceptr)(uintptr_t)h->scratch);
        else free(h->scratch);
    }
    if (h->host) mcoll_host_free_near(h->host, h->host_bytes, h->host_registered);
    if (h->stream) mcoll_cu.cuStreamDestroy(h->stream);
    if (h->marks[0]) mcoll_cu.cuEventDestroy(h->marks[0]);
    if (h->marks[1]) mcoll_cu.cuEventDestroy(h->marks[1]);
    h->marks[0] = h->marks[1] = NULL;
    h->scratch = h->host = NULL;
    h->stream = NULL;
}

void hier_permute(hier_run *x, char *dst, const int *to, const char *src, const int *from, int k, size_t bytes)
{
    hier_permute_strided(x, dst, bytes, to, src, bytes, from, k, bytes);
}

void hier_permute_strided(hier_run *x, char *dst, size_t dst_stride, const int *to, const char *src,
                          size_t src_stride, const int *from, int k, size_t bytes)
{
    CUresult r = CUDA_SUCCESS;
    int queued = x->queued && x->engine, i;
    CUstream stream = queued ? (CUstream)mcoll_comm_stream(x->engine) : x->h->stream;
    for (i = 0; i < k && r == CUDA_SUCCESS; i++) {
        char *d = dst + (size_t)(to ? to[i] : i) * dst_stride;
        const char *s = src + (size_t)(from ? from[i] : i) * src_stride;
        if (!x->a->device) memcpy(d, s, bytes);
        else r = mcoll_cu.cuMemcpyDtoDAsync((CUdeviceptr)(uintptr_t)d, (CUdeviceptr)(uintptr_t)s, bytes, stream);
    }
    if (x->a->device && !queued && r == CUDA_SUCCESS) r = mcoll_cu.cuStreamSynchronize(stream);
    if (r != CUDA_SUCCESS && x->rc == MCOLL_SUCCESS) {
        MCOLL_WARN("hierarchical collective: reordering blocks failed (%s)", mcoll_cu_errname(r));
        x->rc = MCOLL_ERR_CUDA;
    }
}

char *hier_carve(char **next, size_t bytes)
{
    char *p = *next;
    *next += (bytes + 255) / 256 * 256;
    return p;
}
