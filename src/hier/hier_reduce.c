/* Reduce across domains to any root.
 *
 * Equal domains: the vector is cut into chunks as allreduce's is; per chunk, reduce-scatter
 * inside every domain, reduce each slice between domains to the root's domain, gather the
 * slices to the root inside its domain (with two domains, the other domain's ranks send their
 * slices and the root's domain reduces them on the GPU: pair.c; with more, the slices' parts are
 * exchanged, reduced on the GPU and gathered to the root's domain: exchange.c). The chunks are
 * pipelined as allreduce's are: chunk k+1
 * is reduce-scattered on the engine while chunk k crosses the MPI, in two scratch slots that
 * alternate. The last count % d elements are reduced inside every domain to the rank with the
 * root's local rank, then between those to the root.
 *
 * Domains of unequal size: reduce to the first rank of each domain, reduce between those to the
 * first rank of the root's domain, which broadcasts inside its domain when it is not the root;
 * in chunks of MCOLL_STAGE_CHUNK bytes, pipelined as above. */
#include "hier_internal.h"

static const void *input(const hier_run *x)
{
    return x->a->sendbuf == MPI_IN_PLACE ? x->a->recvbuf : x->a->sendbuf;
}

/* What the chunks of one call share. */
typedef struct {
    const hier_chunks *c;
    int rd, lr, root_domain;
    char *other[2];          /* two domains: the other domain's slice at the root's domain (pair.c) */
    char *parts[2];          /* more: the domains' parts (exchange.c) */
} reduce_chunks;

/* Chunk k's slice, reduce-scattered inside the domain, reduced between domains to the root's
 * domain and gathered to the root there; on the engine's one stream the gather comes before
 * the reduce-scatter two chunks on, which reuses its slot (hier_pipeline_reduce_scatter). */
static void finish_chunk(hier_run *x, char *slot, size_t k, size_t q, void *ctx)
{
    const reduce_chunks *r = ctx;
    char *sum = slot;
    if (r->parts[0]) {
        hier_exchange_reduce(x, slot, q, r->parts[k % 2], r->rd);
    } else if (r->other[0]) {
        /* The other domain's rank sends its slice; the root's domain reduces it on the GPU. */
        hier_pair_step p = {slot, HIER_BYTES(x, q), r->root_domain ? NULL : slot, r->root_domain ? slot : NULL,
                            r->other[k % 2], q};
        sum = hier_pair(x, &p);
    } else {
        hier_inter_reduce(x, r->root_domain ? MPI_IN_PLACE : slot, slot, q, r->rd);
    }
    if (r->root_domain) hier_intra_gather(x, sum, HIER_AT(x, x->a->recvbuf, k * r->c->chunk), q, r->lr);
}

static void sliced(hier_run *x)
{
    const mcoll_hier_args *a = x->a;
    mcoll_hier *h = x->h;
    int rd = h->domain_of[a->root], lr = h->local_of[a->root], root_domain = h->my_domain == rd;
    int is_root = h->rank == a->root;
    size_t n = a->count;
    hier_chunks c = hier_chunking(x, n);
    const char *in = input(x);
    char *out = a->recvbuf, *scratch, *next, *slot[2], *tail;
    int pair = hier_pair_reduces(x);
    size_t parts_bytes = hier_exchange_reduces(x, HIER_BYTES(x, c.slice)) ? hier_exchange_scratch(x, c.slice, 0) : 0;
    reduce_chunks r = {&c, rd, lr, root_domain, {NULL, NULL}, {NULL, NULL}};

    scratch = hier_scratch(x, (pair ? 4 : 2) * (HIER_BYTES(x, c.slice) + 256) + HIER_BYTES(x, n - c.body) + 256 +
                                  2 * (parts_bytes + 256));
    if (!scratch) return;
    next = scratch;
    slot[0] = hier_carve(&next, HIER_BYTES(x, c.slice));
    slot[1] = hier_carve(&next, HIER_BYTES(x, c.slice));
    hier_carve_two(&next, pair ? HIER_BYTES(x, c.slice) : 0, r.other);
    hier_carve_two(&next, parts_bytes, r.parts);
    tail = hier_carve(&next, HIER_BYTES(x, n - c.body));
    hier_pipeline_reduce_scatter(x, &c, in, slot, finish_chunk, &r);
    if (n > c.body) {
        /* To the root's local rank in every domain, then between those to the root. */
        void *to = is_root ? HIER_AT(x, out, c.body) : tail;
        hier_intra_reduce(x, HIER_AT(x, in, c.body), to, n - c.body, lr);
        if (h->local_rank == lr) hier_inter_reduce(x, is_root ? MPI_IN_PLACE : to, to, n - c.body, rd);
    }
}

/* What the chunks of a call through the leaders share. */
typedef struct {
    hier_chunks c;
    char *sum;               /* the domain's sum, at its first rank */
    int rd, root_domain;
} leader_chunks;

/* Chunk k reduced to the domain's first rank (queued on the engine). */
static void reduce_chunk(hier_run *x, size_t k, void *ctx)
{
    const leader_chunks *l = ctx;
    size_t at = k * l->c.chunk;
    hier_intra_reduce(x, HIER_AT(x, input(x), at), HIER_AT(x, l->sum, at), hier_chunk_elements(&l->c, k), 0);
}

/* Chunk k reduced between the first ranks to the root's domain, and passed to the root there. */
static void reduce_between(hier_run *x, size_t k, void *ctx)
{
    const leader_chunks *l = ctx;
    const mcoll_hier_args *a = x->a;
    mcoll_hier *h = x->h;
    size_t at = k * l->c.chunk, q = hier_chunk_elements(&l->c, k);
    char *sum = HIER_AT(x, l->sum, at);
    if (h->local_rank == 0) hier_inter_reduce(x, l->root_domain ? MPI_IN_PLACE : sum, sum, q, l->rd);
    if (!l->root_domain) return;
    if (h->local_of[a->root] != 0) hier_intra_bcast(x, sum, q, 0);
    if (h->rank == a->root) hier_copy(x, HIER_AT(x, a->recvbuf, at), sum, HIER_BYTES(x, q));
}

/* Pipelined in chunks (hier_pipeline): chunk k+1 is reduced inside the domain while chunk k
 * crosses the MPI. */
static void through_leaders(hier_run *x)
{
    const mcoll_hier_args *a = x->a;
    mcoll_hier *h = x->h;
    leader_chunks l = {hier_pieces(x, a->count, 1), hier_scratch(x, HIER_BYTES(x, a->count)), h->domain_of[a->root],
                       h->my_domain == h->domain_of[a->root]};
    if (!l.sum) return;
    hier_pipeline(x, l.c.chunks, reduce_chunk, reduce_between, &l);
}

mcoll_result mcoll_hier_reduce(mcoll_hier *h, const mcoll_hier_args *a)
{
    return hier_execute(h, a, "reduce", sliced, through_leaders);
}
