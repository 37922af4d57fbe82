/* The mcoll-window peer: the mcoll peer's native calls on buffers carved from one
 * mcoll_mem_alloc window, the send buffer at its start and the receive buffer after it, at the
 * same offsets on every rank (the symmetric rule of mcoll.h). Allreduce, reduce, bcast,
 * reduce_scatter and allgather then run zero-copy where mcoll can (docs/memory.md: the unicast
 * engine, aligned buffers, reduce_scatter out of place); the rest run staged, on the same window
 * buffers. Which
 * path a point took is read from mcoll_comm_info around its first call (measure.c). */
#include <stdio.h>
#include <string.h>

#include "bench_cuda.h"
#include "context.h"
#include "mcoll.h"

static int launch(mb_ctx *ctx, const mb_op *op, char *err, size_t len)
{
    const mb_peer *p = &ctx->peer[MB_MCOLL_WINDOW];
    if (op->coll == BENCH_BARRIER) {
        snprintf(err, len, "no buffers: the mcoll row is the same call");
        return -1;
    }
    return mb_mcoll_call(ctx, op, p->d_send, p->d_recv, err, len);
}

void mb_window_setup(mb_ctx *ctx)
{
    mb_peer *p = &ctx->peer[MB_MCOLL_WINDOW];
    /* The receive buffer starts on a page of its own, so both are aligned alike on every rank. */
    const size_t half = (ctx->buf_bytes + 4095) & ~(size_t)4095;
    char why[256] = "";
    void *base = NULL;
    mcoll_result rc;

    p->launch = launch;
    p->kind = MB_STREAM;
    p->nccl_ref = MB_NCCL;
    p->probe_zero_copy = 1;
    if (!p->enabled)
        return;
    if (!ctx->mcoll) {
        snprintf(p->why, sizeof p->why, "no mcoll communicator: %.200s", ctx->mcoll_desc);
        return;
    }
    /* Collective, and its refusals are agreed: every rank gets the same result. */
    rc = mcoll_mem_alloc(ctx->mcoll, 2 * half, &base);
    if (rc != MCOLL_SUCCESS) {
        const char *warning = mcoll_last_warning();
        snprintf(why, sizeof why, "mcoll_mem_alloc of %zu bytes: %s%s%s", 2 * half, mcoll_strerror(rc),
                 warning && *warning ? ": " : "", warning ? warning : "");
        mb_agree(ctx, 0, why, sizeof why);
        snprintf(p->why, sizeof p->why, "%s", why);
        return;
    }
    ctx->window = base;
    p->d_send = base;
    p->d_recv = (char *)base + half;
    /* The timing input, as in the context's buffers. */
    BENCH_CUDA(cudaMemcpy(p->d_send, ctx->d_send, ctx->buf_bytes, cudaMemcpyDeviceToDevice));
    BENCH_CUDA(cudaMemcpy(p->d_recv, ctx->d_recv, ctx->buf_bytes, cudaMemcpyDeviceToDevice));
    BENCH_CUDA(cudaDeviceSynchronize());
    p->ready = 1;
}

void mb_window_teardown(mb_ctx *ctx)
{
    if (ctx->window && ctx->mcoll)
        mcoll_mem_free(ctx->mcoll, ctx->window);
    ctx->window = NULL;
}
