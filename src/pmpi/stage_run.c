/* The staged (and chunked) execution of one call (see mcoll_stage_run in stage.h).
 *
 * Pieces: elementwise collectives with chunk > 0 run as ceil(count / chunk) PMPI calls of at
 * most `chunk` elements; everything else as one piece holding the whole buffers (for the v and w
 * variants the span of their blocks, which may start anywhere from the user's pointer). A staged buffer
 * has one host slot per pipeline stage (two when there are several pieces); a piece's bytes are
 * the span of its elements, [true_lb, true_lb + (n - 1) * extent + true_extent) from its first
 * element, so derived datatypes with gaps or a non-zero lower bound are copied whole and MPI
 * sees them at the same offsets as in the user's buffer.
 *
 * Order on the one copy stream, for pieces i = 0, 1, ...:
 *     in(0) | in(1) out(0) | in(2) out(1) | ...     with MPI(i) between in(i+1) and out(i)
 * The event of slot s is recorded after the last copy that touches s, so waiting on it before
 * MPI(i) covers both in(i) and out(i - 2), the copy that last read the slot MPI(i) writes. */
#include <stdint.h>
#include <string.h>
#include "stage.h"
#include "log.h"

#define SLOT_ALIGN 256

typedef struct {
    mcoll_buf *b;
    const void *orig;        /* the pointer the user passed for this role */
    char *slot[2];
} role;

typedef struct {
    mcoll_call *c;
    mcoll_stage *st;
    role r[2];               /* send, recv */
    int pieces, per_piece, nslots;
    int failed;              /* a copy failed: no more copies, the MPI calls go on */
} run;

/* First byte and length of elements [first, first + n) of b, from its base pointer. */
void mcoll_buf_span(const mcoll_buf *b, MPI_Aint first, MPI_Aint n, MPI_Aint *lo, size_t *bytes)
{
    MPI_Aint step = n > 0 ? (n - 1) * b->extent : 0;
    *lo = first * b->extent + b->true_lb + (step < 0 ? step : 0);
    *bytes = n > 0 ? (size_t)(b->true_extent + (step < 0 ? -step : step)) : 0;
}

static MPI_Aint piece_first(const run *x, int i) { return (MPI_Aint)i * x->per_piece; }
static MPI_Aint piece_count(const run *x, const mcoll_buf *b, int i)
{
    MPI_Aint left;
    if (x->pieces == 1 && !x->c->coll->elementwise) return b->count;
    left = x->c->count - piece_first(x, i);
    return left < x->per_piece ? left : x->per_piece;
}

/* The bytes piece i reads from a buffer (one-piece runs: the whole buffer). */
static void in_span(const run *x, const mcoll_buf *b, int i, MPI_Aint *lo, size_t *bytes)
{
    if (x->pieces == 1) mcoll_buf_span(b, b->first, b->count, lo, bytes);
    else mcoll_buf_span(b, piece_first(x, i), piece_count(x, b, i), lo, bytes);
}

/* The bytes piece i writes (one-piece runs: the region the collective writes). */
static void out_span(const run *x, const mcoll_buf *b, int i, MPI_Aint *lo, size_t *bytes)
{
    if (x->pieces == 1) mcoll_buf_span(b, b->out_first, b->out_count, lo, bytes);
    else mcoll_buf_span(b, piece_first(x, i), piece_count(x, b, i), lo, bytes);
}

/* Base pointer of role r for piece i: the user's buffer, or the host slot shifted so that
 * the piece's elements sit at the same offsets from it as in the user's buffer. */
static char *base(const run *x, const role *r, int i)
{
    MPI_Aint lo;
    size_t bytes;
    if (!r->b->staged) return r->b->user;
    in_span(x, r->b, i, &lo, &bytes);
    return r->slot[i % x->nslots] - lo;
}

/* The pointer PMPI gets for role r in piece i. */
static void *mpi_ptr(const run *x, const role *r, int i)
{
    if (!r->b->in && !r->b->out) return (void *)(uintptr_t)r->orig; /* MPI_IN_PLACE, unused */
    return base(x, r, i) + piece_first(x, i) * r->b->extent;
}

static void copy_in(run *x, int i)
{
    int k;
    for (k = 0; k < 2 && !x->failed; k++) {
        role *r = &x->r[k];
        MPI_Aint lo;
        size_t bytes;
        if (!r->b->staged || !r->b->in) continue;
        in_span(x, r->b, i, &lo, &bytes);
        if (bytes && mcoll_stage_to_host(x->st, base(x, r, i) + lo, r->b->user + lo, bytes) != MCOLL_SUCCESS)
            x->failed = 1;
    }
    if (!x->failed && mcoll_stage_mark(x->st, i % x->nslots) != MCOLL_SUCCESS) x->failed = 1;
}

static void copy_out(run *x, int i)
{
    int k;
    for (k = 0; k < 2 && !x->failed; k++) {
        role *r = &x->r[k];
        MPI_Aint lo;
        size_t bytes;
        if (!r->b->staged || !r->b->out) continue;
        out_span(x, r->b, i, &lo, &bytes);
        if (bytes && mcoll_stage_to_device(x->st, r->b->user + lo, base(x, r, i) + lo, bytes) != MCOLL_SUCCESS)
            x->failed = 1;
    }
    if (!x->failed && mcoll_stage_mark(x->st, i % x->nslots) != MCOLL_SUCCESS) x->failed = 1;
}

/* Host slots for the staged roles; 0 on failure. */
static int place_slots(run *x)
{
    size_t need[2] = {0, 0}, total = 0, off = 0;
    char *host;
    int k, s;
    for (k = 0; k < 2; k++) {
        role *r = &x->r[k];
        MPI_Aint lo;
        size_t bytes;
        if (!r->b->staged) continue;
        in_span(x, r->b, 0, &lo, &bytes); /* piece 0 is the largest */
        need[k] = (bytes + SLOT_ALIGN - 1) / SLOT_ALIGN * SLOT_ALIGN;
        total += need[k] * (size_t)x->nslots;
    }
    host = mcoll_stage_host(x->st, total);
    if (!host) return 0;
    for (s = 0; s < x->nslots; s++)
        for (k = 0; k < 2; k++) {
            x->r[k].slot[s] = host + off;
            off += need[k];
        }
    return 1;
}

int mcoll_stage_run(mcoll_call *c, int chunk, int *cuda_failed)
{
    run x;
    int i, rc = MPI_SUCCESS, device;

    memset(&x, 0, sizeof x);
    x.c = c;
    x.r[0].b = &c->send;
    x.r[0].orig = c->sendbuf;
    x.r[1].b = &c->recv;
    x.r[1].orig = c->recvbuf;
    x.pieces = 1;
    x.per_piece = c->count;
    if (c->coll->elementwise && chunk > 0 && c->count > chunk) {
        x.per_piece = chunk;
        x.pieces = (int)(((long long)c->count + chunk - 1) / chunk);
    }
    x.nslots = x.pieces > 1 ? 2 : 1;
    *cuda_failed = 0;

    if (!c->send.staged && !c->recv.staged) {
        for (i = 0; i < x.pieces && rc == MPI_SUCCESS; i++)
            rc = c->coll->mpi(c, mpi_ptr(&x, &x.r[0], i), mpi_ptr(&x, &x.r[1], i),
                              x.pieces == 1 ? c->count : (int)piece_count(&x, &c->send, i));
        return rc;
    }

    device = c->send.staged ? c->send.device : c->recv.device;
    x.st = mcoll_stage_begin(device);
    if (!x.st || !place_slots(&x)) {
        mcoll_stage_end(x.st);
        *cuda_failed = 1;
        return MPI_SUCCESS;
    }
    MCOLL_TRACE("%s: %d piece(s) of %d elements, %d slot(s)", c->coll->name, x.pieces, x.per_piece, x.nslots);

    copy_in(&x, 0);
    for (i = 0; i < x.pieces; i++) {
        int n = x.pieces == 1 ? c->count : (int)piece_count(&x, &c->send, i);
        if (i + 1 < x.pieces) copy_in(&x, i + 1);
        if (!x.failed && mcoll_stage_wait(x.st, i % x.nslots) != MCOLL_SUCCESS) x.failed = 1;
        rc = c->coll->mpi(c, mpi_ptr(&x, &x.r[0], i), mpi_ptr(&x, &x.r[1], i), n);
        if (rc != MPI_SUCCESS) break;
        copy_out(&x, i);
    }
    if (!x.failed && mcoll_stage_sync(x.st) != MCOLL_SUCCESS) x.failed = 1;
    mcoll_stage_end(x.st);
    *cuda_failed = x.failed;
    return rc;
}
