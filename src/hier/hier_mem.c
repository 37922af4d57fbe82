/* One call's run (its start builds the domain's engine on the first call that may use it), and
 * the memory and copies of the hierarchical steps. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "checks.h"
#include "comm_internal.h"
#include "config.h"
#include "hier_op.h"
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
    x->rec = h->recording;
    hier_slots_end(x); /* no slots outside a pipeline */
    /* Building the engine is collective over the domain: a nonblocking start must not wait for
     * its peers, so a recorded call uses the engine only once a blocking call has built it. */
    if (a->device && a->engines) {
        if (!h->engine_tried && !x->rec) build_engine(h);
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
    mcoll_result rc;
    if (!h->recording) hier_ops_drain(h); /* the calls in flight first, in the order started */
    rc = begin(&x, h, a);
    if (rc != MCOLL_SUCCESS) return rc;
    (h->equal ? equal : unequal)(&x);
    if (x.rec) return x.rc;
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
    if (x->rec) return hier_record_scratch(x, bytes);
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

#define PAGEABLE (-1) /* a staging buffer's `registered` when it could not be pinned */

char *hier_host_alloc(size_t bytes, int *registered, int pageable_ok)
{
    CUdevice dev = 0;
    static int said; /* the INFO line below: once per process */
    char *p;
    if (mcoll_cu.cuCtxGetDevice(&dev) != CUDA_SUCCESS) dev = 0;
    p = mcoll_host_alloc_near((int)dev, bytes, registered);
    if (p || !pageable_ok) return p;
    /* Slower copies (synchronous through the driver's own pinned buffers), the same results; as
     * the staged path's pool does. */
    p = malloc(bytes);
    if (p) {
        *registered = PAGEABLE;
        if (!said) MCOLL_INFO("pinned allocation of %zu bytes failed: hierarchical collectives stage through "
                              "pageable memory", bytes);
        said = 1;
    }
    return p;
}

void hier_host_free(char *p, size_t bytes, int registered)
{
    if (registered == PAGEABLE) free(p);
    else mcoll_host_free_near(p, bytes, registered);
}

/* A staging buffer of at least `bytes`, grown (never shrunk) in place of *buf: pinned, or where
 * pinning fails and it is `required`, pageable; without any the call fails when `required`,
 * else goes on without. */
static char *pinned(hier_run *x, char **buf, size_t *have, int *registered, size_t bytes, int required)
{
    if (bytes <= *have) return *buf;
    if (*buf) hier_host_free(*buf, *have, *registered);
    *have = 0;
    *buf = hier_host_alloc(rounded(bytes), registered, required);
    if (!*buf) {
        if (!required) return NULL;
        MCOLL_WARN("cannot allocate %zu bytes of staging memory for a hierarchical collective", bytes);
        if (x->rc == MCOLL_SUCCESS) x->rc = MCOLL_ERR_NO_MEMORY;
        return NULL;
    }
    *have = rounded(bytes);
    return *buf;
}

char *hier_host(hier_run *x, size_t bytes)
{
    mcoll_hier *h = x->h;
    return pinned(x, &h->host, &h->host_bytes, &h->host_registered, bytes, 1);
}

char *hier_host_slots(hier_run *x, size_t bytes)
{
    mcoll_hier *h = x->h;
    return pinned(x, &h->slots, &h->slots_bytes, &h->slots_registered, bytes, 0);
}

CUresult hier_copy_queue(const hier_copy_step *s, int device, CUstream stream)
{
    CUresult r = CUDA_SUCCESS;
    int i;
    for (i = 0; i < s->k && r == CUDA_SUCCESS; i++) {
        char *d = s->dst + (size_t)(s->to ? s->to[i] : i) * s->dst_stride;
        const char *src = s->src + (size_t)(s->from ? s->from[i] : i) * s->src_stride;
        if (d == src) continue;
        if (!device) memmove(d, src, s->bytes);
        else r = mcoll_cu.cuMemcpyDtoDAsync((CUdeviceptr)(uintptr_t)d, (CUdeviceptr)(uintptr_t)src, s->bytes, stream);
    }
    return r;
}

/* The copies of one step: recorded, queued on the engine's stream inside a pipeline, or made on
 * the copy stream and waited for. */
static void copy_step(hier_run *x, const hier_copy_step *s, const char *what)
{
    int queued = x->queued && x->engine;
    CUstream stream = queued ? (CUstream)mcoll_comm_stream(x->engine) : x->h->stream;
    CUresult r;
    if (x->rec) {
        hier_record_copy(x, s);
        return;
    }
    r = hier_copy_queue(s, x->a->device, stream);
    if (x->a->device && !queued && r == CUDA_SUCCESS) r = mcoll_cu.cuStreamSynchronize(stream);
    if (r != CUDA_SUCCESS && x->rc == MCOLL_SUCCESS) {
        MCOLL_WARN("hierarchical collective: %s failed (%s)", what, mcoll_cu_errname(r));
        x->rc = MCOLL_ERR_CUDA;
    }
}

void hier_copy(hier_run *x, void *dst, const void *src, size_t bytes)
{
    hier_copy_step s = {dst, bytes, NULL, src, bytes, NULL, 1, bytes};
    if (!bytes || dst == src || !dst || !src) return;
    copy_step(x, &s, "device copy");
}

/* Quietly: at MPI_Finalize the context may be gone already, and these with it. */
void hier_free_memory(mcoll_hier *h)
{
    if (h->scratch) {
        if (h->scratch_on_device) mcoll_cu.cuMemFree((CUdeviceptr)(uintptr_t)h->scratch);
        else free(h->scratch);
    }
    if (h->host) hier_host_free(h->host, h->host_bytes, h->host_registered);
    if (h->slots) hier_host_free(h->slots, h->slots_bytes, h->slots_registered);
    if (h->stream) mcoll_cu.cuStreamDestroy(h->stream);
    if (h->marks[0]) mcoll_cu.cuEventDestroy(h->marks[0]);
    if (h->marks[1]) mcoll_cu.cuEventDestroy(h->marks[1]);
    h->marks[0] = h->marks[1] = NULL;
    h->scratch = h->host = h->slots = NULL;
    h->host_bytes = h->slots_bytes = h->slot_bytes = 0;
    h->stream = NULL;
}

void hier_permute(hier_run *x, char *dst, size_t dst_stride, const int *to, const char *src, size_t src_stride,
                  const int *from, int k, size_t bytes)
{
    hier_copy_step s = {dst, dst_stride, to, src, src_stride, from, k, bytes};
    copy_step(x, &s, "reordering blocks");
}

char *hier_carve(char **next, size_t bytes)
{
    char *p = *next;
    *next += (bytes + 255) / 256 * 256;
    return p;
}

void hier_carve_two(char **next, size_t bytes, char *two[2])
{
    two[0] = bytes ? hier_carve(next, bytes) : NULL;
    two[1] = bytes ? hier_carve(next, bytes) : NULL;
}
