/* Run context; see context.h. */
#include "context.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_coll.h"
#include "bench_cuda.h"
#include "bench_mem.h"

/* Where a rank runs: ranks with the same host and PCI bus id share a GPU (as NCCL sees it). */
typedef struct {
    char host[64];
    char bus[32];
} gpu_place;

static int same_place(const gpu_place *a, const gpu_place *b)
{
    return strcmp(a->host, b->host) == 0 && strcmp(a->bus, b->bus) == 0;
}

/* Collective: ngpus, and in shared_gpu the ranks on the first GPU that has more than one. */
static void learn_sharing(mb_ctx *ctx)
{
    gpu_place me, *all;
    int first = -1, groups = 0;
    memset(&me, 0, sizeof me);
    if (gethostname(me.host, sizeof me.host - 1) != 0)
        snprintf(me.host, sizeof me.host, "unknown");
    if (cudaDeviceGetPCIBusId(me.bus, (int)sizeof me.bus, ctx->device) != cudaSuccess)
        snprintf(me.bus, sizeof me.bus, "device %d", ctx->device);
    all = calloc((size_t)ctx->nranks, sizeof *all);
    if (!all)
        bench_fatal(__FILE__, __LINE__, "out of host memory");
    MPI_Allgather(&me, (int)sizeof me, MPI_BYTE, all, (int)sizeof me, MPI_BYTE, ctx->comm);
    ctx->ngpus = 0;
    for (int r = 0; r < ctx->nranks; r++) {
        int seen = 0, others = 0;
        for (int q = 0; q < ctx->nranks; q++) {
            if (q != r && same_place(&all[q], &all[r])) {
                seen |= q < r;
                others = 1;
            }
        }
        ctx->ngpus += !seen;
        if (!seen && others) {
            groups++;
            if (first < 0)
                first = r;
        }
    }
    ctx->shared_gpu[0] = '\0';
    if (first >= 0) {
        char ranks[64] = "";
        size_t used = 0;
        for (int r = first; r < ctx->nranks && used < sizeof ranks; r++)
            if (same_place(&all[r], &all[first]))
                used += (size_t)snprintf(ranks + used, sizeof ranks - used, "%s%d", used ? "," : "", r);
        snprintf(ctx->shared_gpu, sizeof ctx->shared_gpu, "ranks %s share GPU %s%s", ranks, all[first].bus,
                 groups > 1 ? " (and other ranks share other GPUs)" : "");
    }
    free(all);
}

void mb_ctx_init(mb_ctx *ctx, const mb_options *opt)
{
    int dev = -1;
    memset(ctx, 0, sizeof *ctx);
    ctx->opt = opt;
    ctx->comm = MPI_COMM_WORLD;
    ctx->mpi_comm = ctx->mcoll_mpi_comm = MPI_COMM_NULL;
    MPI_Comm_rank(ctx->comm, &ctx->rank);
    MPI_Comm_size(ctx->comm, &ctx->nranks);
    BENCH_CUDA(cudaGetDevice(&dev));
    ctx->device = dev;
    learn_sharing(ctx);
    ctx->dtype = opt->dtype;
    ctx->mpi_dtype = bench_dtype_mpi(opt->dtype);
    for (int p = 0; p < MB_NPEERS; p++) {
        ctx->peer[p].name = mb_peer_name(p);
        ctx->peer[p].enabled = opt->peer[p];
        ctx->peer[p].nccl_ref = -1;
        snprintf(ctx->peer[p].why, sizeof ctx->peer[p].why, "not set up");
    }

    /* A non-blocking stream: the staged peer's cudaMemcpy on the legacy stream must not
     * serialise with it. */
    BENCH_CUDA(cudaStreamCreateWithFlags(&ctx->stream, cudaStreamNonBlocking));
    BENCH_CUDA(cudaEventCreate(&ctx->start));
    BENCH_CUDA(cudaEventCreate(&ctx->stop));

    /* Every collective's send and receive buffers fit in max_bytes (sizes count the full
     * vector), rounded up to whole elements. */
    ctx->buf_bytes = (opt->max_bytes + 2 * opt->dtype->size) / opt->dtype->size * opt->dtype->size;
    ctx->d_send = bench_mem_alloc(BENCH_MEM_CUDA, ctx->buf_bytes);
    ctx->d_recv = bench_mem_alloc(BENCH_MEM_CUDA, ctx->buf_bytes);
    ctx->h_send = bench_mem_alloc(BENCH_MEM_PINNED, ctx->buf_bytes);
    ctx->h_recv = bench_mem_alloc(BENCH_MEM_PINNED, ctx->buf_bytes);
    for (int p = 0; p < MB_NPEERS; p++) {
        ctx->peer[p].d_send = ctx->d_send;
        ctx->peer[p].d_recv = ctx->d_recv;
    }

    /* Timed calls reduce small integers: never uninitialised memory, whose denormals or NaNs
     * could slow the host reductions of the staged peer. */
    size_t elems = ctx->buf_bytes / opt->dtype->size;
    bench_dtype_fill(opt->dtype, ctx->h_send, elems, 0, 1, ctx->rank, 0);
    BENCH_CUDA(cudaMemcpy(ctx->d_send, ctx->h_send, ctx->buf_bytes, cudaMemcpyHostToDevice));
    BENCH_CUDA(cudaMemcpy(ctx->d_recv, ctx->h_send, ctx->buf_bytes, cudaMemcpyHostToDevice));
    BENCH_CUDA(cudaDeviceSynchronize());
}

void mb_ctx_fini(mb_ctx *ctx)
{
    bench_mem_free(BENCH_MEM_PINNED, ctx->h_recv);
    bench_mem_free(BENCH_MEM_PINNED, ctx->h_send);
    bench_mem_free(BENCH_MEM_CUDA, ctx->d_recv);
    bench_mem_free(BENCH_MEM_CUDA, ctx->d_send);
    BENCH_CUDA(cudaEventDestroy(ctx->stop));
    BENCH_CUDA(cudaEventDestroy(ctx->start));
    BENCH_CUDA(cudaStreamDestroy(ctx->stream));
}

int mb_agree(mb_ctx *ctx, int ok, char *why, size_t len)
{
    int first_bad = ok ? ctx->nranks : ctx->rank, lowest;
    MPI_Allreduce(&first_bad, &lowest, 1, MPI_INT, MPI_MIN, ctx->comm);
    if (lowest == ctx->nranks)
        return 1;
    char text[512];
    snprintf(text, sizeof text, "%s", ctx->rank == lowest ? why : "");
    MPI_Bcast(text, (int)sizeof text, MPI_CHAR, lowest, ctx->comm);
    if (lowest != 0)
        snprintf(why, len, "rank %d: %s", lowest, text);
    else
        snprintf(why, len, "%s", text);
    return 0;
}
