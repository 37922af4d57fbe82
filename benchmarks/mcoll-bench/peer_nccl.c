/* The NCCL peers, nccl (back to back on the stream) and nccl-graph (captured in a CUDA graph).
 * NCCL is loaded at run time with dlopen so that mcoll-bench builds and runs without it; the few
 * types used are declared here with NCCL's ABI values (nccl.h, stable since NCCL 2.0).
 * NCCL_NVLS_ENABLE is left as the environment has it. NCCL takes one rank per GPU (two ranks on
 * one GPU end ncclCommInitRank with "Duplicate GPU detected"), so where ranks share a GPU NCCL is
 * not initialised and the header says so in one line. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "context.h"

typedef struct nccl_comm *nccl_comm_t;
typedef struct { char internal[128]; } nccl_unique_id;
typedef int nccl_result;                    /* ncclResult_t: 0 is ncclSuccess */
enum { NCCL_SUM = 0, NCCL_MAX = 2, NCCL_MIN = 3 }; /* ncclRedOp_t */
enum {                                      /* ncclDataType_t */
    NCCL_INT8 = 0, NCCL_UINT8 = 1, NCCL_INT32 = 2, NCCL_UINT32 = 3, NCCL_INT64 = 4, NCCL_UINT64 = 5,
    NCCL_FLOAT32 = 7, NCCL_FLOAT64 = 8
};

struct mb_nccl {
    void *lib;
    nccl_comm_t comm;
    int dtype;
    char version[64];
    int shared;           /* ranks share a GPU: not measured (ctx->peer[MB_NCCL].why says why) */
    nccl_result (*get_version)(int *version);
    nccl_result (*get_unique_id)(nccl_unique_id *id);
    nccl_result (*comm_init_rank)(nccl_comm_t *comm, int nranks, nccl_unique_id id, int rank);
    nccl_result (*comm_destroy)(nccl_comm_t comm);
    const char *(*get_error_string)(nccl_result result);
    nccl_result (*all_reduce)(const void *send, void *recv, size_t count, int dtype, int op,
                              nccl_comm_t comm, cudaStream_t stream);
    nccl_result (*broadcast)(const void *send, void *recv, size_t count, int dtype, int root,
                             nccl_comm_t comm, cudaStream_t stream);
    nccl_result (*reduce)(const void *send, void *recv, size_t count, int dtype, int op, int root,
                          nccl_comm_t comm, cudaStream_t stream);
    nccl_result (*reduce_scatter)(const void *send, void *recv, size_t recvcount, int dtype, int op,
                                  nccl_comm_t comm, cudaStream_t stream);
    nccl_result (*all_gather)(const void *send, void *recv, size_t sendcount, int dtype,
                              nccl_comm_t comm, cudaStream_t stream);
};

static int nccl_type(const bench_dtype *t)
{
    switch (t->type) {
    case BENCH_T_CHAR:
    case BENCH_T_INT8: return NCCL_INT8;
    case BENCH_T_UINT8: return NCCL_UINT8;
    case BENCH_T_INT: return NCCL_INT32;
    case BENCH_T_UNSIGNED: return NCCL_UINT32;
    case BENCH_T_LONG: return t->size == 8 ? NCCL_INT64 : NCCL_INT32;
    case BENCH_T_INT64: return NCCL_INT64;
    case BENCH_T_UINT64: return NCCL_UINT64;
    case BENCH_T_FLOAT: return NCCL_FLOAT32;
    case BENCH_T_DOUBLE: return NCCL_FLOAT64;
    }
    return -1;
}

static const char *nccl_error(const struct mb_nccl *nc, nccl_result r)
{
    return nc->get_error_string ? nc->get_error_string(r) : "unknown NCCL error";
}

/* Resolve one entry point; a data pointer from dlsym is copied into the function pointer's
 * bytes, the conversion POSIX documents for dlsym. */
static int resolve(void *lib, const char *name, void *fn_ptr, size_t fn_size, char *why, size_t len)
{
    void *sym = dlsym(lib, name);
    if (!sym) {
        snprintf(why, len, "NCCL library lacks %s", name);
        return -1;
    }
    memcpy(fn_ptr, &sym, fn_size);
    return 0;
}

#define RESOLVE(nc, field, name) resolve((nc)->lib, name, &(nc)->field, sizeof (nc)->field, why, len)

static int load(struct mb_nccl *nc, const char *path, char *why, size_t len)
{
    int v = 0;
    nc->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!nc->lib) {
        const char *e = dlerror();
        snprintf(why, len, "NCCL not found (%s)", e ? e : path);
        return -1;
    }
    if (RESOLVE(nc, get_version, "ncclGetVersion") || RESOLVE(nc, get_unique_id, "ncclGetUniqueId") ||
        RESOLVE(nc, comm_init_rank, "ncclCommInitRank") || RESOLVE(nc, comm_destroy, "ncclCommDestroy") ||
        RESOLVE(nc, get_error_string, "ncclGetErrorString") || RESOLVE(nc, all_reduce, "ncclAllReduce") ||
        RESOLVE(nc, broadcast, "ncclBroadcast") || RESOLVE(nc, reduce, "ncclReduce") ||
        RESOLVE(nc, reduce_scatter, "ncclReduceScatter") || RESOLVE(nc, all_gather, "ncclAllGather"))
        return -1;
    if (nc->get_version(&v) == 0) {
        /* 2.9 and later encode MAJOR*10000 + MINOR*100 + PATCH; earlier ones MAJOR*1000 + ... */
        if (v >= 20900)
            snprintf(nc->version, sizeof nc->version, "%d.%d.%d", v / 10000, v / 100 % 100, v % 100);
        else
            snprintf(nc->version, sizeof nc->version, "%d.%d.%d", v / 1000, v / 100 % 10, v % 100);
    }
    return 0;
}

static int nccl_op(bench_op op)
{
    switch (op) {
    case BENCH_OP_MIN: return NCCL_MIN;
    case BENCH_OP_MAX: return NCCL_MAX;
    default: return NCCL_SUM;
    }
}

/* In place as nccl-tests does it, on MPI's layouts (peers.h): the send buffer is the receive
 * buffer (for reduce on the root; for allgather, this rank's block of it), and reduce_scatter
 * writes this rank's block of its input, which is the receive buffer. */
static int launch(mb_ctx *ctx, const mb_op *op, char *err, size_t len)
{
    struct mb_nccl *nc = ctx->nccl;
    size_t n = op->shape.count, es = ctx->dtype->size;
    int root = op->shape.root, rop = nccl_op(op->shape.op), ip = op->in_place;
    char *recv = ctx->d_recv;
    const void *send = ip && (op->coll != BENCH_REDUCE || ctx->rank == root) ? (const void *)recv : ctx->d_send;
    nccl_result r = 0;
    switch (op->coll) {
    case BENCH_ALLREDUCE:
        r = nc->all_reduce(send, recv, n, nc->dtype, rop, nc->comm, ctx->stream);
        break;
    case BENCH_BCAST:
        r = nc->broadcast(recv, recv, n, nc->dtype, root, nc->comm, ctx->stream);
        break;
    case BENCH_REDUCE:
        r = nc->reduce(send, recv, n, nc->dtype, rop, root, nc->comm, ctx->stream);
        break;
    case BENCH_REDUCE_SCATTER:
        r = nc->reduce_scatter(send, ip ? recv + op->shape.first * es : recv, n, nc->dtype, rop, nc->comm,
                               ctx->stream);
        break;
    case BENCH_ALLGATHER:
        r = nc->all_gather(ip ? recv + (size_t)ctx->rank * n * es : ctx->d_send, recv, n, nc->dtype, nc->comm,
                           ctx->stream);
        break;
    case BENCH_BARRIER:
        snprintf(err, len, "NCCL has no barrier");
        return -1;
    default:
        break;
    }
    if (r == 0)
        return 0;
    snprintf(err, len, "NCCL: %s", nccl_error(nc, r));
    return -1;
}

static void unavailable(mb_ctx *ctx, const char *why)
{
    snprintf(ctx->peer[MB_NCCL].why, sizeof ctx->peer[MB_NCCL].why, "%s", why);
    snprintf(ctx->peer[MB_NCCL_GRAPH].why, sizeof ctx->peer[MB_NCCL_GRAPH].why, "%s", why);
}

void mb_nccl_setup(mb_ctx *ctx)
{
    struct mb_nccl *nc;
    nccl_unique_id id;
    char why[256] = "";
    int ok;

    ctx->peer[MB_NCCL].kind = MB_STREAM;
    ctx->peer[MB_NCCL_GRAPH].kind = MB_GRAPH;
    ctx->peer[MB_NCCL].launch = ctx->peer[MB_NCCL_GRAPH].launch = launch;
    ctx->peer[MB_NCCL].rs_in_place_at_block = ctx->peer[MB_NCCL_GRAPH].rs_in_place_at_block = 1;
    if (!ctx->peer[MB_NCCL].enabled && !ctx->peer[MB_NCCL_GRAPH].enabled) {
        unavailable(ctx, "not chosen");
        return;
    }
    nc = calloc(1, sizeof *nc);
    if (!nc) {
        unavailable(ctx, "out of host memory");
        return;
    }
    ctx->nccl = nc;
    nc->dtype = nccl_type(ctx->dtype);
    ok = load(nc, ctx->opt->nccl_lib, why, sizeof why) == 0;
    if (!mb_agree(ctx, ok, why, sizeof why)) {
        unavailable(ctx, why);
        return;
    }
    /* Every rank holds the same answer (mb_ctx_init gathered it), so all return here together. */
    if (ctx->shared_gpu[0]) {
        nc->shared = 1;
        snprintf(why, sizeof why, "not measured: %s (NCCL allows one rank per GPU)", ctx->shared_gpu);
        unavailable(ctx, why);
        return;
    }
    /* Rank 0 makes the id, MPI carries it, every rank joins. */
    memset(&id, 0, sizeof id);
    nccl_result r = ctx->rank == 0 ? nc->get_unique_id(&id) : 0;
    ok = r == 0;
    if (!ok)
        snprintf(why, sizeof why, "ncclGetUniqueId: %s", nccl_error(nc, r));
    if (!mb_agree(ctx, ok, why, sizeof why)) {
        unavailable(ctx, why);
        return;
    }
    MPI_Bcast(&id, (int)sizeof id, MPI_BYTE, 0, ctx->comm);
    r = nc->comm_init_rank(&nc->comm, ctx->nranks, id, ctx->rank);
    ok = r == 0;
    if (!ok) {
        snprintf(why, sizeof why, "ncclCommInitRank: %s", nccl_error(nc, r));
        nc->comm = NULL;
    }
    if (!mb_agree(ctx, ok, why, sizeof why)) {
        if (nc->comm)
            nc->comm_destroy(nc->comm);
        nc->comm = NULL;
        unavailable(ctx, why);
        return;
    }
    ctx->peer[MB_NCCL].ready = ctx->peer[MB_NCCL_GRAPH].ready = 1;
    ctx->peer[MB_NCCL].why[0] = ctx->peer[MB_NCCL_GRAPH].why[0] = '\0';
}

void mb_nccl_teardown(mb_ctx *ctx)
{
    struct mb_nccl *nc = ctx->nccl;
    if (!nc)
        return;
    if (nc->comm)
        nc->comm_destroy(nc->comm);
    /* The library stays loaded: NCCL may still own threads until the process ends. */
    free(nc);
    ctx->nccl = NULL;
}

const char *mb_nccl_describe(const mb_ctx *ctx)
{
    static char text[768];
    const struct mb_nccl *nc = ctx->nccl;
    if (nc && nc->shared)
        snprintf(text, sizeof text, "%s; %s found (%s)", ctx->peer[MB_NCCL].why,
                 nc->version[0] ? nc->version : "version unknown", ctx->opt->nccl_lib);
    else if (nc && nc->lib && nc->comm)
        snprintf(text, sizeof text, "%s (%s)", nc->version[0] ? nc->version : "version unknown",
                 ctx->opt->nccl_lib);
    else if (nc && nc->version[0])
        snprintf(text, sizeof text, "%s found (%s) but not in use: %s", nc->version,
                 ctx->opt->nccl_lib, ctx->peer[MB_NCCL].why);
    else
        snprintf(text, sizeof text, "not in use: %s", ctx->peer[MB_NCCL].why);
    return text;
}
