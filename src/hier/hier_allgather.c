/* Allgather across domains (bytes per rank). The result is in rank order, and domains need not
 * be contiguous ranges of ranks, so the blocks are put in place at the end on the GPU.
 *
 * Equal domains: every rank gathers the blocks of its local rank from every domain (MPI, 1/d of
 * the blocks), the domain all-gathers those bundles, and the blocks are moved to rank order. The
 * blocks are cut into pieces (hier_pieces) and pipelined: piece k's all-gather and
 * reordering are queued on the engine while piece k+1 crosses the MPI, into the other of two
 * bundle slots; piece k+2 waits for piece k's steps before it reuses that slot:
 *     MPI(0) AG(0) P(0) mark0 | MPI(1) AG(1) P(1) mark1 | wait0, MPI(2) AG(2) P(2) mark0 | ...
 *
 * Domains of unequal size: each domain gathers to its first rank, those all-gather the domains'
 * blocks (MPI), broadcast them inside their domain, and the blocks are moved to rank order; in
 * pieces of each block, pipelined the same way. */
#include <stdlib.h>
#include "hier_internal.h"

static const void *my_block(const hier_run *x)
{
    const mcoll_hier_args *a = x->a;
    if (a->sendbuf != MPI_IN_PLACE) return a->sendbuf;
    return HIER_AT(x, a->recvbuf, (size_t)x->h->rank * a->count);
}

static void local_major(hier_run *x)
{
    mcoll_hier *h = x->h;
    size_t n = x->a->count, k, q;
    hier_chunks c = hier_pieces(x, n, (size_t)h->domains);
    size_t bundle_bytes = HIER_BYTES(x, c.chunk * (size_t)h->domains);
    char *scratch = hier_scratch(x, 2 * bundle_bytes + HIER_BYTES(x, c.chunk * (size_t)h->size) + 768), *next = scratch;
    char *bundle[2], *all;
    if (!scratch) return;
    bundle[0] = hier_carve(&next, bundle_bytes);
    bundle[1] = hier_carve(&next, bundle_bytes);
    all = hier_carve(&next, HIER_BYTES(x, c.chunk * (size_t)h->size));
    x->queued = hier_can_queue(x);
    hier_slots_begin(x);
    for (k = 0; k < c.chunks; k++) {
        q = hier_chunk_elements(&c, k);
        if (k >= 2) hier_intra_wait(x, (int)(k % 2));
        hier_slots_chunk(x, k);
        hier_inter_allgather(x, HIER_AT(x, my_block(x), k * c.chunk), bundle[k % 2], q);
        hier_intra_allgather(x, bundle[k % 2], all, q * (size_t)h->domains);
        hier_permute(x, HIER_AT(x, x->a->recvbuf, k * c.chunk), HIER_BYTES(x, n), NULL, all, HIER_BYTES(x, q),
                             h->local_major, h->size, HIER_BYTES(x, q));
        hier_intra_mark(x, (int)(k % 2));
    }
    hier_intra_finish(x);
    hier_slots_end(x);
    x->queued = 0;
}

/* What the pieces of a call through the leaders share: two slots of the domain's pieces (at its
 * first rank) and two of everyone's, each piece's counts and displacements between domains. */
typedef struct {
    hier_chunks c;
    char *mine[2], *all[2];
    int *counts, *displs;
} leader_pieces;

/* Piece k of every block of the domain gathered to its first rank (queued on the engine). */
static void gather_piece(hier_run *x, size_t k, void *ctx)
{
    leader_pieces *l = ctx;
    hier_intra_gather(x, HIER_AT(x, my_block(x), k * l->c.chunk), l->mine[k % 2], hier_chunk_elements(&l->c, k), 0);
}

/* Piece k all-gathered between the first ranks, broadcast inside the domain (queued) and moved
 * to rank order (queued). */
static void share_piece(hier_run *x, size_t k, void *ctx)
{
    leader_pieces *l = ctx;
    mcoll_hier *h = x->h;
    size_t q = hier_chunk_elements(&l->c, k);
    int d;
    for (d = 0; d < h->domains; d++) {
        l->counts[d] = (int)((size_t)h->domain_size[d] * q);
        l->displs[d] = (int)((size_t)h->domain_first[d] * q);
    }
    if (h->local_rank == 0)
        hier_inter_allgatherv(x, l->mine[k % 2], q * (size_t)h->local_size, l->all[k % 2], l->counts, l->displs);
    hier_intra_bcast(x, l->all[k % 2], q * (size_t)h->size, 0);
    hier_permute(x, HIER_AT(x, x->a->recvbuf, k * l->c.chunk), HIER_BYTES(x, x->a->count), h->rank_at,
                         l->all[k % 2], HIER_BYTES(x, q), NULL, h->size, HIER_BYTES(x, q));
}

/* Cut into pieces of each block (about MCOLL_STAGE_CHUNK bytes between the first ranks per
 * piece) and pipelined (hier_pipeline): piece k+1 is gathered inside the domains while piece k
 * crosses the MPI. */
static void through_leaders(hier_run *x)
{
    mcoll_hier *h = x->h;
    leader_pieces l;
    size_t mine_bytes, all_bytes;
    char *scratch, *next;
    int *arrays = malloc(2 * (size_t)h->domains * sizeof(int));
    l.c = hier_pieces(x, x->a->count, (size_t)h->size);
    mine_bytes = HIER_BYTES(x, l.c.chunk * (size_t)h->local_size);
    all_bytes = HIER_BYTES(x, l.c.chunk * (size_t)h->size);
    scratch = arrays ? hier_scratch(x, 2 * (mine_bytes + all_bytes) + 1024) : NULL;
    if (!scratch) {
        free(arrays);
        return;
    }
    next = scratch;
    l.mine[0] = hier_carve(&next, mine_bytes);
    l.mine[1] = hier_carve(&next, mine_bytes);
    l.all[0] = hier_carve(&next, all_bytes);
    l.all[1] = hier_carve(&next, all_bytes);
    l.counts = arrays;
    l.displs = arrays + h->domains;
    hier_pipeline(x, l.c.chunks, gather_piece, share_piece, &l);
    free(arrays);
}

mcoll_result mcoll_hier_allgather(mcoll_hier *h, const mcoll_hier_args *a)
{
    return hier_execute(h, a, "allgather", local_major, through_leaders);
}
