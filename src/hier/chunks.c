/* How a pipelined call on equal domains is cut into chunks (see hier_internal.h). Every rank
 * cuts alike: the count, the element size, the domain size and MCOLL_STAGE_CHUNK are the same
 * on every rank of a call. */
#include "config.h"
#include "hier_internal.h"

hier_chunks hier_chunking(const hier_run *x, size_t n)
{
    hier_chunks c;
    size_t d = (size_t)x->h->local_size;
    c.body = n / d * d;
    c.slice = mcoll_settings_get()->stage_chunk / x->a->esize;
    if (c.slice == 0) c.slice = 1;
    if (c.slice > c.body / d) c.slice = c.body / d;
    c.chunk = c.slice * d;
    c.chunks = c.chunk ? (c.body + c.chunk - 1) / c.chunk : 0;
    return c;
}

size_t hier_chunk_elements(const hier_chunks *c, size_t k)
{
    size_t off = k * c->chunk;
    return c->body - off < c->chunk ? c->body - off : c->chunk;
}

hier_chunks hier_pieces(const hier_run *x, size_t n, size_t ways)
{
    hier_chunks c;
    c.body = n;
    c.slice = mcoll_settings_get()->stage_chunk / x->a->esize / ways;
    if (c.slice == 0) c.slice = 1;
    if (c.slice > n) c.slice = n;
    c.chunk = c.slice;
    c.chunks = c.chunk ? (n + c.chunk - 1) / c.chunk : 0;
    return c;
}

void hier_pipeline(hier_run *x, size_t chunks, hier_chunk_step queue, hier_chunk_step finish, void *ctx)
{
    size_t k;
    x->queued = hier_can_queue(x);
    hier_slots_begin(x);
    for (k = 0; k <= chunks; k++) {
        /* Queue chunk k, then finish chunk k - 1 while it runs. */
        if (k < chunks) {
            queue(x, k, ctx);
            hier_intra_mark(x, (int)(k % 2));
        }
        if (k > 0) {
            hier_intra_wait(x, (int)((k - 1) % 2));
            hier_slots_chunk(x, k - 1);
            finish(x, k - 1, ctx);
        }
    }
    hier_intra_finish(x);
    hier_slots_end(x);
    x->queued = 0;
}

/* hier_pipeline_reduce_scatter's call, for its two steps. */
typedef struct {
    const hier_chunks *c;
    const char *in;
    char **slot;
    hier_chunk_finish finish;
    void *ctx;
} rs_pipeline;

static void rs_queue(hier_run *x, size_t k, void *ctx)
{
    const rs_pipeline *p = ctx;
    size_t d = (size_t)x->h->local_size, q = hier_chunk_elements(p->c, k) / d;
    hier_intra_reduce_scatter(x, HIER_AT(x, p->in, k * p->c->chunk), p->slot[k % 2], q);
    hier_stage_ahead(x, k, p->slot[k % 2], HIER_BYTES(x, q));
}

static void rs_finish(hier_run *x, size_t k, void *ctx)
{
    const rs_pipeline *p = ctx;
    p->finish(x, p->slot[k % 2], k, hier_chunk_elements(p->c, k) / (size_t)x->h->local_size, p->ctx);
}

void hier_pipeline_reduce_scatter(hier_run *x, const hier_chunks *c, const char *in, char *slot[2],
                                  hier_chunk_finish finish, void *ctx)
{
    rs_pipeline p = {c, in, slot, finish, ctx};
    hier_pipeline(x, c->chunks, rs_queue, rs_finish, &p);
}
