/* One measurement; see measure.h. */
#include "measure.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_cuda.h"
#include "bench_stats.h"

/* After the first call, a peer that fails mid-measurement has left other ranks inside a
 * collective: the job cannot continue. */
static void launch_or_die(mb_ctx *ctx, const mb_peer *p, const mb_op *op)
{
    char err[320], msg[400];
    if (p->launch(ctx, op, err, sizeof err) != 0) {
        snprintf(msg, sizeof msg, "%s %s: %s", p->name, bench_coll_name(op->coll), err);
        bench_fatal(__FILE__, __LINE__, msg);
    }
}

static void settle(mb_ctx *ctx)
{
    BENCH_CUDA(cudaStreamSynchronize(ctx->stream));
    MPI_Barrier(ctx->comm);
}

/* Microseconds per call for this rank. `exec` replaces the n calls for graph peers. */
static double time_batch(mb_ctx *ctx, const mb_peer *p, const mb_op *op, int n, cudaGraphExec_t exec)
{
    float ms = 0;
    settle(ctx);
    if (p->kind == MB_BLOCKING) {
        double t0 = MPI_Wtime();
        for (int i = 0; i < n; i++)
            launch_or_die(ctx, p, op);
        return (MPI_Wtime() - t0) * 1e6 / n;
    }
    BENCH_CUDA(cudaEventRecord(ctx->start, ctx->stream));
    if (exec) {
        BENCH_CUDA(cudaGraphLaunch(exec, ctx->stream));
    } else {
        for (int i = 0; i < n; i++)
            launch_or_die(ctx, p, op);
    }
    BENCH_CUDA(cudaEventRecord(ctx->stop, ctx->stream));
    BENCH_CUDA(cudaEventSynchronize(ctx->stop));
    BENCH_CUDA(cudaEventElapsedTime(&ms, ctx->start, ctx->stop));
    return ms * 1e3 / n;
}

/* A graph of n calls. Returns 0, or -1 with the reason (the stream is usable again). */
static int capture(mb_ctx *ctx, const mb_peer *p, const mb_op *op, int n, cudaGraphExec_t *exec,
                   char *why, size_t len)
{
    cudaGraph_t graph = NULL;
    cudaError_t e = cudaStreamBeginCapture(ctx->stream, cudaStreamCaptureModeThreadLocal);
    int rc = 0;
    if (e != cudaSuccess) {
        snprintf(why, len, "cudaStreamBeginCapture: %s", cudaGetErrorString(e));
        return -1;
    }
    for (int i = 0; i < n && rc == 0; i++)
        rc = p->launch(ctx, op, why, len);
    e = cudaStreamEndCapture(ctx->stream, &graph);
    if (rc == 0 && e != cudaSuccess)
        snprintf(why, len, "CUDA graph capture: %s", cudaGetErrorString(e));
    if (rc == 0 && e == cudaSuccess) {
        e = cudaGraphInstantiateWithFlags(exec, graph, 0);
        if (e != cudaSuccess)
            snprintf(why, len, "cudaGraphInstantiate: %s", cudaGetErrorString(e));
    }
    if (graph)
        cudaGraphDestroy(graph);
    if (rc != 0 || e != cudaSuccess) {
        cudaGetLastError(); /* clear the capture error so the stream can be used again */
        *exec = NULL;
        return -1;
    }
    return 0;
}

/* Elements wrong over all ranks after one call (one replay) on fresh input. */
static long long check(mb_ctx *ctx, const mb_peer *p, const mb_op *op, cudaGraphExec_t exec)
{
    const bench_dtype *t = ctx->dtype;
    size_t send_bytes = op->shape.send_elems * t->size, recv_bytes = op->shape.recv_elems * t->size;
    long long bad, total = 0;

    ctx->seed = ctx->seed % 1000 + 1; /* 0 is the timing input */
    bench_check_inputs(op->coll, t, &op->shape, ctx->rank, 0, ctx->seed, ctx->h_send, ctx->h_recv);
    BENCH_CUDA(cudaMemcpy(ctx->d_send, ctx->h_send, send_bytes, cudaMemcpyHostToDevice));
    BENCH_CUDA(cudaMemcpy(ctx->d_recv, ctx->h_recv, recv_bytes, cudaMemcpyHostToDevice));
    settle(ctx);
    if (exec)
        BENCH_CUDA(cudaGraphLaunch(exec, ctx->stream));
    else
        launch_or_die(ctx, p, op);
    BENCH_CUDA(cudaStreamSynchronize(ctx->stream));
    BENCH_CUDA(cudaMemcpy(ctx->h_recv, ctx->d_recv, recv_bytes, cudaMemcpyDeviceToHost));
    bad = (long long)bench_check_result(op->coll, t, &op->shape, ctx->rank, ctx->nranks, 0, ctx->seed,
                                        ctx->h_recv);
    MPI_Allreduce(&bad, &total, 1, MPI_LONG_LONG, MPI_SUM, ctx->comm);
    return total;
}

static int batch_length(const mb_ctx *ctx, double probe_us)
{
    double fit = ctx->opt->batch_ms * 1e3 / (probe_us > 0 ? probe_us : 1e-3);
    if (fit >= ctx->opt->iters)
        return ctx->opt->iters;
    return fit < 1 ? 1 : (int)ceil(fit);
}

void mb_measure(mb_ctx *ctx, int peer_id, const mb_op *op, mb_result *res)
{
    const mb_peer *p = &ctx->peer[peer_id];
    const mb_options *o = ctx->opt;
    cudaGraphExec_t exec = NULL;
    char why[320] = "";
    double local, probe, *mine, *slowest;
    int ok, n;

    memset(res, 0, sizeof *res);
    res->wrong = -1;

    /* 1. First call. Every rank learns whether all could issue it before anyone waits on the
     * stream: a collective issued on some ranks only would never end. */
    settle(ctx);
    ok = p->launch(ctx, op, why, sizeof why) == 0;
    if (!mb_agree(ctx, ok, why, sizeof why)) {
        snprintf(res->note, sizeof res->note, "%s", why);
        return;
    }
    BENCH_CUDA(cudaStreamSynchronize(ctx->stream));

    /* 2. One timed call (slowest rank), then the warm-up calls, as many as fit in one batch (at
     * most --warmup), timed together. The batch length comes from the faster of the two, so
     * one call slowed by the scheduler does not shrink every batch. */
    local = time_batch(ctx, p, op, 1, NULL);
    MPI_Allreduce(&local, &probe, 1, MPI_DOUBLE, MPI_MAX, ctx->comm);
    n = batch_length(ctx, probe);
    if (o->warmup > 0) {
        double warm;
        local = time_batch(ctx, p, op, o->warmup < n ? o->warmup : n, NULL);
        MPI_Allreduce(&local, &warm, 1, MPI_DOUBLE, MPI_MAX, ctx->comm);
        n = batch_length(ctx, warm < probe ? warm : probe);
    }
    settle(ctx);

    /* 3. The graph: N calls captured once, replayed once untimed. */
    if (p->kind == MB_GRAPH) {
        ok = capture(ctx, p, op, n, &exec, why, sizeof why) == 0;
        if (!mb_agree(ctx, ok, why, sizeof why)) {
            if (exec)
                cudaGraphExecDestroy(exec);
            snprintf(res->note, sizeof res->note, "%s", why);
            return;
        }
        BENCH_CUDA(cudaGraphLaunch(exec, ctx->stream));
    }

    /* 4. Timed batches. */
    mine = malloc(2 * (size_t)o->reps * sizeof *mine);
    if (!mine)
        bench_fatal(__FILE__, __LINE__, "out of host memory");
    slowest = mine + o->reps;
    for (int b = 0; b < o->reps; b++)
        mine[b] = time_batch(ctx, p, op, n, exec);
    MPI_Allreduce(mine, slowest, o->reps, MPI_DOUBLE, MPI_MAX, ctx->comm);
    bench_summary s = bench_summarize(slowest, o->reps);
    free(mine);
    res->ran = 1;
    res->iters = n;
    res->median_us = s.median;
    res->min_us = s.min;
    res->max_us = s.max;

    /* 5. Check. */
    if (o->check)
        res->wrong = check(ctx, p, op, exec);
    if (exec)
        BENCH_CUDA(cudaGraphExecDestroy(exec));
    settle(ctx);
}
