/* Hierarchical collectives on "device" buffers of the contract driver, under mpirun, with the
 * steps inside each domain made through MPI (MCOLL_HIER=mpi: the decomposition without GPU
 * kernels): every collective the hierarchy runs, every root, in and out of place, odd counts
 * (slices and a remainder), counts cut into several chunks (MCOLL_STAGE_CHUNK=64K), each compared
 * bitwise with the same call made through PMPI_* on host copies; reduce and bcast also of counts
 * cut into six chunks and a remainder, with one MPI step between domains per chunk (the
 * pipeline's), allgather and reduce-scatter of blocks cut into pieces, one MPI step between
 * domains per piece; and the time split mcoll_hier_times reports. test_hier.sh runs it with
 * MCOLL_DOMAIN_SIZE=2 (equal domains), 3 (unequal: 3 + 1 at 4 ranks) and 1 (one rank per
 * domain, which the hierarchy leaves to the staged path), MPI not CUDA-aware (staged steps) and CUDA-aware (device pointers to MPI).
 *
 * The program defines PMPI_* itself (mcoll is linked statically): the hooks count the calls made
 * on the hierarchy's sub-communicators (so the test knows the path was taken) and, when the MPI
 * is not CUDA-aware, check that no device pointer reaches it. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include "comm_attr.h"
#include "contract/devmem.h"
#include "contract/pmpi_real.h"
#include "contract/hier_test.h"
#include "hier_internal.h"

static int world_size, cuda_aware;
static long sub_calls, cross_calls;
static MPI_Comm cross = MPI_COMM_NULL; /* MPI_COMM_WORLD's communicator between domains */

static void note(MPI_Comm c, const char *call, const void *s, const void *r)
{
    int n = 0;
    PMPI_Comm_size(c, &n);
    if (n < world_size) sub_calls++;
    if (c == cross && cross != MPI_COMM_NULL) cross_calls++;
    if (!cuda_aware) {
        check_host(call, s);
        check_host(call, r);
    }
}


int PMPI_Allreduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op o, MPI_Comm c)
{
    REAL(PMPI_Allreduce, allreduce_fn);
    note(c, "PMPI_Allreduce", s, r);
    return real_PMPI_Allreduce(s, r, n, t, o, c);
}
int PMPI_Bcast(void *b, int n, MPI_Datatype t, int root, MPI_Comm c)
{
    REAL(PMPI_Bcast, bcast_fn);
    note(c, "PMPI_Bcast", b, NULL);
    return real_PMPI_Bcast(b, n, t, root, c);
}
int PMPI_Reduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op o, int root, MPI_Comm c)
{
    REAL(PMPI_Reduce, reduce_fn);
    note(c, "PMPI_Reduce", s, r);
    return real_PMPI_Reduce(s, r, n, t, o, root, c);
}
int PMPI_Reduce_scatter_block(const void *s, void *r, int n, MPI_Datatype t, MPI_Op o, MPI_Comm c)
{
    REAL(PMPI_Reduce_scatter_block, rsb_fn);
    note(c, "PMPI_Reduce_scatter_block", s, r);
    return real_PMPI_Reduce_scatter_block(s, r, n, t, o, c);
}
int PMPI_Reduce_scatter(const void *s, void *r, const int *n, MPI_Datatype t, MPI_Op o, MPI_Comm c)
{
    REAL(PMPI_Reduce_scatter, rs_fn);
    note(c, "PMPI_Reduce_scatter", s, r);
    return real_PMPI_Reduce_scatter(s, r, n, t, o, c);
}
int PMPI_Allgather(const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, MPI_Comm c)
{
    REAL(PMPI_Allgather, allgather_fn);
    note(c, "PMPI_Allgather", s, r);
    return real_PMPI_Allgather(s, sn, st, r, rn, rt, c);
}
int PMPI_Allgatherv(const void *s, int sn, MPI_Datatype st, void *r, const int *rn, const int *rd, MPI_Datatype rt,
                    MPI_Comm c)
{
    REAL(PMPI_Allgatherv, allgatherv_fn);
    note(c, "PMPI_Allgatherv", s, r);
    return real_PMPI_Allgatherv(s, sn, st, r, rn, rd, rt, c);
}
int PMPI_Gather(const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, int root, MPI_Comm c)
{
    REAL(PMPI_Gather, rooted_fn);
    note(c, "PMPI_Gather", s, r);
    return real_PMPI_Gather(s, sn, st, r, rn, rt, root, c);
}

/* More than two domains: reductions between them as an exchange of parts, then a gather of the
 * reduced parts (src/hier/exchange.c). */
int PMPI_Alltoallv(const void *s, const int *sn, const int *sd, MPI_Datatype st, void *r, const int *rn, const int *rd,
                   MPI_Datatype rt, MPI_Comm c)
{
    REAL(PMPI_Alltoallv, alltoallv_fn);
    note(c, "PMPI_Alltoallv", s, r);
    return real_PMPI_Alltoallv(s, sn, sd, st, r, rn, rd, rt, c);
}
int PMPI_Gatherv(const void *s, int sn, MPI_Datatype st, void *r, const int *rn, const int *rd, MPI_Datatype rt,
                 int root, MPI_Comm c)
{
    REAL(PMPI_Gatherv, gatherv_fn);
    note(c, "PMPI_Gatherv", s, r);
    return real_PMPI_Gatherv(s, sn, st, r, rn, rd, rt, root, c);
}

/* Two domains: reductions between them as point-to-point swaps (src/hier/pair.c). */
int PMPI_Sendrecv(const void *s, int sn, MPI_Datatype st, int dest, int stag, void *r, int rn, MPI_Datatype rt,
                  int source, int rtag, MPI_Comm c, MPI_Status *status)
{
    REAL(PMPI_Sendrecv, sendrecv_fn);
    note(c, "PMPI_Sendrecv", s, r);
    return real_PMPI_Sendrecv(s, sn, st, dest, stag, r, rn, rt, source, rtag, c, status);
}
int PMPI_Send(const void *s, int n, MPI_Datatype t, int dest, int tag, MPI_Comm c)
{
    REAL(PMPI_Send, send_fn);
    note(c, "PMPI_Send", s, NULL);
    return real_PMPI_Send(s, n, t, dest, tag, c);
}
int PMPI_Recv(void *r, int n, MPI_Datatype t, int source, int tag, MPI_Comm c, MPI_Status *status)
{
    REAL(PMPI_Recv, recv_fn);
    note(c, "PMPI_Recv", NULL, r);
    return real_PMPI_Recv(r, n, t, source, tag, c, status);
}

/* MPI_Reduce_scatter with equal blocks (ct_check's are uneven, which the hierarchy leaves to
 * the staged path), in and out of place. */
static void check_reduce_scatter_equal(const ct_type *t, MPI_Op op, int count, int in_place)
{
    int rank, size, i, *counts;
    size_t es = (size_t)t->size, total;
    unsigned char *send, *ref, *got;
    void *d_buf, *d_recv;
    MPI_Op made, ref_op = ct_ref_op(t, op, &made);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    total = (size_t)count * (size_t)size;
    counts = malloc((size_t)size * sizeof(int));
    for (i = 0; i < size; i++) counts[i] = count;
    send = malloc(total * es);
    ref = malloc(total * es);
    got = malloc(total * es);
    ct_fill(t, send, total, rank + 1);
    memcpy(ref, send, total * es);
    d_buf = d_alloc(total * es);
    d_recv = in_place ? d_buf : d_alloc((size_t)count * es);
    d_put(d_buf, send, total * es);
    MPI_Reduce_scatter(in_place ? MPI_IN_PLACE : d_buf, d_recv, counts, t->type, op, MPI_COMM_WORLD);
    PMPI_Reduce_scatter(MPI_IN_PLACE, ref, counts, t->type, ref_op, MPI_COMM_WORLD);
    d_get(got, d_recv, (size_t)count * es);
    ct_checks++;
    if (!ct_same(t, got, ref, (size_t)count))
        CT_FAIL("reduce_scatter (equal blocks) %s count %d%s: result differs from PMPI", t->name, count,
                in_place ? " in place" : "");
    d_release(d_buf);
    if (!in_place) d_release(d_recv);
    free(send); free(ref); free(got); free(counts);
    if (made != MPI_OP_NULL) MPI_Op_free(&made);
}

/* The MPI steps between domains of one pipelined call of `elements` elements of `esize` bytes
 * on equal domains of d ranks: `per_chunk` per chunk of d slices of MCOLL_STAGE_CHUNK bytes, and
 * one for the remainder where this rank takes part in it. */
static long chunk_steps(size_t elements, size_t esize, size_t d, long per_chunk, int in_remainder)
{
    size_t body = elements / d * d, slice = (64u << 10) / esize, chunk;
    if (slice > body / d) slice = body / d;
    chunk = slice * d;
    return per_chunk * (long)(chunk ? (body + chunk - 1) / chunk : 0) + (elements > body && in_remainder);
}

/* The reductions between more than two equal domains are an exchange (MPI_Alltoallv) and, for a
 * reduce, a gather (MPI_Gatherv) per chunk, with the GPU engines allowed (MCOLL_HIER=auto: here
 * their set-up fails and the parts are reduced on the host); check_pipelined's slices fill a
 * chunk, past the exchange's smallest. */
static long reduce_steps_per_chunk(const mcoll_hier *h)
{
    return h->equal && h->gpu_reduce && h->domains > 2 && h->domains <= HIER_EXCHANGE_MAX_DOMAINS &&
                   !strcmp(getenv("MCOLL_HIER"), "auto")
               ? 2
               : 1;
}

/* The MPI steps between domains of a pipelined allgather or reduce-scatter of `elements` elements
 * of `esize` bytes per block over `domains` domains: one per piece of a block, a piece carrying
 * about MCOLL_STAGE_CHUNK bytes through the MPI from all domains together. */
static long piece_steps(size_t elements, size_t esize, size_t domains)
{
    size_t piece = (64u << 10) / esize / domains;
    if (piece == 0) piece = 1;
    if (piece > elements) piece = elements;
    return piece ? (long)((elements + piece - 1) / piece) : 0;
}

/* Allgather and reduce-scatter of blocks cut into four pieces (a short last one), in and out of
 * place: PMPI's results, and one MPI step between domains per piece. */
static void check_pieces(const ct_type *t, const mcoll_hier *h)
{
    size_t es = (size_t)t->size, nd = (size_t)h->domains, n = 3 * ((64u << 10) / es / nd) + 5;
    long before, want = piece_steps(n, es, nd), want_bytes = piece_steps(n * es, 1, nd);
    int in_place;
    for (in_place = 0; in_place < 2; in_place++) {
        before = cross_calls;
        ct_check(&device_mem, MPI_COMM_WORLD, CT_RSB, t, MPI_SUM, "SUM", (int)n, in_place, 0);
        if (cross_calls - before != want)
            CT_FAIL("reduce_scatter_block of %zu %s per rank%s: %ld MPI steps between domains, wanted %ld (one per "
                    "piece)", n, t->name, in_place ? " in place" : "", cross_calls - before, want);
        before = cross_calls;
        check_reduce_scatter_equal(t, MPI_MAX, (int)n, in_place);
        if (cross_calls - before != want)
            CT_FAIL("reduce_scatter of %zu %s per rank: %ld MPI steps between domains, wanted %ld", n, t->name,
                    cross_calls - before, want);
        before = cross_calls;
        ct_check(&device_mem, MPI_COMM_WORLD, CT_ALLGATHER, t, MPI_OP_NULL, "-", (int)n, in_place, 0);
        if (cross_calls - before != want_bytes)
            CT_FAIL("allgather of %zu %s per rank%s: %ld MPI steps between domains, wanted %ld (one per piece)", n,
                    t->name, in_place ? " in place" : "", cross_calls - before, want_bytes);
    }
}

/* Unequal domains (through their first ranks): allreduce, reduce and bcast of a count cut into
 * six chunks (a short last one), every root, in and out of place, and allgather and the
 * reduce-scatters of blocks cut into four pieces: PMPI's results, and one MPI step between
 * domains per chunk or piece at each first rank. */
static void check_leader_chunks(const ct_type *t, const mcoll_hier *h)
{
    size_t es = (size_t)t->size, per = (64u << 10) / es, n = 5 * per + 7;
    long before, want = h->local_rank == 0 ? 6 : 0;
    int root, in_place;
    cross = h->cross;
    for (in_place = 0; in_place < 2; in_place++) {
        before = cross_calls;
        ct_check(&device_mem, MPI_COMM_WORLD, CT_ALLREDUCE, t, MPI_SUM, "SUM", (int)n, in_place, 0);
        if (cross_calls - before != want)
            CT_FAIL("allreduce of %zu %s, unequal domains: %ld MPI steps between domains, wanted %ld", n, t->name,
                    cross_calls - before, want);
        for (root = 0; root < world_size; root++) {
            before = cross_calls;
            ct_check(&device_mem, MPI_COMM_WORLD, CT_REDUCE, t, MPI_MAX, "MAX", (int)n, in_place, root);
            if (cross_calls - before != want)
                CT_FAIL("reduce of %zu %s to %d, unequal domains: %ld MPI steps between domains, wanted %ld", n,
                        t->name, root, cross_calls - before, want);
            if (in_place) continue;
            before = cross_calls;
            ct_check(&device_mem, MPI_COMM_WORLD, CT_BCAST, t, MPI_OP_NULL, "-", (int)n, 0, root);
            if (cross_calls - before != want)
                CT_FAIL("bcast of %zu %s from %d, unequal domains: %ld MPI steps between domains, wanted %ld", n,
                        t->name, root, cross_calls - before, want);
        }
        /* Blocks in pieces of MCOLL_STAGE_CHUNK / size bytes: four, the last short. */
        n = 3 * (per / (size_t)world_size) + 5;
        want = h->local_rank == 0 ? 4 : 0;
        before = cross_calls;
        ct_check(&device_mem, MPI_COMM_WORLD, CT_RSB, t, MPI_SUM, "SUM", (int)n, in_place, 0);
        check_reduce_scatter_equal(t, MPI_MIN, (int)n, in_place);
        if (cross_calls - before != 2 * want)
            CT_FAIL("reduce-scatters of %zu %s per rank, unequal domains: %ld MPI steps between domains, wanted %ld",
                    n, t->name, cross_calls - before, 2 * want);
        before = cross_calls;
        ct_check(&device_mem, MPI_COMM_WORLD, CT_ALLGATHER, t, MPI_OP_NULL, "-", (int)n, in_place, 0);
        if (cross_calls - before != want)
            CT_FAIL("allgather of %zu %s per rank, unequal domains: %ld MPI steps between domains, wanted %ld", n,
                    t->name, cross_calls - before, want);
        n = 5 * per + 7;
        want = h->local_rank == 0 ? 6 : 0;
    }
    cross = MPI_COMM_NULL;
}

/* Reduce and bcast of counts cut into several chunks (a short last one, and a remainder), every
 * root, in and out of place: PMPI's results, and as many MPI steps between domains as chunks;
 * then allgather and reduce-scatter cut into pieces (check_pieces). Unequal domains:
 * check_leader_chunks. */
static void check_pipelined(const ct_type *t)
{
    mcoll_comm_state *cs = mcoll_comm_state_find(MPI_COMM_WORLD);
    const mcoll_hier *h = cs ? cs->hier : NULL;
    size_t d, es = (size_t)t->size, n;
    int root, in_place;
    long before, want;
    if (!h || h->largest < 2) return;
    if (!h->equal) {
        check_leader_chunks(t, h);
        return;
    }
    d = (size_t)h->local_size;
    n = 5 * ((64u << 10) / es) * d + d + 1; /* 6 chunks, the last of d elements, and a remainder */
    cross = h->cross;
    for (root = 0; root < world_size; root++) {
        for (in_place = 0; in_place < 2; in_place++) {
            before = cross_calls;
            ct_check(&device_mem, MPI_COMM_WORLD, CT_REDUCE, t, MPI_SUM, "SUM", (int)n, in_place, root);
            want = chunk_steps(n, es, d, reduce_steps_per_chunk(h), h->local_rank == h->local_of[root]);
            if (cross_calls - before != want)
                CT_FAIL("reduce of %zu %s to %d: %ld MPI steps between domains, wanted %ld (one per chunk)", n,
                        t->name, root, cross_calls - before, want);
        }
        before = cross_calls;
        ct_check(&device_mem, MPI_COMM_WORLD, CT_BCAST, t, MPI_OP_NULL, "-", (int)n, 0, root);
        want = chunk_steps(n * es, 1, d, 1, 1);
        if (cross_calls - before != want)
            CT_FAIL("bcast of %zu B from %d: %ld MPI steps between domains, wanted %ld (one per chunk)", n * es, root,
                    cross_calls - before, want);
    }
    check_pieces(t, h);
    cross = MPI_COMM_NULL;
}

/* The time split of the hierarchical calls (mcoll_hier_times): summed per call, between domains
 * no more than the whole, zeros after a reset and where the calls are not hierarchical. */
static void check_times(int hierarchical)
{
    mcoll_hier_times_t t;
    float zeros[1024] = {0};
    void *d = d_alloc(sizeof zeros);
    d_put(d, zeros, sizeof zeros);
    ct_checks += 3;
    if (mcoll_hier_times(MPI_COMM_WORLD, 1, &t) != MCOLL_SUCCESS || (t.calls > 0) != hierarchical ||
        t.between_seconds < 0 || t.between_seconds > t.seconds)
        CT_FAIL("mcoll_hier_times: %ld calls, %.6f s, %.6f s between domains", t.calls, t.seconds, t.between_seconds);
    MPI_Allreduce(MPI_IN_PLACE, d, 1024, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    if (mcoll_hier_times(MPI_COMM_WORLD, 0, &t) != MCOLL_SUCCESS || t.calls != hierarchical)
        CT_FAIL("mcoll_hier_times after a reset and one allreduce: %ld calls", t.calls);
    if (mcoll_hier_times(MPI_COMM_NULL, 0, &t) != MCOLL_ERR_INVALID_ARG) CT_FAIL("mcoll_hier_times of MPI_COMM_NULL");
    d_release(d);
}

int main(int argc, char **argv)
{
    static const MPI_Op ops[] = {MPI_SUM, MPI_MAX, MPI_MIN};
    static const char *const op_names[] = {"SUM", "MAX", "MIN"};
    static const int counts[] = {1, 2, 3, 5, 33, 1001};
    ct_type types[64];
    int ntypes, t, o, k, rank, root, in_place;
    CUdevice dev;
    long before;

    cuda_aware = hier_test_settings();
    devmem_install();
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    devmem_start(rank, &dev);
    ntypes = ct_types(types);

    for (t = 0; t < ntypes; t++) {
        int big = (int)((200u << 10) / (unsigned)types[t].size) + 7;
        if (types[t].type != MPI_INT && types[t].type != MPI_DOUBLE && types[t].type != MCOLL_BFLOAT16 &&
            types[t].type != MPI_CHAR && types[t].type != MPI_FLOAT)
            continue;
        for (k = 0; k <= (int)(sizeof counts / sizeof counts[0]); k++) {
            int n = k < (int)(sizeof counts / sizeof counts[0]) ? counts[k] : big;
            for (o = 0; o < 3; o++)
                for (in_place = 0; in_place < 2; in_place++) {
                    ct_check(&device_mem, MPI_COMM_WORLD, CT_ALLREDUCE, &types[t], ops[o], op_names[o], n, in_place, 0);
                    ct_check(&device_mem, MPI_COMM_WORLD, CT_RSB, &types[t], ops[o], op_names[o], n / 4 + 1, in_place, 0);
                    check_reduce_scatter_equal(&types[t], ops[o], n / 4 + 1, in_place);
                    for (root = 0; root < world_size; root++)
                        ct_check(&device_mem, MPI_COMM_WORLD, CT_REDUCE, &types[t], ops[o], op_names[o], n, in_place,
                                 root);
                }
            for (root = 0; root < world_size; root++)
                ct_check(&device_mem, MPI_COMM_WORLD, CT_BCAST, &types[t], MPI_OP_NULL, "-", n, 0, root);
            for (in_place = 0; in_place < 2; in_place++)
                ct_check(&device_mem, MPI_COMM_WORLD, CT_ALLGATHER, &types[t], MPI_OP_NULL, "-", n / 4 + 1, in_place, 0);
        }
        if (types[t].type == MPI_INT || types[t].type == MPI_DOUBLE) check_pipelined(&types[t]);
        checkpoint();
    }
    /* The path was the hierarchy's: its steps ran on the sub-communicators. */
    before = sub_calls;
    MPI_Allreduce(MPI_IN_PLACE, &before, 1, MPI_LONG, MPI_MIN, MPI_COMM_WORLD);
    if (before == 0 && atoi(getenv("MCOLL_DOMAIN_SIZE")) >= 2) CT_FAIL("no MPI call on a domain or cross communicator: the hierarchical path was not taken");
    check_times(atoi(getenv("MCOLL_DOMAIN_SIZE")) >= 2);
    return devmem_finish("mpi_hier", dev);
}
