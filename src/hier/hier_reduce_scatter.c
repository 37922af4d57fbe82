/* Reduce-scatter with equal blocks across domains (block i to rank i).
 *
 * Equal domains: the blocks are first ordered by the local rank of their destination (on the
 * GPU), reduce-scattered inside the domain, so each rank holds its domain's sum of the blocks of
 * its local rank in every domain, and reduce-scattered between domains (MPI, 1/d of the blocks;
 * two domains: pair.c, more: exchange.c).
 * The blocks are cut into pieces (hier_pieces) and pipelined (hier_pipeline): piece k+1 is
 * ordered and reduce-scattered on the engine while piece k crosses the MPI.
 *
 * Domains of unequal size: the vector, ordered by domain, is reduced to each domain's first rank,
 * which reduce-scatters it between domains (MPI), then broadcasts its domain's blocks inside the
 * domain; each rank keeps its own. In pieces of each block, pipelined the same way. */
#include <stdlib.h>
#include "hier_internal.h"

static const void *input(const hier_run *x)
{
    return x->a->sendbuf == MPI_IN_PLACE ? x->a->recvbuf : x->a->sendbuf;
}

/* What the pieces of one call share. */
typedef struct {
    hier_chunks c;
    char *ordered, *bundle[2];
    char *other[2];          /* two domains: the other domain's piece (pair.c) */
    char *parts[2];          /* more: every domain's copy of this domain's piece (exchange.c) */
} rs_pieces;

/* Piece k of every block, ordered by the local rank of its destination, reduce-scattered inside
 * the domain: this rank's domain sum of piece k of its local rank's block in every domain. The
 * ordering is queued after the previous piece's reduce-scatter, which has read it. */
static void queue_piece(hier_run *x, size_t k, void *ctx)
{
    rs_pieces *p = ctx;
    mcoll_hier *h = x->h;
    size_t q = hier_chunk_elements(&p->c, k);
    hier_permute(x, p->ordered, HIER_BYTES(x, q), h->local_major, HIER_AT(x, input(x), k * p->c.chunk),
                         HIER_BYTES(x, x->a->count), NULL, h->size, HIER_BYTES(x, q));
    hier_intra_reduce_scatter(x, p->ordered, p->bundle[k % 2], q * (size_t)h->domains);
    hier_stage_ahead(x, k, p->bundle[k % 2], HIER_BYTES(x, q * (size_t)h->domains));
}

static void finish_piece(hier_run *x, size_t k, void *ctx)
{
    rs_pieces *p = ctx;
    size_t q = hier_chunk_elements(&p->c, k);
    char *out = HIER_AT(x, x->a->recvbuf, k * p->c.chunk), *bundle = p->bundle[k % 2];
    if (p->parts[0]) {
        hier_copy(x, out, hier_exchange_reduce_scatter(x, bundle, q, p->parts[k % 2]), HIER_BYTES(x, q));
        return;
    }
    if (p->other[0]) {
        /* Two domains: this rank's piece for the other domain goes there, the other's for this
         * one comes here and is reduced with it on the GPU. */
        int me = x->h->my_domain;
        hier_pair_step s = {bundle, HIER_BYTES(x, 2 * q), HIER_AT(x, bundle, (size_t)(1 - me) * q),
                            HIER_AT(x, bundle, (size_t)me * q), p->other[k % 2], q};
        hier_copy(x, out, hier_pair(x, &s), HIER_BYTES(x, q));
        return;
    }
    hier_inter_reduce_scatter_block(x, bundle, out, q);
}

static void local_major(hier_run *x)
{
    mcoll_hier *h = x->h;
    rs_pieces p;
    size_t bundle_bytes;
    char *scratch, *next;
    int pair = hier_pair_reduces(x);
    size_t parts_bytes;
    p.c = hier_pieces(x, x->a->count, (size_t)h->domains);
    bundle_bytes = HIER_BYTES(x, p.c.chunk * (size_t)h->domains);
    parts_bytes = hier_exchange_reduces(x, bundle_bytes) ? hier_exchange_scratch(x, 0, p.c.chunk) : 0;
    scratch = hier_scratch(x, HIER_BYTES(x, p.c.chunk * (size_t)h->size) + 2 * bundle_bytes +
                                  (pair ? 2 * HIER_BYTES(x, p.c.chunk) : 0) + 2 * parts_bytes + 1792);
    if (!scratch) return;
    next = scratch;
    p.ordered = hier_carve(&next, HIER_BYTES(x, p.c.chunk * (size_t)h->size));
    p.bundle[0] = hier_carve(&next, bundle_bytes);
    p.bundle[1] = hier_carve(&next, bundle_bytes);
    hier_carve_two(&next, pair ? HIER_BYTES(x, p.c.chunk) : 0, p.other);
    hier_carve_two(&next, parts_bytes, p.parts);
    hier_pipeline(x, p.c.chunks, queue_piece, finish_piece, &p);
}

/* What the pieces of a call through the leaders share. */
typedef struct {
    hier_chunks c;
    char *ordered, *sum[2], *mine[2];
    int *counts;
} leader_pieces;

/* Piece k of every block, in domain order, reduced to the domain's first rank (queued on the
 * engine; the ordering after the previous piece's reduction, which has read it). */
static void reduce_piece(hier_run *x, size_t k, void *ctx)
{
    leader_pieces *l = ctx;
    mcoll_hier *h = x->h;
    size_t q = hier_chunk_elements(&l->c, k);
    hier_permute(x, l->ordered, HIER_BYTES(x, q), NULL, HIER_AT(x, input(x), k * l->c.chunk),
                         HIER_BYTES(x, x->a->count), h->rank_at, h->size, HIER_BYTES(x, q));
    hier_intra_reduce(x, l->ordered, l->sum[k % 2], q * (size_t)h->size, 0);
}

/* Piece k reduce-scattered by domain between the first ranks, broadcast inside the domain, and
 * this rank's part of it put in place (both queued). */
static void scatter_piece(hier_run *x, size_t k, void *ctx)
{
    leader_pieces *l = ctx;
    mcoll_hier *h = x->h;
    size_t q = hier_chunk_elements(&l->c, k);
    int d;
    for (d = 0; d < h->domains; d++) l->counts[d] = (int)((size_t)h->domain_size[d] * q);
    if (h->local_rank == 0) hier_inter_reduce_scatter(x, l->sum[k % 2], l->mine[k % 2], l->counts);
    hier_intra_bcast(x, l->mine[k % 2], q * (size_t)h->local_size, 0);
    hier_copy(x, HIER_AT(x, x->a->recvbuf, k * l->c.chunk), HIER_AT(x, l->mine[k % 2], (size_t)h->local_rank * q),
              HIER_BYTES(x, q));
}

/* Cut into pieces of each block (about MCOLL_STAGE_CHUNK bytes between the first ranks per
 * piece) and pipelined (hier_pipeline): piece k+1 is reduced inside the domains while piece k
 * crosses the MPI. */
static void through_leaders(hier_run *x)
{
    mcoll_hier *h = x->h;
    leader_pieces l;
    size_t total_bytes, mine_bytes;
    char *scratch, *next;
    l.c = hier_pieces(x, x->a->count, (size_t)h->size);
    total_bytes = HIER_BYTES(x, l.c.chunk * (size_t)h->size);
    mine_bytes = HIER_BYTES(x, l.c.chunk * (size_t)h->local_size);
    l.counts = malloc((size_t)h->domains * sizeof(int));
    scratch = l.counts ? hier_scratch(x, 3 * total_bytes + 2 * mine_bytes + 1280) : NULL;
    if (!scratch) {
        free(l.counts);
        return;
    }
    next = scratch;
    l.ordered = hier_carve(&next, total_bytes);
    l.sum[0] = hier_carve(&next, total_bytes);
    l.sum[1] = hier_carve(&next, total_bytes);
    l.mine[0] = hier_carve(&next, mine_bytes);
    l.mine[1] = hier_carve(&next, mine_bytes);
    hier_pipeline(x, l.c.chunks, reduce_piece, scatter_piece, &l);
    free(l.counts);
}

mcoll_result mcoll_hier_reduce_scatter(mcoll_hier *h, const mcoll_hier_args *a)
{
    return hier_execute(h, a, "reduce_scatter", local_major, through_leaders);
}
