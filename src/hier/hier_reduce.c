/* Reduce across domains to any root.
 *
 * Equal domains: the vector is cut into chunks as allreduce's is; per chunk, reduce-scatter
 * inside every domain, reduce each slice between domains to the root's domain, gather the
 * slices to the root inside its domain. The chunks are pipelined as allreduce's are: chunk k+1
 * is reduce-scattered on the engine while chunk k crosses the MPI, in two scratch slots that
 * alternate. The last count % d elements are reduced inside every domain to the rank with the
 * root's local rank, then between those to the root.
 *
 * Domains of unequal size: reduce to the first rank of each domain, reduce between those to the
 * first rank of the root's domain, which broadcasts inside its domain when it is not the root. */
#include "hier_internal.h"

static const void *input(const hier_run *x)
{
    return x->a->sendbuf == MPI_IN_PLACE ? x->a->recvbuf : x->a->sendbuf;
}

/* On the engine's one stream, gather(k - 1) comes before the reduce-scatter of chunk k + 1,
 * which reuses its slot:
 *     RS(0) | RS(1) mark1, wait0, MPI(0), G(0) | RS(2) mark0, wait1, MPI(1), G(1) | ... */
static void sliced(hier_run *x)
{
    const mcoll_hier_args *a = x->a;
    mcoll_hier *h = x->h;
    int rd = h->domain_of[a->root], lr = h->local_of[a->root], root_domain = h->my_domain == rd;
    int is_root = h->rank == a->root;
    size_t d = (size_t)h->local_size, n = a->count, k;
    hier_chunks c = hier_chunking(x, n);
    const char *in = input(x);
    char *out = a->recvbuf, *scratch, *next, *slot[2], *tail;

    scratch = hier_scratch(x, 2 * HIER_BYTES(x, c.slice) + HIER_BYTES(x, n - c.body) + 768);
    if (!scratch) return;
    next = scratch;
    slot[0] = hier_carve(&next, HIER_BYTES(x, c.slice));
    slot[1] = hier_carve(&next, HIER_BYTES(x, c.slice));
    tail = hier_carve(&next, HIER_BYTES(x, n - c.body));
    x->queued = hier_can_queue(x);
    for (k = 0; k <= c.chunks; k++) {
        if (k < c.chunks) {
            hier_intra_reduce_scatter(x, HIER_AT(x, in, k * c.chunk), slot[k % 2], hier_chunk_elements(&c, k) / d);
            hier_intra_mark(x, (int)(k % 2));
        }
        if (k > 0) {
            size_t q = hier_chunk_elements(&c, k - 1) / d;
            char *s = slot[(k - 1) % 2];
            hier_intra_wait(x, (int)((k - 1) % 2));
            hier_inter_reduce(x, root_domain ? MPI_IN_PLACE : s, s, q, rd);
            if (root_domain) hier_intra_gather(x, s, HIER_AT(x, out, (k - 1) * c.chunk), q, lr);
        }
    }
    hier_intra_finish(x);
    x->queued = 0;
    if (n > c.body) {
        /* To the root's local rank in every domain, then between those to the root. */
        void *to = is_root ? HIER_AT(x, out, c.body) : tail;
        hier_intra_reduce(x, HIER_AT(x, in, c.body), to, n - c.body, lr);
        if (h->local_rank == lr) hier_inter_reduce(x, is_root ? MPI_IN_PLACE : to, to, n - c.body, rd);
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
