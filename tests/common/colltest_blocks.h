/* Checks of the collectives with one block per peer: allgatherv, alltoall, alltoallv,
 * alltoallw, gather, gatherv, scatter, scatterv and the five neighbourhood collectives. Like
 * ct_check (colltest.h): one call through MPI_* on buffers of a colltest_mem and the same call
 * through PMPI_* on host buffers, then the return class, every byte of the receive buffer
 * (gaps between blocks included: they must keep their contents, and a receive buffer that
 * means nothing on a rank must stay untouched) and the unchanged send buffer are compared.
 *
 * Shapes: the fixed-count calls put their blocks back to back; the v variants give block (s to
 * r) count + (s + 2r) % 3 elements (count + (s + r) % 3 in place, where both directions use
 * one count; by sender, count + s % 3, where a sender has one block for all) and lay the
 * blocks out in reverse order, one element in, with one-element gaps; the w variants send
 * 2 x that many ints as MPI_INT or as pairs of ints, receive them as MPI_INT or as ints with
 * a 4-byte gap (an 8-byte extent), by the parity of the peer, at byte displacements laid out
 * the same way, and neighbor_alltoallw also at MPI_BOTTOM with absolute displacements.
 * Neighbourhood calls find their peers in the communicator's topology. */
#ifndef MCOLL_TEST_COLLTEST_BLOCKS_H
#define MCOLL_TEST_COLLTEST_BLOCKS_H

#include "common/colltest.h"

typedef enum {
    CB_ALLGATHERV, CB_ALLTOALL, CB_ALLTOALLV, CB_ALLTOALLW, CB_GATHER, CB_GATHERV, CB_SCATTER, CB_SCATTERV,
    CB_NB_ALLGATHER, CB_NB_ALLGATHERV, CB_NB_ALLTOALL, CB_NB_ALLTOALLV, CB_NB_ALLTOALLW, CB_NUM
} cb_coll;
static const char *const cb_names[CB_NUM] = {
    "allgatherv", "alltoall", "alltoallv", "alltoallw", "gather", "gatherv", "scatter", "scatterv",
    "neighbor_allgather", "neighbor_allgatherv", "neighbor_alltoall", "neighbor_alltoallv", "neighbor_alltoallw"};

#define CB_MAX_PEERS 64

/* One side (send or receive) of a call on this rank. */
typedef struct {
    int n;                            /* blocks */
    int peer[CB_MAX_PEERS];           /* rank each block goes to or comes from (MPI_PROC_NULL too) */
    int counts[CB_MAX_PEERS];         /* in elements of the block's datatype */
    int displs[CB_MAX_PEERS];         /* elements; the w variants: bytes */
    MPI_Aint bdispls[CB_MAX_PEERS];   /* neighbor_alltoallw: bytes */
    MPI_Datatype types[CB_MAX_PEERS]; /* the w variants */
    size_t bytes;                     /* the buffer */
} cb_side;

/* One call on this rank. */
typedef struct {
    cb_coll coll;
    MPI_Comm comm;
    MPI_Datatype type;  /* sendtype and recvtype, except for the w variants */
    size_t es;          /* its extent */
    int root, in_place, is_root, leaf;
    cb_side send, recv;
} cb_call;

static int cb_is_neighbor(cb_coll c) { return c >= CB_NB_ALLGATHER; }
static int cb_is_w(cb_coll c) { return c == CB_ALLTOALLW || c == CB_NB_ALLTOALLW; }
static int cb_is_fixed(cb_coll c)
{
    return c == CB_ALLTOALL || c == CB_GATHER || c == CB_SCATTER || c == CB_NB_ALLGATHER || c == CB_NB_ALLTOALL;
}

/* Elements in the block from rank s to rank r (either may be MPI_PROC_NULL). */
static int cb_count(cb_coll c, int count, int in_place, int s, int r)
{
    if (cb_is_fixed(c) || s < 0 || r < 0) return count;
    switch (c) {
    case CB_ALLGATHERV: case CB_GATHERV: case CB_NB_ALLGATHERV: return count + s % 3;
    case CB_SCATTERV: return count + r % 3;
    default: return count + (in_place ? s + r : s + 2 * r) % 3;
    }
}

/* This rank's in- and out-neighbours, in the order the neighbourhood collectives use. */
static void cb_neighbors(MPI_Comm comm, int *nin, int *in, int *nout, int *out)
{
    int status = MPI_UNDEFINED, rank, d, nd = 0, weighted, win[CB_MAX_PEERS], wout[CB_MAX_PEERS];
    MPI_Topo_test(comm, &status);
    MPI_Comm_rank(comm, &rank);
    *nin = *nout = 0;
    if (status == MPI_CART) {
        MPI_Cartdim_get(comm, &nd);
        for (d = 0; d < nd && 2 * d + 1 < CB_MAX_PEERS; d++) {
            MPI_Cart_shift(comm, d, 1, &in[2 * d], &in[2 * d + 1]);
            out[2 * d] = in[2 * d];
            out[2 * d + 1] = in[2 * d + 1];
        }
        *nin = *nout = 2 * nd;
    } else if (status == MPI_GRAPH) {
        MPI_Graph_neighbors_count(comm, rank, nin);
        MPI_Graph_neighbors(comm, rank, CB_MAX_PEERS, in);
        *nout = *nin;
        memcpy(out, in, sizeof(int) * (size_t)*nin);
    } else if (status == MPI_DIST_GRAPH) {
        MPI_Dist_graph_neighbors_count(comm, nin, nout, &weighted);
        MPI_Dist_graph_neighbors(comm, CB_MAX_PEERS, in, win, CB_MAX_PEERS, out, wout);
    }
}

/* The datatypes of the w variants: pairs of ints, and ints at an 8-byte stride. */
static MPI_Datatype cb_pair, cb_gapped;
static void cb_types_init(void)
{
    static int made;
    if (made) return;
    made = 1;
    MPI_Type_contiguous(2, MPI_INT, &cb_pair);
    MPI_Type_commit(&cb_pair);
    MPI_Type_create_resized(MPI_INT, 0, 8, &cb_gapped);
    MPI_Type_commit(&cb_gapped);
}

/* Fill a side with `n` blocks of the given peers: counts from cb_count (`sending`: this rank is
 * the sender), displacements back to back for the fixed-count calls, else in reverse order,
 * one element in, with one-element gaps (the w variants: bytes, 4 in and 4-byte gaps). */
static void cb_side_make(cb_side *sd, const cb_call *c, int count, int me, int sending, int n, const int *peers)
{
    MPI_Aint pos, lb, extent;
    int i;
    sd->n = n;
    for (i = 0; i < n; i++) {
        int p = peers[i], k = sending ? cb_count(c->coll, count, c->in_place, me, p)
                                      : cb_count(c->coll, count, c->in_place, p, me);
        sd->peer[i] = p;
        sd->counts[i] = k;
        if (cb_is_w(c->coll)) {
            int odd = p >= 0 && p % 2;
            /* 2k ints: sent as 2k MPI_INT or k pairs, received as 2k MPI_INT or 2k gapped ints.
             * In place, both directions use the receive side's types. */
            sd->types[i] = sending && !c->in_place ? (odd ? MPI_INT : cb_pair) : (odd ? MPI_INT : cb_gapped);
            sd->counts[i] = sd->types[i] == cb_pair ? k : 2 * k;
        }
    }
    if (cb_is_w(c->coll)) {
        for (pos = 4, i = n - 1; i >= 0; i--) {
            MPI_Type_get_extent(sd->types[i], &lb, &extent);
            sd->displs[i] = (int)pos;
            sd->bdispls[i] = pos;
            pos += sd->counts[i] * extent + 4;
        }
        sd->bytes = (size_t)pos;
    } else if (cb_is_fixed(c->coll) || n == 1) {
        for (i = 0; i < n; i++) sd->displs[i] = i * sd->counts[0];
        sd->bytes = (size_t)(n > 0 ? n * sd->counts[0] : 0) * c->es;
    } else {
        for (pos = 1, i = n - 1; i >= 0; i--) {
            sd->displs[i] = (int)pos;
            pos += sd->counts[i] + 1;
        }
        sd->bytes = (size_t)pos * c->es;
    }
}

/* The sides of one call on this rank. */
static void cb_layout(cb_call *c, int count)
{
    int rank, size, remote, inter = 0, i, all[CB_MAX_PEERS], nin = 0, nout = 0, in[CB_MAX_PEERS], out[CB_MAX_PEERS];
    MPI_Comm_rank(c->comm, &rank);
    MPI_Comm_size(c->comm, &size);
    MPI_Comm_test_inter(c->comm, &inter);
    remote = size;
    if (inter) MPI_Comm_remote_size(c->comm, &remote);
    for (i = 0; i < remote && i < CB_MAX_PEERS; i++) all[i] = i;
    c->is_root = inter ? c->root == MPI_ROOT : rank == c->root;
    c->leaf = !inter || (c->root != MPI_ROOT && c->root != MPI_PROC_NULL);
    memset(&c->send, 0, sizeof c->send);
    memset(&c->recv, 0, sizeof c->recv);
    if (cb_is_neighbor(c->coll)) cb_neighbors(c->comm, &nin, in, &nout, out);
    /* One-block sides (a sender's block for all, a scatter's receiver) count by this rank. */
    switch (c->coll) {
    case CB_ALLGATHERV: case CB_GATHER: case CB_GATHERV:
        cb_side_make(&c->send, c, count, rank, 1, 1, all);
        cb_side_make(&c->recv, c, count, rank, 0, remote, all);
        break;
    case CB_SCATTER: case CB_SCATTERV:
        cb_side_make(&c->send, c, count, rank, 1, remote, all);
        cb_side_make(&c->recv, c, count, rank, 0, 1, all);
        break;
    case CB_NB_ALLGATHER: case CB_NB_ALLGATHERV:
        cb_side_make(&c->send, c, count, rank, 1, 1, all);
        cb_side_make(&c->recv, c, count, rank, 0, nin, in);
        break;
    case CB_NB_ALLTOALL: case CB_NB_ALLTOALLV: case CB_NB_ALLTOALLW:
        cb_side_make(&c->send, c, count, rank, 1, nout, out);
        cb_side_make(&c->recv, c, count, rank, 0, nin, in);
        break;
    default: /* the alltoalls */
        cb_side_make(&c->send, c, count, rank, 1, remote, all);
        cb_side_make(&c->recv, c, count, rank, 0, remote, all);
        break;
    }
}

/* The call, through MPI_* or PMPI_* (prefix P), on sendbuf s and recvbuf r. */
#define CB_RUN(name, P)                                                                                         \
    static int name(const cb_call *c, const void *s, void *r)                                                   \
    {                                                                                                           \
        const cb_side *S = &c->send, *R = &c->recv;                                                             \
        switch (c->coll) {                                                                                      \
        case CB_ALLGATHERV:                                                                                     \
            return P##_Allgatherv(s, S->counts[0], c->type, r, R->counts, R->displs, c->type, c->comm);         \
        case CB_ALLTOALL:                                                                                       \
            return P##_Alltoall(s, S->counts[0], c->type, r, R->counts[0], c->type, c->comm);                   \
        case CB_ALLTOALLV:                                                                                      \
            return P##_Alltoallv(s, S->counts, S->displs, c->type, r, R->counts, R->displs, c->type, c->comm);  \
        case CB_ALLTOALLW:                                                                                      \
            return P##_Alltoallw(s, S->counts, S->displs, S->types, r, R->counts, R->displs, R->types, c->comm); \
        case CB_GATHER:                                                                                         \
            return P##_Gather(s, S->counts[0], c->type, r, R->counts[0], c->type, c->root, c->comm);            \
        case CB_GATHERV:                                                                                        \
            return P##_Gatherv(s, S->counts[0], c->type, r, R->counts, R->displs, c->type, c->root, c->comm);   \
        case CB_SCATTER:                                                                                        \
            return P##_Scatter(s, S->counts[0], c->type, r, R->counts[0], c->type, c->root, c->comm);           \
        case CB_SCATTERV:                                                                                       \
            return P##_Scatterv(s, S->counts, S->displs, c->type, r, R->counts[0], c->type, c->root, c->comm);  \
        case CB_NB_ALLGATHER:                                                                                   \
            return P##_Neighbor_allgather(s, S->counts[0], c->type, r, R->counts[0], c->type, c->comm);         \
        case CB_NB_ALLGATHERV:                                                                                  \
            return P##_Neighbor_allgatherv(s, S->counts[0], c->type, r, R->counts, R->displs, c->type, c->comm); \
        case CB_NB_ALLTOALL:                                                                                    \
            return P##_Neighbor_alltoall(s, S->counts[0], c->type, r, R->counts[0], c->type, c->comm);          \
        case CB_NB_ALLTOALLV:                                                                                   \
            return P##_Neighbor_alltoallv(s, S->counts, S->displs, c->type, r, R->counts, R->displs, c->type,   \
                                          c->comm);                                                             \
        default:                                                                                                \
            return P##_Neighbor_alltoallw(s, S->counts, S->bdispls, S->types, r, R->counts, R->bdispls,         \
                                          R->types, c->comm);                                                   \
        }                                                                                                       \
    }
CB_RUN(cb_run_mpi, MPI)
CB_RUN(cb_run_pmpi, PMPI)
#undef CB_RUN

/* MPI_IN_PLACE where the call takes it: sendbuf of allgatherv and the alltoalls, sendbuf of
 * gather and recvbuf of scatter at the root. */
static void cb_in_place(const cb_call *c, const void **s, void **r)
{
    if (!c->in_place) return;
    if (c->coll == CB_SCATTER || c->coll == CB_SCATTERV) {
        if (c->is_root) *r = MPI_IN_PLACE;
    } else if (c->coll != CB_GATHER && c->coll != CB_GATHERV) {
        *s = MPI_IN_PLACE;
    } else if (c->is_root) {
        *s = MPI_IN_PLACE;
    }
}

/* The receive buffer before the call: a pattern, and this rank's own data where the call
 * reads it in place (its block of allgatherv and gather, every block of the alltoalls). */
static void cb_recv_init(const cb_call *c, const ct_type *t, unsigned char *buf, int rank)
{
    int alltoall = c->coll == CB_ALLTOALL || c->coll == CB_ALLTOALLV || c->coll == CB_ALLTOALLW;
    memset(buf, 0xa5, c->recv.bytes);
    if (!c->in_place) return;
    if (alltoall) {
        ct_fill(t, buf, c->recv.bytes / (size_t)t->size, rank + 1);
    } else if ((c->coll == CB_ALLGATHERV || ((c->coll == CB_GATHER || c->coll == CB_GATHERV) && c->is_root)) &&
               rank < c->recv.n) {
        ct_fill(t, buf + (size_t)c->recv.displs[rank] * c->es, (size_t)c->recv.counts[rank], rank + 1);
    }
}

/* The call with its buffers at absolute addresses: MPI_BOTTOM and the buffers' addresses added
 * to the byte displacements (neighbor_alltoallw, whose displacements are MPI_Aint). */
static void cb_at_bottom(cb_call *c, const void **s, void **r)
{
    MPI_Aint base;
    int i;
    MPI_Get_address(*s, &base);
    for (i = 0; i < c->send.n; i++) c->send.bdispls[i] += base;
    MPI_Get_address(*r, &base);
    for (i = 0; i < c->recv.n; i++) c->recv.bdispls[i] += base;
    *s = MPI_BOTTOM;
    *r = MPI_BOTTOM;
}

/* One call of `coll` on `comm` with datatype t (the w variants use ints whatever t is);
 * `bottom`: at absolute addresses (cb_at_bottom). */
static inline void cb_check_call(const colltest_mem *mem, MPI_Comm comm, cb_coll coll, const ct_type *t, int count,
                                 int in_place, int root, int bottom)
{
    static ct_type ints = {0, "MPI_INT", K_INT, 4};
    cb_call c, mc, ref;
    const ct_type *et = t;
    int rank, rc_mc, rc_ref;
    size_t sb, rb;
    unsigned char *send, *recv_init, *ref_send, *ref_recv, *got_send, *got_recv;
    void *d_send, *d_recv, *mc_r, *ref_r;
    const void *mc_s, *ref_s;

    cb_types_init();
    ints.type = MPI_INT;
    if (cb_is_w(coll)) et = &ints;
    memset(&c, 0, sizeof c);
    c.coll = coll;
    c.comm = comm;
    c.type = et->type;
    c.es = (size_t)et->size;
    c.root = root;
    c.in_place = in_place;
    cb_layout(&c, count);
    MPI_Comm_rank(comm, &rank);
    sb = c.send.bytes + 1;
    rb = c.recv.bytes + 1;
    send = (unsigned char *)malloc(sb);
    ref_send = (unsigned char *)malloc(sb);
    got_send = (unsigned char *)malloc(sb);
    recv_init = (unsigned char *)malloc(rb);
    ref_recv = (unsigned char *)malloc(rb);
    got_recv = (unsigned char *)malloc(rb);
    ct_fill(et, send, c.send.bytes / c.es, rank + 1);
    cb_recv_init(&c, et, recv_init, rank);
    memcpy(ref_send, send, c.send.bytes);
    memcpy(ref_recv, recv_init, c.recv.bytes);
    d_send = mem->alloc(sb);
    d_recv = mem->alloc(rb);
    mem->put(d_send, send, c.send.bytes);
    mem->put(d_recv, recv_init, c.recv.bytes);

    mc_s = d_send, mc_r = d_recv, ref_s = ref_send, ref_r = ref_recv;
    cb_in_place(&c, &mc_s, &mc_r);
    cb_in_place(&c, &ref_s, &ref_r);
    mc = c;
    ref = c;
    if (bottom) {
        cb_at_bottom(&mc, &mc_s, &mc_r);
        cb_at_bottom(&ref, &ref_s, &ref_r);
    }
    rc_mc = cb_run_mpi(&mc, mc_s, mc_r);
    rc_ref = cb_run_pmpi(&ref, ref_s, ref_r);

    mem->get(got_recv, d_recv, c.recv.bytes);
    mem->get(got_send, d_send, c.send.bytes);
    ct_checks++;
    if (ct_class(rc_mc) != ct_class(rc_ref))
        CT_FAIL("%s %s count %d%s%s root %d: returned class %d, PMPI %d", cb_names[coll], et->name, count,
                in_place ? " in place" : "", bottom ? " at MPI_BOTTOM" : "", root, ct_class(rc_mc), ct_class(rc_ref));
    else if (!ct_same(et, got_recv, ref_recv, c.recv.bytes / c.es))
        CT_FAIL("%s %s count %d%s%s root %d: receive buffer differs from PMPI", cb_names[coll], et->name, count,
                in_place ? " in place" : "", bottom ? " at MPI_BOTTOM" : "", root);
    else if (memcmp(got_send, send, c.send.bytes))
        CT_FAIL("%s %s count %d: send buffer modified", cb_names[coll], et->name, count);
    else if (ct_verbose)
        printf("ok %s %s count %d%s root %d -> %d\n", cb_names[coll], et->name, count, in_place ? " in place" : "",
               root, rc_mc);
    mem->release(d_send);
    mem->release(d_recv);
    free(send); free(ref_send); free(got_send); free(recv_init); free(ref_recv); free(got_recv);
}

static inline void cb_check(const colltest_mem *mem, MPI_Comm comm, cb_coll coll, const ct_type *t, int count,
                            int in_place, int root)
{
    cb_check_call(mem, comm, coll, t, count, in_place, root, 0);
}

/* Every collective with blocks on an intracommunicator: every root, in and out of place. */
static inline void cb_check_all(const colltest_mem *mem, MPI_Comm comm, const ct_type *t, int count)
{
    int size, root, in_place;
    MPI_Comm_size(comm, &size);
    for (in_place = 0; in_place < 2; in_place++) {
        cb_check(mem, comm, CB_ALLGATHERV, t, count, in_place, 0);
        cb_check(mem, comm, CB_ALLTOALL, t, count, in_place, 0);
        cb_check(mem, comm, CB_ALLTOALLV, t, count, in_place, 0);
        cb_check(mem, comm, CB_ALLTOALLW, t, count, in_place, 0);
        for (root = 0; root < size; root++) {
            cb_check(mem, comm, CB_GATHER, t, count, in_place, root);
            cb_check(mem, comm, CB_GATHERV, t, count, in_place, root);
            cb_check(mem, comm, CB_SCATTER, t, count, in_place, root);
            cb_check(mem, comm, CB_SCATTERV, t, count, in_place, root);
        }
    }
}

/* The neighbourhood collectives on a communicator with a topology. */
static inline void cb_check_neighbors(const colltest_mem *mem, MPI_Comm comm, const ct_type *t, int count)
{
    cb_check(mem, comm, CB_NB_ALLGATHER, t, count, 0, 0);
    cb_check(mem, comm, CB_NB_ALLGATHERV, t, count, 0, 0);
    cb_check(mem, comm, CB_NB_ALLTOALL, t, count, 0, 0);
    cb_check(mem, comm, CB_NB_ALLTOALLV, t, count, 0, 0);
    cb_check(mem, comm, CB_NB_ALLTOALLW, t, count, 0, 0);
    cb_check_call(mem, comm, CB_NB_ALLTOALLW, t, count, 0, 0, 1);
}

/* On an intercommunicator (no MPI_IN_PLACE): the unrooted ones, and the rooted ones with the
 * root in this rank's group when in_root_group (MPI_ROOT at its rank 0, MPI_PROC_NULL at the
 * others), else at rank 0 of the other group. */
static inline void cb_check_inter(const colltest_mem *mem, MPI_Comm inter, int in_root_group, const ct_type *t,
                                  int count)
{
    int rank, root;
    MPI_Comm_rank(inter, &rank);
    root = in_root_group ? (rank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    cb_check(mem, inter, CB_ALLGATHERV, t, count, 0, 0);
    cb_check(mem, inter, CB_ALLTOALL, t, count, 0, 0);
    cb_check(mem, inter, CB_ALLTOALLV, t, count, 0, 0);
    cb_check(mem, inter, CB_ALLTOALLW, t, count, 0, 0);
    cb_check(mem, inter, CB_GATHER, t, count, 0, root);
    cb_check(mem, inter, CB_GATHERV, t, count, 0, root);
    cb_check(mem, inter, CB_SCATTER, t, count, 0, root);
    cb_check(mem, inter, CB_SCATTERV, t, count, 0, root);
}

/* A periodic ring (1-d Cartesian) and, on 4 ranks or more, a distributed graph where rank r
 * sends to r + 1 and r + 2 and rank 0 also to the last rank (so degrees differ). */
static inline void cb_make_topologies(MPI_Comm *ring, MPI_Comm *graph)
{
    int size, rank, dims[1], periods[1] = {1}, src[3], dst[3], w[3] = {1, 1, 1}, nin = 0, nout = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    dims[0] = size;
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, ring);
    MPI_Comm_set_errhandler(*ring, MPI_ERRORS_RETURN);
    *graph = MPI_COMM_NULL;
    if (size < 4) return;
    src[nin++] = (rank + size - 1) % size;
    src[nin++] = (rank + size - 2) % size;
    if (rank == size - 1) src[nin++] = 0;
    dst[nout++] = (rank + 1) % size;
    dst[nout++] = (rank + 2) % size;
    if (rank == 0) dst[nout++] = size - 1;
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, nin, src, w, nout, dst, w, MPI_INFO_NULL, 0, graph);
    MPI_Comm_set_errhandler(*graph, MPI_ERRORS_RETURN);
}

#endif /* MCOLL_TEST_COLLTEST_BLOCKS_H */
