/* The staged path on "device" buffers of the contract driver (cuMemAlloc'ed memory that the
 * model reports as device memory), under mpirun: every intercepted collective, every
 * predefined datatype and built-in op, in and out of place, mixed host and device buffers,
 * messages cut into pipelined chunks (MCOLL_STAGE_CHUNK=64K here), a derived datatype with
 * gaps, ranks using different datatypes of one signature, and a thread with no current
 * context, each compared bitwise with the same call made through PMPI_* on host copies. The GPU engines are off (MCOLL_ENGINE=staged) and the MPI is
 * taken as not CUDA-aware (MCOLL_CUDA_AWARE=0).
 *
 * The same for the collectives with blocks per peer (colltest_blocks.h).
 *
 * This program defines PMPI_Allreduce, PMPI_Bcast, ... itself, so mcoll (linked statically)
 * calls these, which check with the model that no argument is device memory before calling
 * the MPI library's. At the end: no rule of the driver contract broken, and after MPI_Finalize
 * no stream, event or pinned buffer of mcoll left alive. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include "contract/devmem.h"
#include "common/colltest_blocks.h"
#include "contract/pmpi_real.h"

/* ---------------------------------------------------------------------------------------------
 * PMPI hooks: what reaches the MPI library
 * ------------------------------------------------------------------------------------------- */

int PMPI_Allreduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op o, MPI_Comm c)
{
    REAL(PMPI_Allreduce, allreduce_fn);
    check_host("PMPI_Allreduce", s); check_host("PMPI_Allreduce", r);
    return real_PMPI_Allreduce(s, r, n, t, o, c);
}
int PMPI_Bcast(void *b, int n, MPI_Datatype t, int root, MPI_Comm c)
{
    REAL(PMPI_Bcast, bcast_fn);
    check_host("PMPI_Bcast", b);
    return real_PMPI_Bcast(b, n, t, root, c);
}
int PMPI_Reduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op o, int root, MPI_Comm c)
{
    REAL(PMPI_Reduce, reduce_fn);
    check_host("PMPI_Reduce", s); check_host("PMPI_Reduce", r);
    return real_PMPI_Reduce(s, r, n, t, o, root, c);
}
int PMPI_Reduce_scatter_block(const void *s, void *r, int n, MPI_Datatype t, MPI_Op o, MPI_Comm c)
{
    REAL(PMPI_Reduce_scatter_block, rsb_fn);
    check_host("PMPI_Reduce_scatter_block", s); check_host("PMPI_Reduce_scatter_block", r);
    return real_PMPI_Reduce_scatter_block(s, r, n, t, o, c);
}
int PMPI_Reduce_scatter(const void *s, void *r, const int *n, MPI_Datatype t, MPI_Op o, MPI_Comm c)
{
    REAL(PMPI_Reduce_scatter, rs_fn);
    check_host("PMPI_Reduce_scatter", s); check_host("PMPI_Reduce_scatter", r);
    return real_PMPI_Reduce_scatter(s, r, n, t, o, c);
}
int PMPI_Allgather(const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, MPI_Comm c)
{
    REAL(PMPI_Allgather, allgather_fn);
    check_host("PMPI_Allgather", s); check_host("PMPI_Allgather", r);
    return real_PMPI_Allgather(s, sn, st, r, rn, rt, c);
}

typedef int (*scan_fn)(const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm);
typedef int (*reduce_local_fn)(const void *, void *, int, MPI_Datatype, MPI_Op);
typedef int (*alltoallv_fn)(const void *, const int *, const int *, MPI_Datatype, void *, const int *, const int *,
                            MPI_Datatype, MPI_Comm);
typedef int (*alltoallw_fn)(const void *, const int *, const int *, const MPI_Datatype *, void *, const int *,
                            const int *, const MPI_Datatype *, MPI_Comm);
typedef int (*gatherv_fn)(const void *, int, MPI_Datatype, void *, const int *, const int *, MPI_Datatype, int,
                          MPI_Comm);
typedef int (*scatterv_fn)(const void *, const int *, const int *, MPI_Datatype, void *, int, MPI_Datatype, int,
                           MPI_Comm);
typedef int (*nb_alltoallw_fn)(const void *, const int *, const MPI_Aint *, const MPI_Datatype *, void *,
                               const int *, const MPI_Aint *, const MPI_Datatype *, MPI_Comm);

/* The hooks of the other collectives: every pointer argument is checked, whatever it means. */
#define HOOK(name, fn_type, params, args)                                                       \
    int name params                                                                             \
    {                                                                                           \
        REAL(name, fn_type);                                                                    \
        check_host(#name, s); check_host(#name, r);                                             \
        return real_##name args;                                                                \
    }
HOOK(PMPI_Scan, scan_fn, (const void *s, void *r, int n, MPI_Datatype t, MPI_Op o, MPI_Comm c), (s, r, n, t, o, c))
HOOK(PMPI_Exscan, scan_fn, (const void *s, void *r, int n, MPI_Datatype t, MPI_Op o, MPI_Comm c), (s, r, n, t, o, c))
HOOK(PMPI_Reduce_local, reduce_local_fn, (const void *s, void *r, int n, MPI_Datatype t, MPI_Op o), (s, r, n, t, o))
HOOK(PMPI_Allgatherv, allgatherv_fn,
     (const void *s, int sn, MPI_Datatype st, void *r, const int *rn, const int *rd, MPI_Datatype rt, MPI_Comm c),
     (s, sn, st, r, rn, rd, rt, c))
HOOK(PMPI_Alltoall, allgather_fn, (const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, MPI_Comm c),
     (s, sn, st, r, rn, rt, c))
HOOK(PMPI_Alltoallv, alltoallv_fn,
     (const void *s, const int *sn, const int *sd, MPI_Datatype st, void *r, const int *rn, const int *rd,
      MPI_Datatype rt, MPI_Comm c),
     (s, sn, sd, st, r, rn, rd, rt, c))
HOOK(PMPI_Gather, rooted_fn,
     (const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, int root, MPI_Comm c),
     (s, sn, st, r, rn, rt, root, c))
HOOK(PMPI_Gatherv, gatherv_fn,
     (const void *s, int sn, MPI_Datatype st, void *r, const int *rn, const int *rd, MPI_Datatype rt, int root,
      MPI_Comm c),
     (s, sn, st, r, rn, rd, rt, root, c))
HOOK(PMPI_Scatter, rooted_fn,
     (const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, int root, MPI_Comm c),
     (s, sn, st, r, rn, rt, root, c))
HOOK(PMPI_Scatterv, scatterv_fn,
     (const void *s, const int *sn, const int *sd, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, int root,
      MPI_Comm c),
     (s, sn, sd, st, r, rn, rt, root, c))
HOOK(PMPI_Neighbor_allgather, allgather_fn,
     (const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, MPI_Comm c), (s, sn, st, r, rn, rt, c))
HOOK(PMPI_Neighbor_allgatherv, allgatherv_fn,
     (const void *s, int sn, MPI_Datatype st, void *r, const int *rn, const int *rd, MPI_Datatype rt, MPI_Comm c),
     (s, sn, st, r, rn, rd, rt, c))
HOOK(PMPI_Neighbor_alltoall, allgather_fn,
     (const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, MPI_Comm c), (s, sn, st, r, rn, rt, c))
HOOK(PMPI_Neighbor_alltoallv, alltoallv_fn,
     (const void *s, const int *sn, const int *sd, MPI_Datatype st, void *r, const int *rn, const int *rd,
      MPI_Datatype rt, MPI_Comm c),
     (s, sn, sd, st, r, rn, rd, rt, c))

/* The w variants address each block by a byte displacement, from MPI_BOTTOM too: the first byte
 * of every block that holds data is checked. */
static void check_blocks(const char *call, const void *base, int n, const int *counts, const int *displs,
                         const MPI_Aint *displs_bytes)
{
    int i;
    if (base == MPI_IN_PLACE) return;
    for (i = 0; i < n; i++)
        if (counts[i] > 0) check_host(call, (const char *)base + (displs ? displs[i] : displs_bytes[i]));
}

int PMPI_Alltoallw(const void *s, const int *sn, const int *sd, const MPI_Datatype *st, void *r, const int *rn,
                   const int *rd, const MPI_Datatype *rt, MPI_Comm c)
{
    int n = 0, inter = 0;
    REAL(PMPI_Alltoallw, alltoallw_fn);
    PMPI_Comm_test_inter(c, &inter);
    if (inter) PMPI_Comm_remote_size(c, &n);
    else PMPI_Comm_size(c, &n);
    check_blocks("PMPI_Alltoallw", s, n, sn, sd, NULL);
    check_blocks("PMPI_Alltoallw", r, n, rn, rd, NULL);
    return real_PMPI_Alltoallw(s, sn, sd, st, r, rn, rd, rt, c);
}

int PMPI_Neighbor_alltoallw(const void *s, const int *sn, const MPI_Aint *sd, const MPI_Datatype *st, void *r,
                            const int *rn, const MPI_Aint *rd, const MPI_Datatype *rt, MPI_Comm c)
{
    int nin = 0, nout = 0, in[CB_MAX_PEERS], out[CB_MAX_PEERS];
    REAL(PMPI_Neighbor_alltoallw, nb_alltoallw_fn);
    cb_neighbors(c, &nin, in, &nout, out);
    check_blocks("PMPI_Neighbor_alltoallw", s, nout, sn, NULL, sd);
    check_blocks("PMPI_Neighbor_alltoallw", r, nin, rn, NULL, rd);
    return real_PMPI_Neighbor_alltoallw(s, sn, sd, st, r, rn, rd, rt, c);
}

/* ---------------------------------------------------------------------------------------------
 * Buffers: device memory of the model, or host memory for the mixed cases
 * ------------------------------------------------------------------------------------------- */
static int host_next; /* mixed memory: which of the next two allocations is host memory */

/* Alternates: send buffer on the host and receive buffer on the device, or the reverse. */
static void *m_alloc(size_t n)
{
    int host = host_next;
    host_next = !host_next;
    return host ? malloc(n ? n : 1) : d_alloc(n);
}

/* Device memory on even ranks, host memory on odd ones: ranks disagree about staging. */
static void *r_alloc(size_t n)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return rank % 2 ? malloc(n ? n : 1) : d_alloc(n);
}

static const colltest_mem mixed_mem = {m_alloc, d_release, d_put, d_get};
static const colltest_mem by_rank_mem = {r_alloc, d_release, d_put, d_get};

/* Same type signature, different datatypes: even ranks use 4 x MPI_INT where odd ranks use
 * 1 x contiguous(4, MPI_INT), which MPI allows. Every rank must decide alike: with the engines
 * on, a rank that chose otherwise would leave the others waiting in the set-up of the engine
 * (each call runs on a fresh communicator, whose first engine call builds the team). */
static void check_same_signature(int rank, int size)
{
    MPI_Datatype four;
    MPI_Comm comm;
    int host[64], i, odd = rank % 2;
    void *send = d_alloc(4 * sizeof(int)), *recv = d_alloc((size_t)size * 4 * sizeof(int));

    MPI_Type_contiguous(4, MPI_INT, &four);
    MPI_Type_commit(&four);
    for (i = 0; i < 4; i++) host[i] = 100 * rank + i;
    d_put(send, host, 4 * sizeof(int));
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    if (MPI_Allgather(send, odd ? 1 : 4, odd ? four : MPI_INT, recv, 4, MPI_INT, comm) != MPI_SUCCESS)
        CT_FAIL("allgather with contiguous(4, MPI_INT) against 4 x MPI_INT failed");
    d_get(host, recv, (size_t)size * 4 * sizeof(int));
    for (i = 0; i < 4 * size && i < 64; i++)
        if (host[i] != 100 * (i / 4) + i % 4) {
            CT_FAIL("allgather, same signature: element %d is %d, not %d", i, host[i], 100 * (i / 4) + i % 4);
            break;
        }
    MPI_Comm_free(&comm);
    for (i = 0; i < 8; i++) host[i] = rank == 1 ? 7 * i : -1;
    d_put(recv, host, 8 * sizeof(int));
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    if (MPI_Bcast(recv, odd ? 2 : 8, odd ? four : MPI_INT, 1 % size, comm) != MPI_SUCCESS)
        CT_FAIL("bcast with contiguous(4, MPI_INT) against 4 x MPI_INT failed");
    d_get(host, recv, 8 * sizeof(int));
    for (i = 0; i < 8; i++)
        if (host[i] != (size > 1 ? 7 * i : -1)) {
            CT_FAIL("bcast, same signature: element %d is %d", i, host[i]);
            break;
        }
    MPI_Comm_free(&comm);
    MPI_Type_free(&four);
    d_release(send);
    d_release(recv);
}

int main(int argc, char **argv)
{
    ct_type types[64];
    const char *const *op_names;
    const MPI_Op *ops;
    int ntypes, nops, t, o, rank, size, engines_on;
    static const int counts[] = {0, 1, 33};
    CUcontext ctx;
    CUdevice dev;
    MPI_Comm split;

    /* Settings are read once, at MPI_Init. test_staged_engines.sh runs this with the engines
     * on and a model whose cuMemCreate always fails, so that they decline every call. */
    setenv("MCOLL_ENGINE", "staged", 0);
    engines_on = strcmp(getenv("MCOLL_ENGINE"), "staged") != 0;
    setenv("MCOLL_CUDA_AWARE", "0", 1);
    setenv("MCOLL_STAGE_CHUNK", "64K", 1);
    devmem_mpi_init(&argc, &argv, &rank, &size, &dev);
    ctx = devmem_ctx;
    ntypes = ct_types(types);
    ops = ct_ops(&nops, &op_names);

    /* Every datatype and op, device buffers, small counts */
    for (t = 0; t < ntypes; t++) {
        for (o = 0; o < nops; o++) {
            int c;
            for (c = 0; c < 3; c++) ct_check_reductions(&device_mem, MPI_COMM_WORLD, &types[t], ops[o], op_names[o], counts[c]);
        }
        ct_check_movers(&device_mem, MPI_COMM_WORLD, &types[t], 1);
        ct_check_movers(&device_mem, MPI_COMM_WORLD, &types[t], 33);
        checkpoint();
    }
    /* The collectives with blocks per peer: spans that start past the pointer, gaps that keep
     * their contents, per-peer datatypes; on a ring and a graph for the neighbourhood ones */
    {
        MPI_Comm ring, graph;
        cb_make_topologies(&ring, &graph);
        for (t = 0; t < ntypes; t++) {
            int c;
            for (c = 0; c < 3; c++) {
                cb_check_all(&device_mem, MPI_COMM_WORLD, &types[t], counts[c]);
                cb_check_neighbors(&device_mem, ring, &types[t], counts[c]);
                if (graph != MPI_COMM_NULL) cb_check_neighbors(&device_mem, graph, &types[t], counts[c]);
            }
            if (types[t].type == MPI_INT || types[t].type == MPI_DOUBLE_INT) {
                host_next = 0;
                cb_check_all(&mixed_mem, MPI_COMM_WORLD, &types[t], 5);
                host_next = 1;
                cb_check_all(&mixed_mem, MPI_COMM_WORLD, &types[t], 5);
                cb_check_all(&device_mem, MPI_COMM_WORLD, &types[t], 20000);
            }
            checkpoint();
        }
        MPI_Comm_free(&ring);
        if (graph != MPI_COMM_NULL) MPI_Comm_free(&graph);
    }
    /* Chunked and pipelined: several chunks, a last short one, odd sizes, in and out of place */
    for (t = 0; t < ntypes; t++) {
        int big = (int)((200u << 10) / (unsigned)types[t].size) + 7;
        if (types[t].type != MPI_INT && types[t].type != MPI_DOUBLE && types[t].type != MCOLL_BFLOAT16 &&
            types[t].type != MPI_DOUBLE_INT && types[t].type != MPI_CHAR)
            continue;
        ct_check(&device_mem, MPI_COMM_WORLD, CT_ALLREDUCE, &types[t], MPI_MAX, "MAX", big, 0, 0);
        ct_check(&device_mem, MPI_COMM_WORLD, CT_ALLREDUCE, &types[t], MPI_MIN, "MIN", big, 1, 0);
        ct_check(&device_mem, MPI_COMM_WORLD, CT_REDUCE, &types[t], MPI_MAX, "MAX", big, 0, 1);
        ct_check(&device_mem, MPI_COMM_WORLD, CT_REDUCE, &types[t], MPI_MIN, "MIN", big, 1, 2);
        ct_check(&device_mem, MPI_COMM_WORLD, CT_BCAST, &types[t], MPI_OP_NULL, "-", big, 0, 3 % size);
        ct_check(&device_mem, MPI_COMM_WORLD, CT_RSB, &types[t], MPI_MAX, "MAX", big / 4, 1, 0);
        ct_check(&device_mem, MPI_COMM_WORLD, CT_RS, &types[t], MPI_MAX, "MAX", big / 4, 0, 0);
        ct_check(&device_mem, MPI_COMM_WORLD, CT_ALLGATHER, &types[t], MPI_OP_NULL, "-", big / 4, 1, 0);
        ct_check(&device_mem, MPI_COMM_WORLD, CT_SCAN, &types[t], MPI_MAX, "MAX", big, 1, 0);
        ct_check(&device_mem, MPI_COMM_WORLD, CT_EXSCAN, &types[t], MPI_MIN, "MIN", big, 0, 0);
        ct_check(&device_mem, MPI_COMM_WORLD, CT_REDUCE_LOCAL, &types[t], MPI_MAX, "MAX", big, 0, 0);
        ct_check(&mixed_mem, MPI_COMM_WORLD, CT_REDUCE_LOCAL, &types[t], MPI_MIN, "MIN", big, 0, 0);
        ct_check(&mixed_mem, MPI_COMM_WORLD, CT_ALLREDUCE, &types[t], MPI_MAX, "MAX", big, 0, 0);
        /* Only some ranks stage: all still cut the call into the same chunks. (With the engines
         * on, ranks must agree on the kind of buffer: the engines' set-up is collective.) */
        if (!engines_on) {
            ct_check(&by_rank_mem, MPI_COMM_WORLD, CT_ALLREDUCE, &types[t], MPI_MAX, "MAX", big, 0, 0);
            ct_check(&by_rank_mem, MPI_COMM_WORLD, CT_REDUCE, &types[t], MPI_MIN, "MIN", big, 1, 1);
            ct_check(&by_rank_mem, MPI_COMM_WORLD, CT_BCAST, &types[t], MPI_OP_NULL, "-", big, 0, 1);
            ct_check(&by_rank_mem, MPI_COMM_WORLD, CT_BCAST, &types[t], MPI_OP_NULL, "-", big, 0, 0);
            ct_check(&by_rank_mem, MPI_COMM_WORLD, CT_SCAN, &types[t], MPI_MIN, "MIN", big, 0, 0);
        }
        checkpoint();
    }
    /* Mixed host and device buffers in one call, both ways round */
    for (t = 0; t < ntypes; t++) {
        if (types[t].type != MPI_INT && types[t].type != MCOLL_FLOAT16 && types[t].type != MPI_2INT) continue;
        for (o = 0; o < nops; o++) {
            host_next = 0;
            ct_check_reductions(&mixed_mem, MPI_COMM_WORLD, &types[t], ops[o], op_names[o], 5);
            host_next = 1;
            ct_check_reductions(&mixed_mem, MPI_COMM_WORLD, &types[t], ops[o], op_names[o], 5);
        }
        host_next = 0;
        ct_check_movers(&mixed_mem, MPI_COMM_WORLD, &types[t], 9);
        host_next = 1;
        ct_check_movers(&mixed_mem, MPI_COMM_WORLD, &types[t], 9);
        checkpoint();
    }
    /* A split communicator, and an intercommunicator between the two halves of world */
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &split);
    MPI_Comm_set_errhandler(split, MPI_ERRORS_RETURN);
    for (t = 0; t < ntypes; t++)
        if (types[t].type == MPI_FLOAT) {
            ct_check_reductions(&device_mem, split, &types[t], MPI_SUM, "SUM", 17);
            ct_check_movers(&device_mem, split, &types[t], 17);
        }
    if (size >= 2) {
        MPI_Comm inter;
        ct_make_inter(&inter);
        for (t = 0; t < ntypes; t++)
            if (types[t].type == MPI_INT || types[t].type == MPI_SHORT_INT) {
                ct_check_inter(&device_mem, inter, rank % 2 == 0, &types[t], MPI_MAX, "MAX", 9);
                ct_check_inter(&device_mem, inter, rank % 2 == 1, &types[t], MPI_MAXLOC, "MAXLOC", 20000);
                ct_check_inter(&mixed_mem, inter, rank % 2 == 1, &types[t], MPI_MAX, "MAX", 5);
                cb_check_inter(&device_mem, inter, rank % 2 == 0, &types[t], 7);
                cb_check_inter(&device_mem, inter, rank % 2 == 1, &types[t], 2);
            }
        MPI_Comm_free(&inter);
    }
    MPI_Comm_free(&split);
    checkpoint();
    /* A datatype with gaps: the gaps of the device buffer keep their contents */
    ct_check_vector(&device_mem, MPI_COMM_WORLD, 20000);
    checkpoint();
    check_same_signature(rank, size);
    checkpoint();
    /* A thread with no current context: mcoll uses the buffer's primary context, then leaves
     * the thread as it found it. */
    {
        CUcontext now = (CUcontext)1;
        cu->cuCtxSetCurrent(NULL);
        for (t = 0; t < ntypes; t++)
            if (types[t].type == MPI_DOUBLE) ct_check(&device_mem, MPI_COMM_WORLD, CT_ALLREDUCE, &types[t], MPI_SUM, "SUM", 100, 0, 0);
        cu->cuCtxGetCurrent(&now);
        if (now != NULL) CT_FAIL("the context made current for staging was left current");
        cu->cuCtxSetCurrent(ctx);
        checkpoint();
    }

    return devmem_finish("mpi_staged", dev);
}
