/* Staging through two slots of pinned memory inside a pipeline (see hier_internal.h).
 *
 * Staged as a lone step is, an MPI step between domains waits for its input's copy to the host,
 * makes the call and waits for its result's copy back: both copies lie on the pipeline's
 * critical path, in series with the MPI. Inside a pipeline the engine's stream orders
 * everything the step touches, so the copy back is queued there, ahead of the engine steps
 * that read it, and (hier_stage_ahead) the input's copy is queued right behind the engine step
 * that produces it: both then overlap the neighbouring chunk's MPI. The slot of chunk k is
 * reused by chunk k + 2 only after the pipeline has waited for the mark queued behind chunk k's
 * copy back, which is what hier_pipeline does before every finish step. */
#include "comm_internal.h"
#include "config.h"
#include "hier_internal.h"

void hier_slots_begin(hier_run *x)
{
    x->slots = x->queued && !x->rec && x->a->device && !x->a->cuda_aware && x->engine &&
               mcoll_settings_get()->hier_overlap_copies;
    x->pending = x->parity = 0;
    x->ahead[0].dev = x->ahead[1].dev = NULL;
}

void hier_slots_chunk(hier_run *x, size_t k) { x->parity = (int)(k % 2); }

void hier_slots_end(hier_run *x)
{
    x->slots = x->pending = 0;
    x->ahead[0].dev = x->ahead[1].dev = NULL;
}

/* Slot p with room for `bytes`, or NULL. The slots grow only before anything is queued on them
 * (the first chunk is the largest), since a queued copy may still be reading or writing them. */
static char *slot(hier_run *x, int p, size_t bytes)
{
    mcoll_hier *h = x->h;
    bytes = hier_stage_aligned(bytes);
    if (bytes > h->slot_bytes) {
        if (x->pending) return NULL;
        /* Growing frees the old slots first: without new ones there are none. */
        h->slot_bytes = 0;
        if (!hier_host_slots(x, 2 * bytes)) return NULL;
        h->slot_bytes = h->slots_bytes / 2 / HIER_STAGE_ALIGN * HIER_STAGE_ALIGN;
    }
    return h->slots + (size_t)p * h->slot_bytes;
}

void hier_stage_ahead(hier_run *x, size_t k, const void *dev, size_t bytes)
{
    int p = (int)(k % 2);
    char *host;
    x->ahead[p].dev = NULL;
    if (!x->slots || !bytes || x->rc != MCOLL_SUCCESS) return;
    /* Room for the input and a result no larger (the steps that read an engine's result reduce). */
    host = slot(x, p, hier_stage_aligned(bytes) + bytes);
    if (!host) return;
    if (hier_stage_copy(mcoll_comm_stream(x->engine), host, dev, bytes, 1) != CUDA_SUCCESS) {
        hier_failed(x, MCOLL_ERR_CUDA);
        return;
    }
    x->pending = 1;
    x->ahead[p].dev = dev;
    x->ahead[p].bytes = bytes;
}

int hier_slots_take_ahead(hier_run *x, const void *dev, size_t bytes)
{
    int p = x->parity;
    if (!x->slots || !dev || x->ahead[p].dev != dev || x->ahead[p].bytes != bytes) return 0;
    x->ahead[p].dev = NULL;
    return 1;
}

char *hier_slots_memory(hier_run *x, size_t bytes) { return x->slots ? slot(x, x->parity, bytes) : NULL; }

/* The step's input (or, in place, its buffer) copied ahead into the current slot: taken. */
static int take_ahead(hier_run *x, const hier_mpi_step *s, int has_in)
{
    const void *buf = has_in ? s->in : s->out_read ? s->out : NULL;
    return hier_slots_take_ahead(x, buf, has_in ? s->in_bytes : s->out_bytes);
}

int hier_slots_mpi(hier_run *x, const hier_mpi_step *s)
{
    int has_in = s->in && s->in != MPI_IN_PLACE && s->in_bytes;
    int has_out = s->out && s->out_bytes;
    int ok = 1;
    /* The slot: the input, then the result (in place: the result alone). */
    size_t in_room = has_in ? hier_stage_aligned(s->in_bytes) : 0;
    char *host, *result;

    if (!x->slots) return 0;
    host = slot(x, x->parity, in_room + (has_out ? s->out_bytes : 0));
    if (!host) return 0; /* then staged as a lone step */
    result = host + in_room;
    if (!take_ahead(x, s, has_in)) {
        /* This chunk's input, done on the engine (the pipeline waited for it). */
        if (has_in) ok = hier_stage(x, host, s->in, s->in_bytes, 1);
        if (s->out_read && has_out && ok) ok = hier_stage(x, result, s->out, s->out_bytes, 1);
        if (ok) hier_stage_wait(x);
    }
    /* Made even after a failure, so the other ranks are not left waiting. */
    if (hier_mpi_call(x->a, s, has_in ? host : s->in, has_out ? result : NULL, NULL) != MPI_SUCCESS)
        hier_failed(x, MCOLL_ERR_MPI);
    if (has_out && x->rc == MCOLL_SUCCESS) {
        if (hier_stage_copy(mcoll_comm_stream(x->engine), s->out, result, s->out_bytes, 0) != CUDA_SUCCESS)
            hier_failed(x, MCOLL_ERR_CUDA);
        x->pending = 1;
    }
    return 1;
}
