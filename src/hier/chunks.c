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

void hier_pipeline_reduce_scatter(hier_run *x, const hier_chunks *c, const char *in, char *slot[2],
                                  hier_chunk_finish finish, void *ctx)
{
    size_t d = (size_t)x->h->local_size, k;
    x->queued = hier_can_queue(x);
    for (k = 0; k <= c->chunks; k++) {
        /* Queue chunk k's reduce-scatter, then finish chunk k - 1 while it runs. */
        if (k < c->chunks) {
            hier_intra_reduce_scatter(x, HIER_AT(x, in, k * c->chunk), slot[k % 2], hier_chunk_elements(c, k) / d);
            hier_intra_mark(x, (int)(k % 2));
        }
        if (k > 0) {
            hier_intra_wait(x, (int)((k - 1) % 2));
            finish(x, slot[(k - 1) % 2], k - 1, hier_chunk_elements(c, k - 1) / d, ctx);
        }
    }
    hier_intra_finish(x);
    x->queued = 0;
}
