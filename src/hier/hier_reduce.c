/* Reduce across domains to any root.
 *
 * Equal domains: per chunk, reduce-scatter inside every domain, reduce each slice between
 * domains to the root's domain, gather the slices to the root inside its domain. The last
 * count % d elements are reduced inside every domain to the rank with the root's local rank,
 * then between those to the root.
 *
 * Domains of unequal size: reduce to the first rank of each domain, reduce between those to the
 * first rank of the root's domain, which broadcasts inside its domain when it is not the root. */
#include "config.h"
#include "hier_internal.h"

static const void *input(const hier_run *x)
{
    return x->a->sendbuf == MPI_IN_PLACE ? x->a->recvbuf : x->a->sendbuf;
}

static void sliced(hier_run *x)
{
    const mcoll_hier_args *a = x->a;
    mcoll_hier *h = x->h;
    int rd = h->domain_of[a->root], lr = h->local_of[a->root], root_domain = h->my_domain == rd;
    int is_root = h->rank == a->root;
    size_t d = (size_t)h->local_size, n = a->count, body = n / d * d, off;
    size_t slice = mcoll_settings_get()->stage_chunk / a->esize, chunk;
    const char *in = input(x);
    char *out = a->recvbuf, *scratch = NULL, *next, *slot = NULL, *tail = NULL;

    if (slice == 0) slice = 1;
    if (slice > body / d) slice = body / d;
    chunk = slice * d;
    scratch = hier_scratch(x, HIER_BYTES(x, slice) + HIER_BYTES(x, n - body) + 512);
    if (!scratch) return;
    next = scratch;
    slot = hier_carve(&next, HIER_BYTES(x, slice));
    tail = hier_carve(&next, HIER_BYTES(x, n - body));
    for (off = 0; off < body; off += chunk) {
        size_t m = body - off < chunk ? body - off : chunk, q = m / d;
        hier_intra_reduce_scatter(x, HIER_AT(x, in, off), slot, q);
        hier_inter_reduce(x, root_domain ? MPI_IN_PLACE : slot, slot, q, rd);
        if (root_domain) hier_intra_gather(x, slot, HIER_AT(x, out, off), q, lr);
    }
    if (n > body) {
        /* To the root's local rank in every domain, then between those to the root. */
        void *to = is_root ? HIER_AT(x, out, body) : tail;
        hier_intra_reduce(x, HIER_AT(x, in, body), to, n - body, lr);
        if (h->local_rank == lr) hier_inter_reduce(x, is_root ? MPI_IN_PLACE : to, to, n - body, rd);
    }
}

static void through_leaders(hier_run *x)
{
    const mcoll_hier_args *a = x->a;
    mcoll_hier *h = x->h;
    int rd = h->domain_of[a->root], leader = h->local_rank == 0, root_domain = h->my_domain == rd;
    char *sum = hier_scratch(x, HIER_BYTES(x, a->count));
    if (!sum) return;
    hier_intra_reduce(x, input(x), sum, a->count, 0);
    if (leader) hier_inter_reduce(x, root_domain ? MPI_IN_PLACE : sum, sum, a->count, rd);
    if (!root_domain) return;
    if (h->local_of[a->root] != 0) hier_intra_bcast(x, sum, a->count, 0);
    if (h->rank == a->root) hier_copy(x, a->recvbuf, sum, HIER_BYTES(x, a->count));
}

mcoll_result mcoll_hier_reduce(mcoll_hier *h, const mcoll_hier_args *a)
{
    return hier_execute(h, a, "reduce", sliced, through_leaders);
}
