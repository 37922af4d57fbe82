/* The order the GPU would run queued work in. The model runs nothing as it is queued, but it
 * keeps, for every stream, which work of every other stream the next work queued there would
 * wait for (a vector clock per stream), under CUDA's rules:
 *   - work on one stream runs in the order queued;
 *   - the legacy default stream waits for the work queued before on every blocking stream
 *     (created without CU_STREAM_NON_BLOCKING), and a blocking stream for the work queued before
 *     on the legacy default stream; non-blocking streams take part in neither;
 *   - cuEventRecord captures what its stream's work so far waits for, and cuStreamWaitEvent
 *     makes the stream's later work wait for that.
 * Streams beyond ORDER_SLOTS live at once are not followed (their questions answer -1). A slot
 * freed by cuStreamDestroy is taken again with its count going on, so that what was waited for
 * on the old stream is never mistaken for work of the new one. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include "model.h"

#define ORDER_SLOTS 128
#define LEGACY 0
#define PER_THREAD 1

typedef struct {
    int used, blocking;
    uint32_t count;                 /* work queued so far */
    uint32_t after[ORDER_SLOTS];    /* the next work waits for work 1..after[k] of slot k */
} order_slot;

static order_slot slots[ORDER_SLOTS] = {[LEGACY] = {1, 1, 0, {0}}, [PER_THREAD] = {1, 1, 0, {0}}};

static void max_into(uint32_t *into, const uint32_t *from)
{
    for (int k = 0; k < ORDER_SLOTS; k++)
        if (from[k] > into[k]) into[k] = from[k];
}

void model_order_created(model_token *stream)
{
    stream->slot = -1;
    for (int s = PER_THREAD + 1; s < ORDER_SLOTS; s++)
        if (!slots[s].used) {
            slots[s].used = 1;
            slots[s].blocking = !(stream->flags & CU_STREAM_NON_BLOCKING);
            memset(slots[s].after, 0, sizeof slots[s].after);
            slots[s].after[s] = slots[s].count;
            stream->slot = s;
            return;
        }
}

void model_order_destroyed(model_token *stream)
{
    if (stream->slot >= 0) slots[stream->slot].used = 0;
}

static int slot_of(CUstream stream)
{
    if (stream == NULL || stream == CU_STREAM_LEGACY) return LEGACY;
    if (stream == CU_STREAM_PER_THREAD) return PER_THREAD;
    const model_token *t = model_find_stream(stream);
    return t ? t->slot : -1;
}

/* What work queued on slot s now would wait for, in `vec`. */
static void next_waits(int s, uint32_t *vec)
{
    memcpy(vec, slots[s].after, sizeof slots[s].after);
    if (s == LEGACY) {
        for (int b = 0; b < ORDER_SLOTS; b++)
            if (b != LEGACY && slots[b].used && slots[b].blocking) max_into(vec, slots[b].after);
    } else if (slots[s].blocking) {
        max_into(vec, slots[LEGACY].after);
    }
}

void model_order_queue(CUstream stream)
{
    const int s = slot_of(stream);
    if (s < 0) return;
    uint32_t vec[ORDER_SLOTS];
    next_waits(s, vec);
    vec[s] = ++slots[s].count;
    memcpy(slots[s].after, vec, sizeof vec);
}

void model_order_record(model_token *event, CUstream stream)
{
    const int s = slot_of(stream);
    if (s < 0) { /* a stream not followed: the event captures nothing known */
        free(event->stamp);
        event->stamp = NULL;
        return;
    }
    model_order_queue(stream);
    if (!event->stamp) event->stamp = malloc(sizeof slots[s].after);
    if (event->stamp) memcpy(event->stamp, slots[s].after, sizeof slots[s].after);
}

void model_order_wait(CUstream stream, const model_token *event)
{
    const int s = slot_of(stream);
    if (s >= 0 && event->stamp) max_into(slots[s].after, event->stamp);
}

uint64_t mcoll_contract_last_work(CUstream stream)
{
    model_setup();
    pthread_mutex_lock(&model.lock);
    const int s = slot_of(stream);
    const uint64_t id = s < 0 || !slots[s].count ? 0 : (uint64_t)s << 32 | slots[s].count;
    pthread_mutex_unlock(&model.lock);
    return id;
}

int mcoll_contract_comes_after(CUstream stream, uint64_t work)
{
    uint32_t vec[ORDER_SLOTS];
    const int k = (int)(work >> 32);
    model_setup();
    pthread_mutex_lock(&model.lock);
    const int s = slot_of(stream);
    int answer = -1;
    if (s >= 0 && work && k < ORDER_SLOTS) {
        next_waits(s, vec);
        answer = vec[k] >= (uint32_t)work;
    }
    pthread_mutex_unlock(&model.lock);
    return answer;
}
