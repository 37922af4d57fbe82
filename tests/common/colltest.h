/* Shared by the MPI tests: predefined datatypes with a way to fill and compare their values,
 * and checks that run one collective through the intercepted MPI_* entry point and the same
 * call through PMPI_* on separate host buffers, then compare return class and results
 * bitwise. The buffers given to MPI_* come from a colltest_mem (host memory, or "device"
 * memory of the contract driver), so the same checks cover the host and the staged paths. */
#ifndef MCOLL_TEST_COLLTEST_H
#define MCOLL_TEST_COLLTEST_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include "mcoll.h"

enum {
    K_INT, K_UINT, K_FLOAT, K_DOUBLE, K_LDOUBLE, K_BOOL, K_CFLOAT, K_CDOUBLE, K_CLDOUBLE,
    K_FLOAT_INT, K_DOUBLE_INT, K_LONG_INT, K_2INT, K_SHORT_INT, K_LDOUBLE_INT, K_HALF, K_BF16
};

typedef struct {
    MPI_Datatype type;
    const char *name;
    int kind;
    int size;   /* bytes per element in memory: the extent */
} ct_type;

/* Where the buffers handed to MPI_* live. */
typedef struct {
    void *(*alloc)(size_t bytes);
    void (*release)(void *p);
    void (*put)(void *dst, const void *host, size_t bytes);
    void (*get)(void *host, const void *src, size_t bytes);
} colltest_mem;

static int ct_failures;
static int ct_checks;
static int ct_verbose;

#define CT_FAIL(...)                                                         \
    do {                                                                     \
        int r_;                                                              \
        MPI_Comm_rank(MPI_COMM_WORLD, &r_);                                  \
        fprintf(stderr, "rank %d: FAIL ", r_);                               \
        fprintf(stderr, __VA_ARGS__);                                        \
        fprintf(stderr, "\n");                                               \
        ct_failures++;                                                       \
    } while (0)

#define CT_T(t, k) {t, #t, k, 0}
/* Fills `out` (at least 64 entries); call after MPI_Init. */
static inline int ct_types(ct_type *out)
{
    const ct_type list[] = {
        CT_T(MPI_CHAR, K_INT), CT_T(MPI_SIGNED_CHAR, K_INT), CT_T(MPI_UNSIGNED_CHAR, K_UINT),
        CT_T(MPI_BYTE, K_UINT), CT_T(MPI_SHORT, K_INT), CT_T(MPI_UNSIGNED_SHORT, K_UINT), CT_T(MPI_INT, K_INT),
        CT_T(MPI_UNSIGNED, K_UINT), CT_T(MPI_LONG, K_INT), CT_T(MPI_UNSIGNED_LONG, K_UINT),
        CT_T(MPI_LONG_LONG, K_INT), CT_T(MPI_UNSIGNED_LONG_LONG, K_UINT), CT_T(MPI_FLOAT, K_FLOAT),
        CT_T(MPI_DOUBLE, K_DOUBLE), CT_T(MPI_LONG_DOUBLE, K_LDOUBLE), CT_T(MPI_INT8_T, K_INT),
        CT_T(MPI_INT16_T, K_INT), CT_T(MPI_INT32_T, K_INT), CT_T(MPI_INT64_T, K_INT), CT_T(MPI_UINT8_T, K_UINT),
        CT_T(MPI_UINT16_T, K_UINT), CT_T(MPI_UINT32_T, K_UINT), CT_T(MPI_UINT64_T, K_UINT),
        CT_T(MPI_C_BOOL, K_BOOL), CT_T(MPI_WCHAR, K_UINT), CT_T(MPI_AINT, K_INT), CT_T(MPI_OFFSET, K_INT),
        CT_T(MPI_COUNT, K_INT), CT_T(MPI_C_FLOAT_COMPLEX, K_CFLOAT), CT_T(MPI_C_DOUBLE_COMPLEX, K_CDOUBLE),
        CT_T(MPI_C_LONG_DOUBLE_COMPLEX, K_CLDOUBLE), CT_T(MPI_FLOAT_INT, K_FLOAT_INT),
        CT_T(MPI_DOUBLE_INT, K_DOUBLE_INT), CT_T(MPI_LONG_INT, K_LONG_INT), CT_T(MPI_2INT, K_2INT),
        CT_T(MPI_SHORT_INT, K_SHORT_INT), CT_T(MPI_LONG_DOUBLE_INT, K_LDOUBLE_INT),
        CT_T(MPI_INTEGER, K_INT), CT_T(MPI_REAL, K_FLOAT), CT_T(MPI_DOUBLE_PRECISION, K_DOUBLE),
        CT_T(MPI_LOGICAL, K_BOOL), CT_T(MPI_2INTEGER, K_2INT),
    };
    int n = 0;
    size_t i;
    for (i = 0; i < sizeof list / sizeof list[0]; i++) out[n++] = list[i];
    out[n].type = MCOLL_FLOAT16; out[n].name = "MCOLL_FLOAT16"; out[n++].kind = K_HALF;
    out[n].type = MCOLL_BFLOAT16; out[n].name = "MCOLL_BFLOAT16"; out[n++].kind = K_BF16;
    for (i = 0; i < (size_t)n; i++) {
        MPI_Aint lb, extent;
        MPI_Type_get_extent(out[i].type, &lb, &extent);
        out[i].size = (int)extent;
    }
    return n;
}
#undef CT_T

static inline const MPI_Op *ct_ops(int *n, const char *const **names)
{
    static MPI_Op ops[12];
    static const char *const op_names[12] = {"SUM", "PROD", "MIN", "MAX", "LAND", "LOR", "LXOR",
                                             "BAND", "BOR", "BXOR", "MAXLOC", "MINLOC"};
    ops[0] = MPI_SUM; ops[1] = MPI_PROD; ops[2] = MPI_MIN; ops[3] = MPI_MAX; ops[4] = MPI_LAND;
    ops[5] = MPI_LOR; ops[6] = MPI_LXOR; ops[7] = MPI_BAND; ops[8] = MPI_BOR; ops[9] = MPI_BXOR;
    ops[10] = MPI_MAXLOC; ops[11] = MPI_MINLOC;
    *n = 12;
    *names = op_names;
    return ops;
}

/* Small values (1..3) so sums and products of four ranks stay exact in every type. */
static inline void ct_fill(const ct_type *t, void *buf, size_t n, int seed)
{
    static const uint16_t half[3] = {0x3c00, 0x4000, 0x4200};  /* 1, 2, 3 */
    static const uint16_t bf16[3] = {0x3f80, 0x4000, 0x4040};
    unsigned char *p = (unsigned char *)buf;
    size_t i;
    memset(buf, 0, n * (size_t)t->size);
    for (i = 0; i < n; i++, p += t->size) {
        int v = 1 + (int)((i * 7 + (size_t)seed) % 3);
        long long iv = v;
        switch (t->kind) {
        case K_INT: case K_UINT:
            if (t->size <= (int)sizeof iv) memcpy(p, &iv, (size_t)t->size);
            else { int k; for (k = 0; k + 4 <= t->size; k += 4) memcpy(p + k, &v, 4); } /* int vectors */
            break;
        case K_BOOL: iv = (long long)((i + (size_t)seed) % 2); memcpy(p, &iv, (size_t)t->size); break;
        case K_FLOAT: { float f = (float)v * 0.5f; memcpy(p, &f, sizeof f); break; }
        case K_DOUBLE: { double d = v * 0.25; memcpy(p, &d, sizeof d); break; }
        case K_LDOUBLE: { long double d = v; memcpy(p, &d, sizeof d); break; }
        case K_CFLOAT: { float f[2] = {(float)v, (float)(3 - v)}; memcpy(p, f, sizeof f); break; }
        case K_CDOUBLE: { double d[2] = {v, 3 - v}; memcpy(p, d, sizeof d); break; }
        case K_CLDOUBLE: { long double d[2] = {v, 3 - v}; memcpy(p, d, sizeof d); break; }
        case K_FLOAT_INT: { struct { float v; int k; } e = {(float)v, seed}; memcpy(p, &e, sizeof e); break; }
        case K_DOUBLE_INT: { struct { double v; int k; } e = {v, seed}; memcpy(p, &e, sizeof e); break; }
        case K_LONG_INT: { struct { long v; int k; } e = {v, seed}; memcpy(p, &e, sizeof e); break; }
        case K_2INT: { int e[2] = {v, seed}; memcpy(p, e, sizeof e); break; }
        case K_SHORT_INT: { struct { short v; int k; } e = {(short)v, seed}; memcpy(p, &e, sizeof e); break; }
        case K_LDOUBLE_INT: { struct { long double v; int k; } e = {v, seed}; memcpy(p, &e, sizeof e); break; }
        case K_HALF: memcpy(p, &half[v - 1], 2); break;
        case K_BF16: memcpy(p, &bf16[v - 1], 2); break;
        }
    }
}

/* Whether byte `off` of an element holds data (not struct padding, not the 6 unused bytes of
 * an x86 long double), which MPI may leave or write as it likes. */
static inline int ct_significant(int kind, size_t off)
{
    int ld16 = sizeof(long double) == 16;
    switch (kind) {
    case K_LDOUBLE: return !ld16 || off % 16 < 10;
    case K_CLDOUBLE: return !ld16 || off % 16 < 10;
    case K_LDOUBLE_INT: return ld16 ? off < 10 || (off >= 16 && off < 20) : 1;
    case K_DOUBLE_INT: case K_LONG_INT: return off < 12;
    case K_SHORT_INT: return off < 2 || off >= 4;
    default: return 1;
    }
}

/* Bitwise equality of the data bytes of n elements. */
static inline int ct_same(const ct_type *t, const void *a, const void *b, size_t n)
{
    const unsigned char *x = (const unsigned char *)a, *y = (const unsigned char *)b;
    size_t i;
    for (i = 0; i < n * (size_t)t->size; i++)
        if (x[i] != y[i] && ct_significant(t->kind, i % (size_t)t->size)) return 0;
    return 1;
}

/* The reductions of the 16-bit floats done by the test itself, to give PMPI a reference op:
 * exact for the small values ct_fill writes (decode, combine in float, encode a normal). */
static inline float ct_half_get(uint16_t h, int bf)
{
    if (bf) { uint32_t u = (uint32_t)h << 16; float f; memcpy(&f, &u, 4); return f; }
    if (!(h & 0x7fff)) return 0.0f;
    { uint32_t u = ((uint32_t)(h & 0x8000) << 16) | ((((h >> 10) & 0x1fu) + 112) << 23) | ((uint32_t)(h & 0x3ff) << 13);
      float f; memcpy(&f, &u, 4); return f; }
}
static inline uint16_t ct_half_put(float f, int bf)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    if (bf) return (uint16_t)(u >> 16);
    if (!(u & 0x7fffffff)) return (uint16_t)((u >> 16) & 0x8000);
    return (uint16_t)(((u >> 16) & 0x8000) | ((((u >> 23) & 0xff) - 112) << 10) | ((u >> 13) & 0x3ff));
}
static int ct_half_opcode;
static inline void ct_half_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    uint16_t *a = (uint16_t *)in, *b = (uint16_t *)inout;
    int i, bf = *dt == MCOLL_BFLOAT16;
    for (i = 0; i < *len; i++) {
        float x = ct_half_get(a[i], bf), y = ct_half_get(b[i], bf), r;
        switch (ct_half_opcode) {
        case 0: r = x + y; break;
        case 1: r = x * y; break;
        case 2: r = x < y ? x : y; break;
        default: r = x > y ? x : y; break;
        }
        b[i] = ct_half_put(r, bf);
    }
}

/* The op to give PMPI for the reference: the test's own for the 16-bit floats. */
static inline MPI_Op ct_ref_op(const ct_type *t, MPI_Op op, MPI_Op *made)
{
    *made = MPI_OP_NULL;
    if (t->kind != K_HALF && t->kind != K_BF16) return op;
    if (op == MPI_SUM) ct_half_opcode = 0;
    else if (op == MPI_PROD) ct_half_opcode = 1;
    else if (op == MPI_MIN) ct_half_opcode = 2;
    else if (op == MPI_MAX) ct_half_opcode = 3;
    else return op;
    MPI_Op_create(ct_half_fn, 1, made);
    return *made;
}

static inline int ct_class(int err)
{
    int c = err;
    if (err != MPI_SUCCESS) MPI_Error_class(err, &c);
    return c;
}

typedef enum {
    CT_ALLREDUCE, CT_REDUCE, CT_RSB, CT_RS, CT_BCAST, CT_ALLGATHER, CT_SCAN, CT_EXSCAN, CT_REDUCE_LOCAL
} ct_coll;
static const char *const ct_coll_names[] = {"allreduce", "reduce", "reduce_scatter_block", "reduce_scatter",
                                            "bcast", "allgather", "scan", "exscan", "reduce_local"};

/* One call of `coll` with `count` elements per block, through MPI_* on buffers of `mem` and
 * through PMPI_* on host buffers; in_place selects MPI_IN_PLACE; root for reduce and bcast
 * (on an intercommunicator: this rank's root argument, MPI_ROOT, MPI_PROC_NULL or a remote
 * rank). Counts: allreduce, reduce, bcast, scan, exscan, reduce_local: count; rsb: count per
 * rank; rs: count + rank % 2 for rank r (uneven); allgather: count per rank. Reduce_local
 * (never in place) reduces sendbuf into a recvbuf that holds data too. Exscan's recvbuf at
 * rank 0, which MPI leaves undefined, must come back as it was (Open MPI does not write it; the
 * staged path reads it before it writes it back). */
static inline void ct_check(const colltest_mem *mem, MPI_Comm comm, ct_coll coll, const ct_type *t, MPI_Op op,
                            const char *opname, int count, int in_place, int root)
{
    int rank, size, i, rc_mc, rc_ref, *counts = NULL, inter = 0, remote, is_root;
    size_t send_n, recv_n, es = (size_t)t->size;
    unsigned char *send, *recv_init, *ref_recv, *ref_send, *got_recv, *got_send;
    void *d_send, *d_recv;
    MPI_Op made, ref_op = ct_ref_op(t, op, &made);

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Comm_test_inter(comm, &inter);
    remote = size;
    if (inter) MPI_Comm_remote_size(comm, &remote);
    is_root = inter ? root == MPI_ROOT : rank == root;
    switch (coll) {
    case CT_ALLREDUCE: case CT_REDUCE: case CT_BCAST: case CT_SCAN: case CT_EXSCAN: case CT_REDUCE_LOCAL:
        send_n = recv_n = (size_t)count;
        break;
    case CT_RSB: send_n = (size_t)count * (size_t)size; recv_n = in_place ? send_n : (size_t)count; break;
    case CT_RS:
        counts = (int *)malloc(sizeof(int) * (size_t)size);
        for (send_n = 0, i = 0; i < size; i++) send_n += (size_t)(counts[i] = count + i % 2);
        recv_n = in_place ? send_n : (size_t)counts[rank];
        break;
    default: send_n = (size_t)count; recv_n = (size_t)count * (size_t)remote; break;
    }
    send = (unsigned char *)malloc(send_n * es + 1);
    ref_send = (unsigned char *)malloc(send_n * es + 1);
    got_send = (unsigned char *)malloc(send_n * es + 1);
    recv_init = (unsigned char *)malloc(recv_n * es + 1);
    ref_recv = (unsigned char *)malloc(recv_n * es + 1);
    got_recv = (unsigned char *)malloc(recv_n * es + 1);
    ct_fill(t, send, send_n, rank + 1);
    memset(recv_init, 0xa5, recv_n * es);
    if (in_place) {
        if (coll == CT_ALLGATHER) ct_fill(t, recv_init + (size_t)rank * (size_t)count * es, (size_t)count, rank + 1);
        else ct_fill(t, recv_init, recv_n, rank + 1);
    }
    if (coll == CT_BCAST) ct_fill(t, recv_init, recv_n, is_root ? 7 : rank + 11);
    if (coll == CT_REDUCE_LOCAL) ct_fill(t, recv_init, recv_n, rank + 5);
    memcpy(ref_send, send, send_n * es);
    memcpy(ref_recv, recv_init, recv_n * es);
    d_send = mem->alloc(send_n * es + 1);
    d_recv = mem->alloc(recv_n * es + 1);
    mem->put(d_send, send, send_n * es);
    mem->put(d_recv, recv_init, recv_n * es);

#define CT_SB(buf) (in_place ? MPI_IN_PLACE : (void *)(buf))
    switch (coll) {
    case CT_ALLREDUCE:
        rc_mc = MPI_Allreduce(CT_SB(d_send), d_recv, count, t->type, op, comm);
        rc_ref = PMPI_Allreduce(CT_SB(ref_send), ref_recv, count, t->type, ref_op, comm);
        break;
    case CT_REDUCE:
        rc_mc = MPI_Reduce(in_place && is_root ? MPI_IN_PLACE : d_send, d_recv, count, t->type, op, root, comm);
        rc_ref = PMPI_Reduce(in_place && is_root ? MPI_IN_PLACE : ref_send, ref_recv, count, t->type, ref_op, root, comm);
        break;
    case CT_RSB:
        rc_mc = MPI_Reduce_scatter_block(CT_SB(d_send), d_recv, count, t->type, op, comm);
        rc_ref = PMPI_Reduce_scatter_block(CT_SB(ref_send), ref_recv, count, t->type, ref_op, comm);
        break;
    case CT_RS:
        rc_mc = MPI_Reduce_scatter(CT_SB(d_send), d_recv, counts, t->type, op, comm);
        rc_ref = PMPI_Reduce_scatter(CT_SB(ref_send), ref_recv, counts, t->type, ref_op, comm);
        break;
    case CT_BCAST:
        rc_mc = MPI_Bcast(d_recv, count, t->type, root, comm);
        rc_ref = PMPI_Bcast(ref_recv, count, t->type, root, comm);
        break;
    case CT_SCAN:
        rc_mc = MPI_Scan(CT_SB(d_send), d_recv, count, t->type, op, comm);
        rc_ref = PMPI_Scan(CT_SB(ref_send), ref_recv, count, t->type, ref_op, comm);
        break;
    case CT_EXSCAN:
        rc_mc = MPI_Exscan(CT_SB(d_send), d_recv, count, t->type, op, comm);
        rc_ref = PMPI_Exscan(CT_SB(ref_send), ref_recv, count, t->type, ref_op, comm);
        if (rank == 0) memcpy(ref_recv, recv_init, recv_n * es); /* undefined there */
        break;
    case CT_REDUCE_LOCAL:
        rc_mc = MPI_Reduce_local(d_send, d_recv, count, t->type, op);
        rc_ref = PMPI_Reduce_local(ref_send, ref_recv, count, t->type, ref_op);
        break;
    default:
        rc_mc = MPI_Allgather(CT_SB(d_send), count, t->type, d_recv, count, t->type, comm);
        rc_ref = PMPI_Allgather(CT_SB(ref_send), count, t->type, ref_recv, count, t->type, comm);
        break;
    }
#undef CT_SB
    mem->get(got_recv, d_recv, recv_n * es);
    mem->get(got_send, d_send, send_n * es);
    ct_checks++;
    if (ct_class(rc_mc) != ct_class(rc_ref))
        CT_FAIL("%s %s %s count %d%s: returned class %d, PMPI %d", ct_coll_names[coll], t->name, opname, count,
                in_place ? " in place" : "", ct_class(rc_mc), ct_class(rc_ref));
    /* In-place reduce-scatter leaves only this rank's block defined. */
    else if (!ct_same(t, got_recv, ref_recv, coll == CT_RS && in_place ? (size_t)counts[rank]
                                                : coll == CT_RSB && in_place ? (size_t)count : recv_n))
        CT_FAIL("%s %s %s count %d%s root %d: result differs from PMPI", ct_coll_names[coll], t->name, opname, count,
                in_place ? " in place" : "", root);
    else if (memcmp(got_send, send, send_n * es))
        CT_FAIL("%s %s %s count %d: send buffer modified", ct_coll_names[coll], t->name, opname, count);
    else if (ct_verbose)
        printf("ok %s %s %s count %d%s -> %d\n", ct_coll_names[coll], t->name, opname, count, in_place ? " in place" : "", rc_mc);
    mem->release(d_send);
    mem->release(d_recv);
    free(send); free(ref_send); free(got_send); free(recv_init); free(ref_recv); free(got_recv); free(counts);
    if (made != MPI_OP_NULL) MPI_Op_free(&made);
}

/* Every reduction of one datatype and op, in and out of place, on `comm` (reduce_local too,
 * which has no communicator). */
static inline void ct_check_reductions(const colltest_mem *mem, MPI_Comm comm, const ct_type *t, MPI_Op op,
                                       const char *opname, int count)
{
    int size;
    MPI_Comm_size(comm, &size);
    ct_check(mem, comm, CT_ALLREDUCE, t, op, opname, count, 0, 0);
    ct_check(mem, comm, CT_ALLREDUCE, t, op, opname, count, 1, 0);
    ct_check(mem, comm, CT_REDUCE, t, op, opname, count, 0, 0);
    ct_check(mem, comm, CT_REDUCE, t, op, opname, count, 1, size - 1);
    ct_check(mem, comm, CT_RSB, t, op, opname, count, 0, 0);
    ct_check(mem, comm, CT_RSB, t, op, opname, count, 1, 0);
    ct_check(mem, comm, CT_RS, t, op, opname, count, 0, 0);
    ct_check(mem, comm, CT_RS, t, op, opname, count, 1, 0);
    ct_check(mem, comm, CT_SCAN, t, op, opname, count, 0, 0);
    ct_check(mem, comm, CT_SCAN, t, op, opname, count, 1, 0);
    ct_check(mem, comm, CT_EXSCAN, t, op, opname, count, 0, 0);
    ct_check(mem, comm, CT_EXSCAN, t, op, opname, count, 1, 0);
    ct_check(mem, comm, CT_REDUCE_LOCAL, t, op, opname, count, 0, 0);
}

/* Broadcast from the first and last rank, allgather in and out of place. */
static inline void ct_check_movers(const colltest_mem *mem, MPI_Comm comm, const ct_type *t, int count)
{
    int size;
    MPI_Comm_size(comm, &size);
    ct_check(mem, comm, CT_BCAST, t, MPI_OP_NULL, "-", count, 0, 0);
    ct_check(mem, comm, CT_BCAST, t, MPI_OP_NULL, "-", count, 0, size - 1);
    ct_check(mem, comm, CT_ALLGATHER, t, MPI_OP_NULL, "-", count, 0, 0);
    ct_check(mem, comm, CT_ALLGATHER, t, MPI_OP_NULL, "-", count, 1, 0);
}

/* Every collective on an intercommunicator (no MPI_IN_PLACE there); the root is rank 0 of the
 * group that has `in_root_group` set. */
static inline void ct_check_inter(const colltest_mem *mem, MPI_Comm inter, int in_root_group, const ct_type *t,
                                  MPI_Op op, const char *opname, int count)
{
    int rank, root, size, remote;
    MPI_Comm_rank(inter, &rank);
    MPI_Comm_size(inter, &size);
    MPI_Comm_remote_size(inter, &remote);
    root = in_root_group ? (rank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    ct_check(mem, inter, CT_ALLREDUCE, t, op, opname, count, 0, 0);
    ct_check(mem, inter, CT_REDUCE, t, op, opname, count, 0, root);
    /* Both groups reduce vectors of one length: with these counts, groups of one size. */
    if (size == remote) {
        ct_check(mem, inter, CT_RSB, t, op, opname, count, 0, 0);
        ct_check(mem, inter, CT_RS, t, op, opname, count, 0, 0);
    }
    ct_check(mem, inter, CT_BCAST, t, MPI_OP_NULL, "-", count, 0, root);
    ct_check(mem, inter, CT_ALLGATHER, t, MPI_OP_NULL, "-", count, 0, 0);
}

/* The vector type of ct_check_vector: 3 ints at stride 2, resized to 24 bytes. A user op that
 * sums the ints and leaves the gaps alone. */
static inline void ct_vector_sum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    int *a = (int *)in, *b = (int *)inout, i, k;
    (void)dt;
    for (i = 0; i < *len; i++)
        for (k = 0; k < 3; k++) b[i * 6 + k * 2] += a[i * 6 + k * 2];
}

/* A datatype with gaps: broadcast, allgather and the reductions with a user-defined op, each
 * against PMPI (the gaps of the receive buffers must keep their contents); a built-in op on it
 * is refused alike. big > 0 adds calls of `big` elements. */
static inline void ct_check_vector(const colltest_mem *mem, MPI_Comm comm, int big)
{
    MPI_Datatype vec, r;
    MPI_Op op;
    int size;
    ct_type v = {MPI_DATATYPE_NULL, "vector(3,1,2) of MPI_INT", K_INT, 24};
    MPI_Comm_size(comm, &size);
    MPI_Type_vector(3, 1, 2, MPI_INT, &vec);
    MPI_Type_create_resized(vec, 0, 24, &r);
    MPI_Type_commit(&r);
    MPI_Op_create(ct_vector_sum, 1, &op);
    v.type = r;
    ct_check(mem, comm, CT_BCAST, &v, MPI_OP_NULL, "-", 5, 0, size - 1);
    ct_check(mem, comm, CT_ALLGATHER, &v, MPI_OP_NULL, "-", 3, 0, 0);
    ct_check(mem, comm, CT_ALLGATHER, &v, MPI_OP_NULL, "-", 3, 1, 0);
    ct_check(mem, comm, CT_ALLREDUCE, &v, op, "user sum", 4, 0, 0);
    ct_check(mem, comm, CT_ALLREDUCE, &v, op, "user sum", 4, 1, 0);
    ct_check(mem, comm, CT_REDUCE, &v, op, "user sum", 4, 0, 0);
    ct_check(mem, comm, CT_RSB, &v, op, "user sum", 2, 0, 0);
    ct_check(mem, comm, CT_RS, &v, op, "user sum", 2, 1, 0);
    ct_check(mem, comm, CT_ALLREDUCE, &v, MPI_SUM, "SUM", 4, 0, 0);
    if (big > 0) {
        ct_check(mem, comm, CT_BCAST, &v, MPI_OP_NULL, "-", big, 0, 0);
        ct_check(mem, comm, CT_ALLREDUCE, &v, op, "user sum", big, 1, 0);
    }
    MPI_Op_free(&op);
    MPI_Type_free(&vec);
    MPI_Type_free(&r);
}

/* An intercommunicator between the even and the odd ranks of world (size >= 2). */
static inline void ct_make_inter(MPI_Comm *inter)
{
    MPI_Comm halves;
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &halves); /* leaders: world ranks 0 and 1 */
    MPI_Intercomm_create(halves, 0, MPI_COMM_WORLD, rank % 2 ? 0 : 1, 11, inter);
    MPI_Comm_set_errhandler(*inter, MPI_ERRORS_RETURN);
    MPI_Comm_free(&halves);
}

/* Exit status for tests/run.sh: 0 when no rank failed. */
static inline int ct_finish(const char *name)
{
    int mine = ct_failures, all = 0, rank, checks = ct_checks, total = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PMPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    PMPI_Allreduce(&checks, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) printf("%s: %d checks, %d failures\n", name, total, all);
    return all ? 1 : 0;
}

#endif /* MCOLL_TEST_COLLTEST_H */
