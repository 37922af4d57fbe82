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
