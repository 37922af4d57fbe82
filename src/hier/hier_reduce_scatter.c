/* Reduce-scatter with equal blocks across domains (block i to rank i).
 *
 * Equal domains: the blocks are first ordered by the local rank of their destination (on the
 * GPU), reduce-scattered inside the domain, so each rank holds its domain's sum of the blocks of
 * its local rank in every domain, and reduce-scattered between domains (MPI, 1/d of the blocks).
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

static void local_major(hier_run *x)
{
    mcoll_hier *h = x->h;
    size_t n = x->a->count;
    char *scratch = hier_scratch(x, HIER_BYTES(x, n * (size_t)(h->size + h->domains)) + 512), *next = scratch;
    char *ordered, *bundle;
    if (!scratch) return;
    ordered = hier_carve(&next, HIER_BYTES(x, n * (size_t)h->size));
    bundle = hier_carve(&next, HIER_BYTES(x, n * (size_t)h->domains));
    hier_permute(x, ordered, h->local_major, input(x), NULL, h->size, HIER_BYTES(x, n));
    hier_intra_reduce_scatter(x, ordered, bundle, n * (size_t)h->domains);
    hier_inter_reduce_scatter_block(x, bundle, x->a->recvbuf, n);
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
