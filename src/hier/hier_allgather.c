/* Allgather across domains (bytes per rank). The result is in rank order, and domains need not
 * be contiguous ranges of ranks, so the blocks are put in place at the end on the GPU.
 *
 * Equal domains: every rank gathers the blocks of its local rank from every domain (MPI, 1/d of
 * the blocks), the domain all-gathers those bundles, and the blocks are moved to rank order.
 *
 * Domains of unequal size: each domain gathers to its first rank, those all-gather the domains'
 * blocks (MPI), broadcast them inside their domain, and the blocks are moved to rank order. */
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
    size_t n = x->a->count;
    char *scratch = hier_scratch(x, HIER_BYTES(x, n * (size_t)(h->domains + h->size)) + 512), *next = scratch;
    char *bundle, *all;
    if (!scratch) return;
    bundle = hier_carve(&next, HIER_BYTES(x, n * (size_t)h->domains));
    all = hier_carve(&next, HIER_BYTES(x, n * (size_t)h->size));
    hier_inter_allgather(x, my_block(x), bundle, n);
    hier_intra_allgather(x, bundle, all, n * (size_t)h->domains);
    hier_permute(x, x->a->recvbuf, NULL, all, h->local_major, h->size, HIER_BYTES(x, n));
}

static void through_leaders(hier_run *x)
{
    mcoll_hier *h = x->h;
    size_t n = x->a->count;
    int *counts = malloc(2 * (size_t)h->domains * sizeof(int)), *displs = counts + h->domains, d;
    char *scratch = hier_scratch(x, HIER_BYTES(x, n * (size_t)(h->local_size + h->size)) + 512), *next = scratch;
    char *mine, *all;
    if (!scratch || !counts) {
        free(counts);
        return;
    }
    mine = hier_carve(&next, HIER_BYTES(x, n * (size_t)h->local_size));
    all = hier_carve(&next, HIER_BYTES(x, n * (size_t)h->size));
    for (d = 0; d < h->domains; d++) {
        counts[d] = (int)((size_t)h->domain_size[d] * n);
        displs[d] = (int)((size_t)h->domain_first[d] * n);
    }
    hier_intra_gather(x, my_block(x), mine, n, 0);
    if (h->local_rank == 0) hier_inter_allgatherv(x, mine, n * (size_t)h->local_size, all, counts, displs);
    hier_intra_bcast(x, all, n * (size_t)h->size, 0);
    hier_permute(x, x->a->recvbuf, h->rank_at, all, NULL, h->size, HIER_BYTES(x, n));
    free(counts);
}

mcoll_result mcoll_hier_allgather(mcoll_hier *h, const mcoll_hier_args *a)
{
    return hier_execute(h, a, "allgather", local_major, through_leaders);
}
