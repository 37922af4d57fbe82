/* Allreduce across domains.
 *
 * Equal domains of d ranks: the vector is cut into chunks (MCOLL_STAGE_CHUNK bytes per rank's
 * slice); each chunk is reduce-scattered inside the domain (each rank gets the domain's sum of
 * one slice), each slice is allreduced between domains by the ranks holding it (one MPI
 * allreduce per local rank, all at once, each carrying 1/d of the bytes), and the slices are
 * all-gathered inside the domain. The last count % d elements are allreduced inside the domain
 * and then between domains whole. With two domains the slices' allreduce between them is a swap
 * through the MPI and a reduction on the GPU (pair.c); with more, an exchange of parts through
 * the MPI, a reduction on the GPU and an all-gather (exchange.c).
 *
 * Domains of unequal size: reduce to the first rank of each domain, allreduce between those,
 * broadcast inside each domain; in chunks of MCOLL_STAGE_CHUNK bytes, pipelined as above. */
#include "hier_internal.h"

/* What the chunks of one call share: and two slots of scratch for the other domain's slice (two
 * domains, pair.c) or for the domains' parts (more, exchange.c). */
typedef struct {
    hier_chunks c;
    char *other[2];
    char *parts[2];
} sliced_chunks;

/* Chunk k's slice, reduce-scattered inside the domain, allreduced between domains and
 * all-gathered inside the domain into its place in the output. */
static void finish_chunk(hier_run *x, char *slot, size_t k, size_t q, void *ctx)
{
    const sliced_chunks *s = ctx;
    char *sum = slot;
    if (s->parts[0]) {
        hier_exchange_allreduce(x, slot, q, s->parts[k % 2]);
    } else if (s->other[0]) {
        hier_pair_step p = {slot, HIER_BYTES(x, q), slot, slot, s->other[k % 2], q};
        sum = hier_pair(x, &p);
    } else {
        hier_inter_allreduce(x, MPI_IN_PLACE, slot, q);
    }
    hier_intra_allgather(x, sum, HIER_AT(x, x->a->recvbuf, k * s->c.chunk), q);
}

/* The chunks' domain steps are queued on the engine one chunk ahead, so that chunk k+1 is
 * reduce-scattered on the GPU while chunk k crosses the MPI (hier_pipeline_reduce_scatter). */
static void sliced(hier_run *x)
{
    const mcoll_hier_args *a = x->a;
    size_t n = a->count, slice_bytes;
    sliced_chunks s = {hier_chunking(x, n), {NULL, NULL}, {NULL, NULL}};
    const char *in = a->sendbuf == MPI_IN_PLACE ? (const char *)a->recvbuf : (const char *)a->sendbuf;
    char *out = a->recvbuf, *slots = NULL, *slot[2];
    int pair = hier_pair_reduces(x);
    size_t parts_bytes = hier_exchange_reduces(x, HIER_BYTES(x, s.c.slice)) ? hier_exchange_scratch(x, s.c.slice, 0) : 0;

    slice_bytes = HIER_BYTES(x, s.c.slice);
    if (s.c.body) slots = hier_scratch(x, (pair ? 4 : 2) * (slice_bytes + 256) + 2 * (parts_bytes + 256));
    if (slots) {
        char *next = slots;
        slot[0] = hier_carve(&next, slice_bytes);
        slot[1] = hier_carve(&next, slice_bytes);
        hier_carve_two(&next, pair ? slice_bytes : 0, s.other);
        hier_carve_two(&next, parts_bytes, s.parts);
        hier_pipeline_reduce_scatter(x, &s.c, in, slot, finish_chunk, &s);
    }
    if (n > s.c.body) {
        hier_intra_allreduce(x, a->sendbuf == MPI_IN_PLACE ? MPI_IN_PLACE : HIER_AT(x, in, s.c.body),
                             HIER_AT(x, out, s.c.body), n - s.c.body);
        hier_inter_allreduce(x, MPI_IN_PLACE, HIER_AT(x, out, s.c.body), n - s.c.body);
    }
}

/* What the chunks of a call through the leaders share. */
typedef struct {
    hier_chunks c;
    const char *in;          /* MPI_IN_PLACE at a leader of an in-place call */
} leader_chunks;

/* Chunk k reduced to the domain's first rank (queued on the engine). */
static void reduce_chunk(hier_run *x, size_t k, void *ctx)
{
    const leader_chunks *l = ctx;
    size_t at = k * l->c.chunk;
    hier_intra_reduce(x, l->in == MPI_IN_PLACE ? MPI_IN_PLACE : HIER_AT(x, l->in, at), HIER_AT(x, x->a->recvbuf, at),
                      hier_chunk_elements(&l->c, k), 0);
}

/* Chunk k allreduced between the first ranks, then broadcast inside the domain. */
static void share_chunk(hier_run *x, size_t k, void *ctx)
{
    const leader_chunks *l = ctx;
    char *out = HIER_AT(x, x->a->recvbuf, k * l->c.chunk);
    size_t q = hier_chunk_elements(&l->c, k);
    if (x->h->local_rank == 0) hier_inter_allreduce(x, MPI_IN_PLACE, out, q);
    hier_intra_bcast(x, out, q, 0);
}

/* Pipelined in chunks (hier_pipeline): chunk k+1 is reduced inside the domain while chunk k
 * crosses the MPI. */
static void through_leaders(hier_run *x)
{
    const mcoll_hier_args *a = x->a;
    int leader = x->h->local_rank == 0;
    /* MPI_IN_PLACE is the root's alone in a reduce. */
    leader_chunks l = {hier_pieces(x, a->count, 1), a->sendbuf == MPI_IN_PLACE && !leader ? a->recvbuf : a->sendbuf};
    hier_pipeline(x, l.c.chunks, reduce_chunk, share_chunk, &l);
}

mcoll_result mcoll_hier_allreduce(mcoll_hier *h, const mcoll_hier_args *a)
{
    return hier_execute(h, a, "allreduce", sliced, through_leaders);
}
