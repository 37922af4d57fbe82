/* Pooled memory and per-context copy streams for operations in flight (see pool.h). */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include "pool.h"
#include "checks.h"
#include "locality.h"

#define MIN_BLOCK ((size_t)64 << 10)
#define MAX_KEPT ((size_t)256 << 20)
#define MAX_STREAMS 64
#define MAX_EVENTS 256

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static mcoll_block *kept[2];       /* free blocks: host, device */
static size_t kept_bytes[2];
static struct {
    CUcontext ctx;
    CUstream stream;
} streams[MAX_STREAMS];
static struct {
    CUcontext ctx;
    CUevent event;
} events[MAX_EVENTS];              /* kept events, the first n_events of them */
static int n_events;

CUcontext mcoll_ctx_enter(CUcontext ctx)
{
    CUcontext cur = NULL;
    mcoll_cu.cuCtxGetCurrent(&cur);
    if (ctx && cur != ctx) mcoll_cu.cuCtxSetCurrent(ctx);
    return cur;
}

void mcoll_ctx_leave(CUcontext ctx, CUcontext before)
{
    if (ctx && before != ctx) mcoll_cu.cuCtxSetCurrent(before);
}

static void release(mcoll_block *b)
{
    CUcontext before = mcoll_ctx_enter(b->ctx);
    if (b->on_device) mcoll_cu.cuMemFree((CUdeviceptr)(uintptr_t)b->ptr);
    else if (b->pinned) mcoll_host_free_near(b->ptr, b->bytes, b->registered);
    else free(b->ptr);
    mcoll_ctx_leave(b->ctx, before);
    free(b);
}

static mcoll_block *allocate(int on_device, size_t bytes, CUcontext ctx)
{
    mcoll_block *b = (mcoll_block *)calloc(1, sizeof *b);
    CUdevice dev = 0;
    CUdeviceptr p = 0;
    if (!b) return NULL;
    b->on_device = on_device;
    b->bytes = bytes;
    b->ctx = ctx;
    if (on_device) {
        if (mcoll_cu.cuMemAlloc(&p, bytes) == CUDA_SUCCESS) b->ptr = (char *)(uintptr_t)p;
    } else {
        if (mcoll_cu.cuCtxGetDevice(&dev) != CUDA_SUCCESS) dev = 0;
        b->ptr = (char *)mcoll_host_alloc_near((int)dev, bytes, &b->registered);
        b->pinned = b->ptr != NULL;
        if (!b->ptr) b->ptr = (char *)malloc(bytes); /* slower copies, still correct */
    }
    if (!b->ptr) {
        MCOLL_WARN("cannot allocate %zu bytes of %s memory for a nonblocking call", bytes, on_device ? "device" : "host");
        free(b);
        return NULL;
    }
    return b;
}

mcoll_block *mcoll_pool_get(int on_device, size_t bytes)
{
    mcoll_block **at, *b;
    CUcontext ctx = NULL;
    size_t want = MIN_BLOCK;
    mcoll_cu.cuCtxGetCurrent(&ctx);
    while (want < bytes) want *= 2;
    pthread_mutex_lock(&lock);
    for (at = &kept[on_device]; *at; at = &(*at)->next) {
        b = *at;
        if (b->bytes == want && (!on_device || b->ctx == ctx)) {
            *at = b->next;
            kept_bytes[on_device] -= b->bytes;
            pthread_mutex_unlock(&lock);
            b->next = NULL;
            return b;
        }
    }
    pthread_mutex_unlock(&lock);
    return allocate(on_device, want, ctx);
}

void mcoll_pool_put(mcoll_block *b)
{
    if (!b) return;
    pthread_mutex_lock(&lock);
    if (kept_bytes[b->on_device] + b->bytes <= MAX_KEPT) {
        b->next = kept[b->on_device];
        kept[b->on_device] = b;
        kept_bytes[b->on_device] += b->bytes;
        b = NULL;
    }
    pthread_mutex_unlock(&lock);
    if (b) release(b);
}

CUstream mcoll_pool_stream(void)
{
    CUcontext ctx = NULL;
    CUstream s = NULL;
    int i;
    if (mcoll_cu.cuCtxGetCurrent(&ctx) != CUDA_SUCCESS || !ctx) return NULL;
    pthread_mutex_lock(&lock);
    for (i = 0; i < MAX_STREAMS && streams[i].ctx; i++)
        if (streams[i].ctx == ctx) {
            s = streams[i].stream;
            break;
        }
    if (!s && i < MAX_STREAMS) {
        /* Default flags: ordered after the legacy default stream (see pool.h). */
        CUresult rc = mcoll_cu.cuStreamCreate(&s, CU_STREAM_DEFAULT);
        if (rc == CUDA_SUCCESS) {
            streams[i].ctx = ctx;
            streams[i].stream = s;
        } else {
            MCOLL_WARN("cuStreamCreate failed: %s", mcoll_cu_errname(rc));
            s = NULL;
        }
    }
    pthread_mutex_unlock(&lock);
    if (!s && i >= MAX_STREAMS) MCOLL_WARN("more than %d CUDA contexts: no copy stream", MAX_STREAMS);
    return s;
}

CUevent mcoll_pool_event(void)
{
    CUcontext ctx = NULL;
    CUevent ev = NULL;
    CUresult rc;
    int i;
    mcoll_cu.cuCtxGetCurrent(&ctx);
    pthread_mutex_lock(&lock);
    for (i = n_events - 1; i >= 0; i--)
        if (events[i].ctx == ctx) {
            ev = events[i].event;
            events[i] = events[--n_events];
            break;
        }
    pthread_mutex_unlock(&lock);
    if (ev) return ev;
    if ((rc = mcoll_cu.cuEventCreate(&ev, CU_EVENT_DISABLE_TIMING)) != CUDA_SUCCESS) {
        MCOLL_WARN("cuEventCreate failed: %s", mcoll_cu_errname(rc));
        return NULL;
    }
    return ev;
}

static void destroy_event(CUcontext ctx, CUevent ev)
{
    CUcontext before = mcoll_ctx_enter(ctx);
    mcoll_cu.cuEventDestroy(ev);
    mcoll_ctx_leave(ctx, before);
}

void mcoll_pool_event_put(CUcontext ctx, CUevent event)
{
    int kept_it = 0;
    if (!event) return;
    pthread_mutex_lock(&lock);
    if (n_events < MAX_EVENTS) {
        events[n_events].ctx = ctx;
        events[n_events++].event = event;
        kept_it = 1;
    }
    pthread_mutex_unlock(&lock);
    if (!kept_it) destroy_event(ctx, event);
}

void mcoll_pool_finalize(void)
{
    mcoll_block *b, *next;
    int k, i;
    pthread_mutex_lock(&lock);
    for (i = 0; i < n_events; i++) destroy_event(events[i].ctx, events[i].event);
    n_events = 0;
    for (k = 0; k < 2; k++) {
        for (b = kept[k]; b; b = next) {
            next = b->next;
            release(b);
        }
        kept[k] = NULL;
        kept_bytes[k] = 0;
    }
    for (i = 0; i < MAX_STREAMS && streams[i].ctx; i++) {
        CUcontext before = mcoll_ctx_enter(streams[i].ctx);
        mcoll_cu.cuStreamDestroy(streams[i].stream);
        mcoll_ctx_leave(streams[i].ctx, before);
        streams[i].ctx = NULL;
        streams[i].stream = NULL;
    }
    pthread_mutex_unlock(&lock);
}
