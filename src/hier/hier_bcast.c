/* Broadcast across domains from any root (bytes).
 *
 * Equal domains of d ranks: the buffer is cut into chunks as allreduce's vector is. Per chunk,
 * the root's domain broadcasts it inside itself, each local rank broadcasts its 1/d slice of it
 * between domains (all slices at once, each from the root's domain), and the other domains
 * all-gather the slices inside themselves. The chunks are pipelined: in the root's domain the
 * broadcast of chunk k+1 is queued on the engine before chunk k crosses the MPI; in the other
 * domains the all-gather of chunk k is queued before chunk k+1 crosses it. The last bytes % d
 * bytes go between domains whole, from every local rank (a few bytes).
 *
 * Domains of unequal size: the root's domain broadcasts inside itself, the first ranks of the
 * domains between them, and the other domains inside themselves; in chunks, pipelined. */
#include "hier_internal.h"

/* The root's domain. Two marks alternate: chunk k's broadcast is waited for before its slices
 * cross the MPI, while chunk k+1's is under way:
 *     B(0) mark0 | B(1) mark1, wait0, MPI(0) | B(2) mark0, wait1, MPI(1) | ... */
static void from_root_domain(hier_run *x, const hier_chunks *c)
{
    mcoll_hier *h = x->h;
    int rd = h->domain_of[x->a->root], lr = h->local_of[x->a->root];
    size_t d = (size_t)h->local_size, k;
    char *buf = x->a->recvbuf;
    for (k = 0; k <= c->chunks; k++) {
        if (k < c->chunks) {
            hier_intra_bcast(x, HIER_AT(x, buf, k * c->chunk), hier_chunk_elements(c, k), lr);
            hier_intra_mark(x, (int)(k % 2));
        }
        if (k > 0) {
            size_t q = hier_chunk_elements(c, k - 1) / d;
            hier_intra_wait(x, (int)((k - 1) % 2));
            hier_inter_bcast(x, HIER_AT(x, buf, (k - 1) * c->chunk + (size_t)h->local_rank * q), q, rd);
        }
    }
}

/* The other domains: chunk k's slices arrive through the MPI, then its all-gather is queued
 * while chunk k+1 arrives (another part of the buffer). */
static void to_other_domain(hier_run *x, const hier_chunks *c)
{
    mcoll_hier *h = x->h;
    int rd = h->domain_of[x->a->root];
    size_t d = (size_t)h->local_size, k;
    char *buf = x->a->recvbuf;
    for (k = 0; k < c->chunks; k++) {
        size_t q = hier_chunk_elements(c, k) / d;
        hier_inter_bcast(x, HIER_AT(x, buf, k * c->chunk + (size_t)h->local_rank * q), q, rd);
        hier_intra_allgather(x, MPI_IN_PLACE, HIER_AT(x, buf, k * c->chunk), q);
    }
}

static void sliced(hier_run *x)
{
    const mcoll_hier_args *a = x->a;
    mcoll_hier *h = x->h;
    int rd = h->domain_of[a->root], root_domain = h->my_domain == rd;
    size_t n = a->count;
    hier_chunks c = hier_chunking(x, n);
    char *buf = a->recvbuf;
    x->queued = hier_can_queue(x);
    if (root_domain) from_root_domain(x, &c);
    else to_other_domain(x, &c);
    hier_intra_finish(x);
    x->queued = 0;
    if (n > c.body) {
        if (root_domain) hier_intra_bcast(x, HIER_AT(x, buf, c.body), n - c.body, h->local_of[a->root]);
        hier_inter_bcast(x, HIER_AT(x, buf, c.body), n - c.body, rd);
    }
}

/* What the chunks of a call through the leaders share. */
typedef struct {
    hier_chunks c;
    int rd;
} leader_chunks;

static void bcast_in_root_domain(hier_run *x, size_t k, void *ctx)
{
    const leader_chunks *l = ctx;
    hier_intra_bcast(x, HIER_AT(x, x->a->recvbuf, k * l->c.chunk), hier_chunk_elements(&l->c, k),
                     x->h->local_of[x->a->root]);
}

static void bcast_from_root_domain(hier_run *x, size_t k, void *ctx)
{
    const leader_chunks *l = ctx;
    if (x->h->local_rank == 0)
        hier_inter_bcast(x, HIER_AT(x, x->a->recvbuf, k * l->c.chunk), hier_chunk_elements(&l->c, k), l->rd);
}

/* In chunks of MCOLL_STAGE_CHUNK bytes. The root's domain: chunk k+1 is broadcast inside it
 * while its first rank sends chunk k to the others' (hier_pipeline). The other domains: chunk k
 * arrives at the first rank, and its broadcast inside the domain is queued while chunk k+1
 * arrives. */
static void through_leaders(hier_run *x)
{
    mcoll_hier *h = x->h;
    leader_chunks l = {hier_pieces(x, x->a->count, 1), h->domain_of[x->a->root]};
    size_t k;
    if (h->my_domain == l.rd) {
        hier_pipeline(x, l.c.chunks, bcast_in_root_domain, bcast_from_root_domain, &l);
        return;
    }
    x->queued = hier_can_queue(x);
    for (k = 0; k < l.c.chunks; k++) {
        bcast_from_root_domain(x, k, &l);
        hier_intra_bcast(x, HIER_AT(x, x->a->recvbuf, k * l.c.chunk), hier_chunk_elements(&l.c, k), 0);
    }
    hier_intra_finish(x);
    x->queued = 0;
}

mcoll_result mcoll_hier_bcast(mcoll_hier *h, const mcoll_hier_args *a)
{
    return hier_execute(h, a, "bcast", sliced, through_leaders);
}
