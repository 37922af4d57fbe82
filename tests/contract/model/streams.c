/* Streams and events: small objects whose only job is to exist, be checked, and be counted as
 * live until destroyed. Work "on" a stream runs synchronously, so synchronising is a no-op. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <time.h>
#include "model.h"

#define STREAM_MAGIC 0x73747265616d5f5fULL  /* "stream__" */
#define EVENT_MAGIC 0x6576656e745f5f5fULL   /* "event___" */

static model_token *find_token(model_node *list, const void *p)
{
    for (model_node *n = list; n; n = n->next)
        if ((const void *)n == p) return (model_token *)n;
    return NULL;
}

int model_valid_stream(CUstream stream)
{
    return stream == NULL || stream == CU_STREAM_LEGACY || stream == CU_STREAM_PER_THREAD ||
           find_token(model.streams, (const void *)stream) != NULL;
}

model_token *model_find_stream(CUstream stream) { return find_token(model.streams, (const void *)stream); }

int model_valid_event(CUevent event)
{
    return event != NULL && find_token(model.events, (const void *)event) != NULL;
}

static CUresult create_token(model_fn fn, model_node **list, uint64_t magic, void **out,
                             unsigned flags, unsigned valid_flags, const char *what)
{
    model_call call;
    CUresult rc = model_enter(&call, fn, 1, "flags=%#x", flags);
    if (rc != CUDA_SUCCESS) return rc;
    if (!out) return model_violation(&call, CUDA_ERROR_INVALID_VALUE, "%s is NULL", what);
    if (flags & ~valid_flags) return model_violation(&call, CUDA_ERROR_INVALID_VALUE, "unknown flags");
    if (model_current_device() < 0)
        return model_violation(&call, CUDA_ERROR_INVALID_CONTEXT, "no current context");
    if (model_injecting(&call)) return model_leave(&call, call.inject);
    model_token *t = calloc(1, sizeof *t);
    if (!t) return model_leave(&call, CUDA_ERROR_OUT_OF_MEMORY);
    t->magic = magic;
    t->flags = flags;
    model_list_push(list, &t->node);
    *out = t;
    return model_leave(&call, CUDA_SUCCESS);
}

CUresult model_cuStreamCreate(CUstream *stream, unsigned int flags)
{
    void *out = NULL;
    CUresult rc = create_token(MODEL_cuStreamCreate, &model.streams, STREAM_MAGIC,
                               stream ? &out : NULL, flags, CU_STREAM_NON_BLOCKING, "phStream");
    if (rc == CUDA_SUCCESS) {
        *stream = (CUstream)out;
        pthread_mutex_lock(&model.lock);
        model_order_created((model_token *)out);
        pthread_mutex_unlock(&model.lock);
    }
    return rc;
}

CUresult model_cuEventCreate(CUevent *event, unsigned int flags)
{
    void *out = NULL;
    unsigned valid = CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING | CU_EVENT_INTERPROCESS;
    CUresult rc = create_token(MODEL_cuEventCreate, &model.events, EVENT_MAGIC,
                               event ? &out : NULL, flags, valid, "phEvent");
    if (rc == CUDA_SUCCESS) *event = (CUevent)out;
    return rc;
}

CUresult model_cuStreamDestroy(CUstream stream)
{
    model_call call;
    CUresult rc = model_enter(&call, MODEL_cuStreamDestroy, 1, "stream=%p", (void *)stream);
    if (rc != CUDA_SUCCESS) return rc;
    model_token *t = find_token(model.streams, (const void *)stream);
    if (!t) return model_violation(&call, CUDA_ERROR_INVALID_HANDLE, "not a stream of cuStreamCreate");
    if (model_injecting(&call)) return model_leave(&call, call.inject);
    model_order_destroyed(t);
    model_list_remove(&model.streams, &t->node);
    free(t);
    return model_leave(&call, CUDA_SUCCESS);
}

CUresult model_cuEventDestroy(CUevent event)
{
    model_call call;
    CUresult rc = model_enter(&call, MODEL_cuEventDestroy, 1, "event=%p", (void *)event);
    if (rc != CUDA_SUCCESS) return rc;
    model_token *t = find_token(model.events, (const void *)event);
    if (!t) return model_violation(&call, CUDA_ERROR_INVALID_HANDLE, "not an event of cuEventCreate");
    if (model_injecting(&call)) return model_leave(&call, call.inject);
    model_list_remove(&model.events, &t->node);
    free(t->stamp);
    free(t);
    return model_leave(&call, CUDA_SUCCESS);
}

CUresult model_cuStreamSynchronize(CUstream stream)
{
    model_call call;
    CUresult rc = model_enter(&call, MODEL_cuStreamSynchronize, 1, "stream=%p", (void *)stream);
    if (rc != CUDA_SUCCESS) return rc;
    if (!model_valid_stream(stream))
        return model_violation(&call, CUDA_ERROR_INVALID_HANDLE, "unknown stream");
    if (model_injecting(&call)) return model_leave(&call, call.inject);
    /* The legacy stream waits for every blocking stream; other streams only for their own work. */
    model_work_done(stream, stream == NULL);
    return model_leave(&call, CUDA_SUCCESS);
}

/* Work runs as it is enqueued: every stream is idle. */
CUresult model_cuStreamQuery(CUstream stream)
{
    model_call call;
    CUresult rc = model_enter(&call, MODEL_cuStreamQuery, 1, "stream=%p", (void *)stream);
    if (rc != CUDA_SUCCESS) return rc;
    if (!model_valid_stream(stream))
        return model_violation(&call, CUDA_ERROR_INVALID_HANDLE, "unknown stream");
    if (model_injecting(&call)) return model_leave(&call, call.inject);
    return model_leave(&call, CUDA_SUCCESS);
}

CUresult model_cuStreamIsCapturing(CUstream stream, CUstreamCaptureStatus *status)
{
    model_call call;
    CUresult rc = model_enter(&call, MODEL_cuStreamIsCapturing, 1, "stream=%p", (void *)stream);
    if (rc != CUDA_SUCCESS) return rc;
    if (!status) return model_violation(&call, CUDA_ERROR_INVALID_VALUE, "captureStatus is NULL");
    if (!model_valid_stream(stream))
        return model_violation(&call, CUDA_ERROR_INVALID_HANDLE, "unknown stream");
    if (model_injecting(&call)) return model_leave(&call, call.inject);
    *status = CU_STREAM_CAPTURE_STATUS_NONE;
    return model_leave(&call, CUDA_SUCCESS);
}

CUresult model_cuEventRecord(CUevent event, CUstream stream)
{
    model_call call;
    CUresult rc = model_enter(&call, MODEL_cuEventRecord, 1, "event=%p, stream=%p", (void *)event,
                              (void *)stream);
    if (rc != CUDA_SUCCESS) return rc;
    if (!model_valid_event(event))
        return model_violation(&call, CUDA_ERROR_INVALID_HANDLE, "unknown event");
    if (!model_valid_stream(stream))
        return model_violation(&call, CUDA_ERROR_INVALID_HANDLE, "unknown stream");
    if (model_injecting(&call)) return model_leave(&call, call.inject);
    model_token *t = find_token(model.events, (const void *)event);
    t->pending = model.event_delay;
    model_order_record(t, stream);
    return model_leave(&call, CUDA_SUCCESS);
}

/* Later work on the stream waits for what the event's last record captured (nothing when it
 * was never recorded, as in CUDA). */
CUresult model_cuStreamWaitEvent(CUstream stream, CUevent event, unsigned int flags)
{
    model_call call;
    CUresult rc = model_enter(&call, MODEL_cuStreamWaitEvent, 1, "stream=%p, event=%p, flags=%#x", (void *)stream,
                              (void *)event, flags);
    if (rc != CUDA_SUCCESS) return rc;
    if (!model_valid_stream(stream))
        return model_violation(&call, CUDA_ERROR_INVALID_HANDLE, "unknown stream");
    if (!model_valid_event(event))
        return model_violation(&call, CUDA_ERROR_INVALID_HANDLE, "unknown event");
    if (flags != 0) return model_violation(&call, CUDA_ERROR_INVALID_VALUE, "flags must be 0 (CU_EVENT_WAIT_DEFAULT)");
    if (model_injecting(&call)) return model_leave(&call, call.inject);
    model_order_wait(stream, find_token(model.events, (const void *)event));
    return model_leave(&call, CUDA_SUCCESS);
}

CUresult model_cuEventSynchronize(CUevent event)
{
    model_call call;
    CUresult rc = model_enter(&call, MODEL_cuEventSynchronize, 1, "event=%p", (void *)event);
    if (rc != CUDA_SUCCESS) return rc;
    if (!model_valid_event(event))
        return model_violation(&call, CUDA_ERROR_INVALID_HANDLE, "unknown event");
    if (model_injecting(&call)) return model_leave(&call, call.inject);
    find_token(model.events, (const void *)event)->pending = 0;
    return model_leave(&call, CUDA_SUCCESS);
}

/* The work before the event ran when it was recorded; MCOLL_CONTRACT_EVENT_DELAY=N makes the
 * first N queries after each record answer NOT_READY, as a GPU still busy would. */
CUresult model_cuEventQuery(CUevent event)
{
    model_call call;
    CUresult rc = model_enter(&call, MODEL_cuEventQuery, 1, "event=%p", (void *)event);
    if (rc != CUDA_SUCCESS) return rc;
    if (!model_valid_event(event))
        return model_violation(&call, CUDA_ERROR_INVALID_HANDLE, "unknown event");
    if (model_injecting(&call)) return model_leave(&call, call.inject);
    model_token *t = find_token(model.events, (const void *)event);
    if (t->pending > 0) {
        t->pending--;
        return model_leave(&call, CUDA_ERROR_NOT_READY);
    }
    return model_leave(&call, CUDA_SUCCESS);
}

static int wait_value_met(const volatile uint32_t *p, uint32_t value, unsigned condition)
{
    const uint32_t now = __atomic_load_n(p, __ATOMIC_ACQUIRE);
    switch (condition) {
    case CU_STREAM_WAIT_VALUE_GEQ: return (int32_t)(now - value) >= 0;
    case CU_STREAM_WAIT_VALUE_EQ: return now == value;
    case CU_STREAM_WAIT_VALUE_AND: return (now & value) != 0;
    default: return ~(now | value) != 0; /* NOR */
    }
}

/* Work runs as it is enqueued, so the wait happens here, in the caller (outside the model's
 * lock: whatever writes the word may call the driver meanwhile). A wait that nothing satisfies
 * within a minute is a hang on a GPU: a violation. */
CUresult model_cuStreamWaitValue32(CUstream stream, CUdeviceptr addr, cuuint32_t value, unsigned int flags)
{
    model_call call;
    const unsigned condition = flags & ~(unsigned)CU_STREAM_WAIT_VALUE_FLUSH;
    const volatile uint32_t *p = (const volatile uint32_t *)(uintptr_t)addr;
    CUresult rc = model_enter(&call, MODEL_cuStreamWaitValue32, 1, "stream=%p, addr=%#llx, value=%u, flags=%#x",
                              (void *)stream, (unsigned long long)addr, value, flags);
    if (rc != CUDA_SUCCESS) return rc;
    if (!model_valid_stream(stream))
        return model_violation(&call, CUDA_ERROR_INVALID_HANDLE, "unknown stream");
    if (!addr || addr % 4) return model_violation(&call, CUDA_ERROR_INVALID_VALUE, "addr is NULL or not 4-byte aligned");
    if (condition > CU_STREAM_WAIT_VALUE_NOR)
        return model_violation(&call, CUDA_ERROR_INVALID_VALUE, "unknown wait condition");
    if (model_injecting(&call)) return model_leave(&call, call.inject);
    (void)model_leave(&call, CUDA_SUCCESS);
    for (long spins = 0; !wait_value_met(p, value, condition); spins++) {
        struct timespec ts = {0, 10000};
        if (spins > 6000000) { /* 10 us naps: about a minute */
            rc = model_enter(&call, MODEL_cuStreamWaitValue32, 1, "addr=%#llx, value=%u", (unsigned long long)addr, value);
            if (rc != CUDA_SUCCESS) return rc;
            return model_violation(&call, CUDA_ERROR_LAUNCH_TIMEOUT, "the awaited value never came: the stream would hang");
        }
        nanosleep(&ts, NULL);
    }
    return CUDA_SUCCESS;
}
