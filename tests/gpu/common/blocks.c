/* Blocks of the gathers, scatters and all-to-all calls; see blocks.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "blocks.h"
#include "devbuf.h"
#include "reference.h"

int blocks_kind(coll_kind kind)
{
    switch (kind) {
    case COLL_ALLGATHERV: case COLL_ALLTOALL: case COLL_ALLTOALLV: case COLL_GATHER: case COLL_GATHERV:
    case COLL_SCATTER: case COLL_SCATTERV:
        return 1;
    default:
        return 0;
    }
}

int blocks_variable(coll_kind kind)
{
    return kind == COLL_ALLGATHERV || kind == COLL_ALLTOALLV || kind == COLL_GATHERV || kind == COLL_SCATTERV;
}

static int is_scatter(coll_kind kind) { return kind == COLL_SCATTER || kind == COLL_SCATTERV; }
static int is_gather(coll_kind kind) { return kind == COLL_GATHER || kind == COLL_GATHERV; }

static size_t uneven(size_t count, int k)
{
    if (!count || k % 4 == 1) return 0;
    return count + (size_t)(k % 3) * (count / 2 + 1);
}

size_t block_elems(const coll_case *c, int size, int from, int to)
{
    size_t n = c->count;
    (void)size;
    switch (c->kind) {
    case COLL_ALLGATHERV: return uneven(n, from);
    case COLL_ALLTOALLV: return uneven(n, from + to);
    case COLL_GATHERV: return to == c->root ? uneven(n, from) : 0;
    case COLL_SCATTERV: return from == c->root ? uneven(n, to) : 0;
    case COLL_ALLTOALL: return n;
    case COLL_GATHER: return to == c->root ? n : 0;
    case COLL_SCATTER: return from == c->root ? n : 0;
    default: return 0;
    }
}

size_t block_side(const coll_case *c, int size, int rank, int recv_side, size_t *counts, size_t *displs)
{
    size_t at = 0;
    int q;
    for (q = 0; q < size; q++) {
        counts[q] = recv_side ? block_elems(c, size, q, rank) : block_elems(c, size, rank, q);
        displs[q] = 0;
    }
    /* A scatter's receiver holds one block, as MPI places it: at the start of recvbuf. */
    if (recv_side && is_scatter(c->kind)) return counts[c->root];
    if (!blocks_variable(c->kind)) {
        for (q = 0; q < size; q++) displs[q] = (size_t)q * c->count;
        return (size_t)size * c->count;
    }
    for (q = size - 1; q >= 0; q--) {
        at += 1 + (size_t)(q % 3);
        displs[q] = at;
        at += counts[q];
    }
    return at;
}

size_t block_send_at(const coll_case *c, int size, int from, int to)
{
    size_t counts[PREP_MAX_RANKS], displs[PREP_MAX_RANKS];
    /* A gather's sender, and an allgatherv's, sends one block: its whole send buffer. */
    if (c->kind == COLL_ALLGATHERV || is_gather(c->kind) || size > PREP_MAX_RANKS) return 0;
    block_side(c, size, from, 0, counts, displs);
    return displs[to];
}

/* Which block (the sender) element e of the receive buffer belongs to; -1: a gap. */
static int block_at(const coll_prep *p, size_t e, size_t *j)
{
    int q;
    for (q = 0; q < p->size; q++)
        if (p->counts[1][q] && e >= p->displs[1][q] && e - p->displs[1][q] < p->counts[1][q]) {
            *j = e - p->displs[1][q];
            return q;
        }
    return -1;
}

size_t blocks_check(const coll_prep *p, const void *out, char *why, size_t len)
{
    const coll_case *c = &p->c;
    size_t el = c->type->size, total = p->recv_elems * el, bad, i, j = 0, used;
    unsigned char *want = malloc(total + 1);
    const unsigned char *got = out;
    int q, from;

    if (!want) {
        snprintf(why, len, "out of host memory");
        return 1;
    }
    memset(want, DEVBUF_POISON, total);
    if (p->input_in_recv) memcpy(want + p->in_at * el, p->host_in, p->in_elems * el);
    for (q = 0; q < p->size; q++) {
        size_t n = block_elems(c, p->size, q, p->rank);
        if (n) gen_fill(&p->gen, q, block_send_at(c, p->size, q, p->rank), n, want + p->displs[1][q] * el);
    }
    bad = ref_check_bytes(got, want, total, why, len);
    if (bad) {
        for (i = 0; i < total && got[i] == want[i]; i++) continue;
        from = block_at(p, i / el, &j);
        if (from >= 0)
            used = (size_t)snprintf(why, len, "block from rank %d, element %zu: ", from, j);
        else
            used = (size_t)snprintf(why, len, "element %zu, outside every block: ", i / el);
        if (used < len)
            snprintf(why + used, len - used, "byte %zu of it is 0x%02x, want 0x%02x (%zu bytes differ)", i % el, got[i],
                     want[i], bad);
    }
    free(want);
    return bad;
}
