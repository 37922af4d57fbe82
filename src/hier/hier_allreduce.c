/* Allreduce across domains.
 *
 * Equal domains of d ranks: the vector is cut into chunks (MCOLL_STAGE_CHUNK bytes per rank's
 * slice); each chunk is reduce-scattered inside the domain (each rank gets the domain's sum of
 * one slice), each slice is allreduced between domains by the ranks holding it (one MPI
 * allreduce per local rank, all at once, each carrying 1/d of the bytes), and the slices are
 * all-gathered inside the domain. The last count % d elements are allreduced inside the domain
 * and then between domains whole.
 *
 * Domains of unequal size: reduce to the first rank of each domain, allreduce between those,
 * broadcast inside each domain. */
#include "config.h"
#include "hier_internal.h"

static void sliced(hier_run *x)
{
    const mcoll_hier_args *a = x->a;
    size_t d = (size_t)x->h->local_size, n = a->count, body = n / d * d, off;
    size_t slice = mcoll_settings_get()->stage_chunk / a->esize, chunk;
    const char *in = a->sendbuf == MPI_IN_PLACE ? (const char *)a->recvbuf : (const char *)a->sendbuf;
    char *out = a->recvbuf, *slot = NULL;

    if (slice == 0) slice = 1;
    if (slice > body / d) slice = body / d;
    chunk = slice * d;
    if (body) slot = hier_scratch(x, HIER_BYTES(x, slice));
    for (off = 0; off < body && slot; off += chunk) {
        size_t m = body - off < chunk ? body - off : chunk, q = m / d;
        hier_intra_reduce_scatter(x, HIER_AT(x, in, off), slot, q);
        hier_inter_allreduce(x, MPI_IN_PLACE, slot, q);
        hier_intra_allgather(x, slot, HIER_AT(x, out, off), q);
    }
    if (n > body) {
        hier_intra_allreduce(x, a->sendbuf == MPI_IN_PLACE ? MPI_IN_PLACE : HIER_AT(x, in, body), HIER_AT(x, out, body),
                             n - body);
        hier_inter_allreduce(x, MPI_IN_PLACE, HIER_AT(x, out, body), n - body);
    }
}

static void through_leaders(hier_run *x)
{
    const mcoll_hier_args *a = x->a;
    int leader = x->h->local_rank == 0;
    /* MPI_IN_PLACE is the root's alone in a reduce. */
    const void *in = a->sendbuf == MPI_IN_PLACE && !leader ? a->recvbuf : a->sendbuf;
    hier_intra_reduce(x, in, a->recvbuf, a->count, 0);
    if (leader) hier_inter_allreduce(x, MPI_IN_PLACE, a->recvbuf, a->count);
    hier_intra_bcast(x, a->recvbuf, a->count, 0);
}

mcoll_result mcoll_hier_allreduce(mcoll_hier *h, const mcoll_hier_args *a)
{
    hier_run x;
    mcoll_result rc = hier_run_begin(&x, h, a);
    if (rc != MCOLL_SUCCESS) return rc;
    if (h->equal) sliced(&x);
    else through_leaders(&x);
    return x.rc;
}
