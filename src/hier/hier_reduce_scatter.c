/* Reduce-scatter with equal blocks across domains (block i to rank i).
 *
 * Equal domains: the blocks are first ordered by the local rank of their destination (on the
 * GPU), reduce-scattered inside the domain, so each rank holds its domain's sum of the blocks of
 * its local rank in every domain, and reduce-scattered between domains (MPI, 1/d of the blocks).
 * The blocks are cut into pieces (hier_pieces) and pipelined (hier_pipeline): piece k+1 is
 * ordered and reduce-scattered on the engine while piece k crosses the MPI.
 *
 * Domains of unequal size: reduce the whole vector to each domain's first rank, which orders it
 * by domain and reduce-scatters it between domains (MPI), then broadcasts its domain's blocks
 * inside the domain; each rank keeps its own. */
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
} rs_pieces;

/* Piece k of every block, ordered by the local rank of its destination, reduce-scattered inside
 * the domain: this rank's domain sum of piece k of its local rank's block in every domain. The
 * ordering is queued after the previous piece's reduce-scatter, which has read it. */
static void queue_piece(hier_run *x, size_t k, void *ctx)
{
    rs_pieces *p = ctx;
    mcoll_hier *h = x->h;
    size_t q = hier_chunk_elements(&p->c, k);
    hier_permute_strided(x, p->ordered, HIER_BYTES(x, q), h->local_major, HIER_AT(x, input(x), k * p->c.chunk),
                         HIER_BYTES(x, x->a->count), NULL, h->size, HIER_BYTES(x, q));
    hier_intra_reduce_scatter(x, p->ordered, p->bundle[k % 2], q * (size_t)h->domains);
}

static void finish_piece(hier_run *x, size_t k, void *ctx)
{
    rs_pieces *p = ctx;
    hier_inter_reduce_scatter_block(x, p->bundle[k % 2], HIER_AT(x, x->a->recvbuf, k * p->c.chunk),
                                    hier_chunk_elements(&p->c, k));
}

static void local_major(hier_run *x)
{
    mcoll_hier *h = x->h;
    rs_pieces p;
    size_t bundle_bytes;
    char *scratch, *next;
    p.c = hier_pieces(x, x->a->count, (size_t)h->domains);
    bundle_bytes = HIER_BYTES(x, p.c.chunk * (size_t)h->domains);
    scratch = hier_scratch(x, HIER_BYTES(x, p.c.chunk * (size_t)h->size) + 2 * bundle_bytes + 768);
    if (!scratch) return;
    next = scratch;
    p.ordered = hier_carve(&next, HIER_BYTES(x, p.c.chunk * (size_t)h->size));
    p.bundle[0] = hier_carve(&next, bundle_bytes);
    p.bundle[1] = hier_carve(&next, bundle_bytes);
    hier_pipeline(x, p.c.chunks, queue_piece, finish_piece, &p);
}

static void through_leaders(hier_run *x)
{
    mcoll_hier *h = x->h;
    size_t n = x->a->count, total = n * (size_t)h->size;
    int *counts = malloc((size_t)h->domains * sizeof(int)), d;
    char *scratch = hier_scratch(x, HIER_BYTES(x, 2 * total + n * (size_t)h->local_size) + 768), *next = scratch;
    char *sum, *ordered, *mine;
    if (!scratch || !counts) {
        free(counts);
        return;
    }
    sum = hier_carve(&next, HIER_BYTES(x, total));
    ordered = hier_carve(&next, HIER_BYTES(x, total));
    mine = hier_carve(&next, HIER_BYTES(x, n * (size_t)h->local_size));
    for (d = 0; d < h->domains; d++) counts[d] = (int)((size_t)h->domain_size[d] * n);
    hier_intra_reduce(x, input(x), sum, total, 0);
    if (h->local_rank == 0) {
        hier_permute(x, ordered, NULL, sum, h->rank_at, h->size, HIER_BYTES(x, n));
        hier_inter_reduce_scatter(x, ordered, mine, counts);
    }
    hier_intra_bcast(x, mine, n * (size_t)h->local_size, 0);
    hier_copy(x, x->a->recvbuf, HIER_AT(x, mine, (size_t)h->local_rank * n), HIER_BYTES(x, n));
    free(counts);
}

mcoll_result mcoll_hier_reduce_scatter(mcoll_hier *h, const mcoll_hier_args *a)
{
    return hier_execute(h, a, "reduce_scatter", local_major, through_leaders);
}
