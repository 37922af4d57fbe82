/* Broadcast across domains from any root (bytes).
 *
 * Equal domains of d ranks: the root's domain broadcasts inside itself; then each local rank
 * broadcasts its 1/d slice between domains (all slices at once, each from the root's domain),
 * and the other domains all-gather the slices inside themselves. The last bytes % d bytes go
 * between domains whole, from every local rank (a few bytes).
 *
 * Domains of unequal size: the root's domain broadcasts inside itself, the first ranks of the
 * domains between them, and the other domains inside themselves. */
#include "hier_internal.h"

static void sliced(hier_run *x)
{
    const mcoll_hier_args *a = x->a;
    mcoll_hier *h = x->h;
    int rd = h->domain_of[a->root];
    size_t d = (size_t)h->local_size, n = a->count, q = n / d;
    char *buf = a->recvbuf;
    if (h->my_domain == rd) hier_intra_bcast(x, buf, n, h->local_of[a->root]);
    if (q) hier_inter_bcast(x, HIER_AT(x, buf, (size_t)h->local_rank * q), q, rd);
    if (n > q * d) hier_inter_bcast(x, HIER_AT(x, buf, q * d), n - q * d, rd);
    if (h->my_domain != rd && q) hier_intra_allgather(x, MPI_IN_PLACE, buf, q);
}

static void through_leaders(hier_run *x)
{
    const mcoll_hier_args *a = x->a;
    mcoll_hier *h = x->h;
    int rd = h->domain_of[a->root];
    if (h->my_domain == rd) hier_intra_bcast(x, a->recvbuf, a->count, h->local_of[a->root]);
    if (h->local_rank == 0) hier_inter_bcast(x, a->recvbuf, a->count, rd);
    if (h->my_domain != rd) hier_intra_bcast(x, a->recvbuf, a->count, 0);
}

mcoll_result mcoll_hier_bcast(mcoll_hier *h, const mcoll_hier_args *a)
{
    return hier_execute(h, a, "bcast", sliced, through_leaders);
}
