/* Per-thread staging resources: pinned host memory, a copy stream, two events (see stage.h). */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include "stage.h"
#include "locality.h"
#include "checks.h"

#define MAX_RETAINED 64      /* devices whose primary context mcoll may retain */
#define HOST_GRANULE (1u << 20)

struct mcoll_stage {
    CUcontext ctx;           /* context the stream and events belong to */
    CUstream stream;
    CUevent event[2];
    char *host;
    size_t host_bytes;
    int host_pinned;
    int host_registered;     /* pinned by cuMemHostRegister on hwloc memory, not cuMemHostAlloc */
    CUdeviceptr device;      /* scratch device memory, in ctx */
    size_t device_bytes;
    int restore_null;        /* this call made a context current: undo at the end */
    struct mcoll_stage *next;
};

static _Thread_local mcoll_stage *mine;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static mcoll_stage *all;
static CUcontext retained[MAX_RETAINED];

static void free_host(mcoll_stage *st)
{
    if (!st->host) return;
    if (st->host_pinned) mcoll_host_free_near(st->host, st->host_bytes, st->host_registered);
    else free(st->host);
    st->host = NULL;
    st->host_bytes = 0;
}

/* Quietly: the context may already be gone, and then so are these. */
static void drop_stream(mcoll_stage *st)
{
    int i;
    if (st->device) mcoll_cu.cuMemFree(st->device);
    st->device = 0;
    st->device_bytes = 0;
    for (i = 0; i < 2; i++)
        if (st->event[i]) mcoll_cu.cuEventDestroy(st->event[i]);
    if (st->stream) mcoll_cu.cuStreamDestroy(st->stream);
    st->event[0] = st->event[1] = NULL;
    st->stream = NULL;
    st->ctx = NULL;
}

static mcoll_result make_stream(mcoll_stage *st, CUcontext ctx)
{
    mcoll_result rc = MCOLL_SUCCESS;
    /* Default flags: the stream waits for the legacy default stream, so kernels the user queued
     * there before calling MPI have finished writing sendbuf before it is copied. */
    CU_GOTO(cuStreamCreate(&st->stream, CU_STREAM_DEFAULT), fail);
    CU_GOTO(cuEventCreate(&st->event[0], CU_EVENT_DISABLE_TIMING), fail);
    CU_GOTO(cuEventCreate(&st->event[1], CU_EVENT_DISABLE_TIMING), fail);
    st->ctx = ctx;
    return MCOLL_SUCCESS;
fail:
    drop_stream(st);
    return rc;
}

static CUcontext primary_context(int device)
{
    CUcontext ctx = NULL;
    CUdevice dev;
    if (device < 0 || device >= MAX_RETAINED) device = 0;
    pthread_mutex_lock(&lock);
    if (!retained[device] && mcoll_cu.cuDeviceGet(&dev, device) == CUDA_SUCCESS &&
        mcoll_cu.cuDevicePrimaryCtxRetain(&ctx, dev) == CUDA_SUCCESS)
        retained[device] = ctx;
    ctx = retained[device];
    pthread_mutex_unlock(&lock);
    return ctx;
}

mcoll_stage *mcoll_stage_begin(int device)
{
    CUcontext cur = NULL;
    int made_current = 0;

    if (mcoll_cu.cuCtxGetCurrent(&cur) != CUDA_SUCCESS) cur = NULL;
    if (!cur) {
        /* A thread with no current context (buffers made by another thread, say). */
        cur = primary_context(device);
        if (!cur || mcoll_cu.cuCtxSetCurrent(cur) != CUDA_SUCCESS) {
            MCOLL_WARN("no CUDA context for device %d: cannot stage its buffers", device);
            return NULL;
        }
        made_current = 1;
    }
    if (!mine) {
        mine = (mcoll_stage *)calloc(1, sizeof *mine);
        if (!mine) goto fail;
        pthread_mutex_lock(&lock);
        mine->next = all;
        all = mine;
        pthread_mutex_unlock(&lock);
    }
    if (mine->ctx != cur) {
        if (mine->ctx) {
            /* The thread switched contexts: the old stream cannot order work of the new one. */
            mcoll_cu.cuCtxSetCurrent(mine->ctx);
            drop_stream(mine);
            mcoll_cu.cuCtxSetCurrent(cur);
        }
        if (make_stream(mine, cur) != MCOLL_SUCCESS) goto fail;
    }
    mine->restore_null = made_current;
    return mine;
fail:
    if (made_current) mcoll_cu.cuCtxSetCurrent(NULL);
    return NULL;
}

void mcoll_stage_end(mcoll_stage *st)
{
    if (st && st->restore_null) {
        mcoll_cu.cuCtxSetCurrent(NULL);
        st->restore_null = 0;
    }
}

char *mcoll_stage_host(mcoll_stage *st, size_t bytes)
{
    CUdevice dev = 0;
    void *p = NULL;
    size_t want;
    if (bytes <= st->host_bytes) return st->host;
    free_host(st);
    want = (bytes + HOST_GRANULE - 1) / HOST_GRANULE * HOST_GRANULE;
    /* Pinned, and on the NUMA node nearest the GPU of the current context when hwloc knows it. */
    if (mcoll_cu.cuCtxGetDevice(&dev) != CUDA_SUCCESS) dev = 0;
    p = mcoll_host_alloc_near((int)dev, want, &st->host_registered);
    if (p) {
        st->host_pinned = 1;
    } else {
        /* Slower (the driver copies through its own pinned buffers) but still correct. */
        MCOLL_INFO("pinned allocation of %zu bytes failed: staging through pageable memory", want);
        p = malloc(want);
        st->host_pinned = 0;
        if (!p) {
            MCOLL_WARN("cannot allocate %zu bytes of staging memory", want);
            return NULL;
        }
    }
    st->host = (char *)p;
    st->host_bytes = want;
    MCOLL_TRACE("staging buffer: %zu bytes (%s)", want, st->host_pinned ? "pinned" : "pageable");
    return st->host;
}

void *mcoll_stage_device(mcoll_stage *st, size_t bytes)
{
    CUdeviceptr p = 0;
    size_t want = (bytes + HOST_GRANULE - 1) / HOST_GRANULE * HOST_GRANULE;
    if (bytes <= st->device_bytes) return (void *)(uintptr_t)st->device;
    if (st->device) mcoll_cu.cuMemFree(st->device);
    st->device = 0;
    st->device_bytes = 0;
    if (mcoll_cu.cuMemAlloc(&p, want) != CUDA_SUCCESS) {
        MCOLL_WARN("cannot allocate %zu bytes of device scratch memory", want);
        return NULL;
    }
    st->device = p;
    st->device_bytes = want;
    return (void *)(uintptr_t)p;
}

mcoll_result mcoll_stage_to_host(mcoll_stage *st, void *dst, const void *src, size_t bytes)
{
    CU_RETURN(cuMemcpyDtoHAsync(dst, (CUdeviceptr)(uintptr_t)src, bytes, st->stream));
    return MCOLL_SUCCESS;
}

mcoll_result mcoll_stage_to_device(mcoll_stage *st, void *dst, const void *src, size_t bytes)
{
    CU_RETURN(cuMemcpyHtoDAsync((CUdeviceptr)(uintptr_t)dst, src, bytes, st->stream));
    return MCOLL_SUCCESS;
}

mcoll_result mcoll_stage_mark(mcoll_stage *st, int slot)
{
    CU_RETURN(cuEventRecord(st->event[slot], st->stream));
    return MCOLL_SUCCESS;
}

mcoll_result mcoll_stage_wait(mcoll_stage *st, int slot)
{
    CU_RETURN(cuEventSynchronize(st->event[slot]));
    return MCOLL_SUCCESS;
}

mcoll_result mcoll_stage_sync(mcoll_stage *st)
{
    CU_RETURN(cuStreamSynchronize(st->stream));
    return MCOLL_SUCCESS;
}

void mcoll_stage_finalize(void)
{
    mcoll_stage *st, *next;
    CUcontext cur = NULL;
    int i;
    if (!mcoll_driver_available()) return;
    mcoll_cu.cuCtxGetCurrent(&cur);
    pthread_mutex_lock(&lock);
    for (st = all; st; st = next) {
        next = st->next;
        if (st->ctx) {
            mcoll_cu.cuCtxSetCurrent(st->ctx);
            drop_stream(st);
        }
        free_host(st);
        free(st);
    }
    all = NULL;
    mine = NULL;
    mcoll_cu.cuCtxSetCurrent(cur);
    for (i = 0; i < MAX_RETAINED; i++) {
        CUdevice dev;
        if (!retained[i]) continue;
        if (mcoll_cu.cuDeviceGet(&dev, i) == CUDA_SUCCESS) mcoll_cu.cuDevicePrimaryCtxRelease(dev);
        retained[i] = NULL;
    }
    pthread_mutex_unlock(&lock);
}
