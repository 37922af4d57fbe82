/* Run context; see context.h. */
#include "context.h"

#include <stdio.h>
#include <string.h>

#include "bench_coll.h"
#include "bench_cuda.h"
#include "bench_mem.h"

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
