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

/* Microseconds per call for this rank. `exec` (a graph of the n calls, launched `launches`
 * times) replaces the n calls for graph peers. */
static double time_batch(mb_ctx *ctx, const mb_peer *p, const mb_op *op, int n, cudaGraphExec_t exec,
                         int launches)
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
        for (int g = 0; g < launches; g++)
            BENCH_CUDA(cudaGraphLaunch(exec, ctx->stream));
    } else {
        launches = 1;
        for (int i = 0; i < n; i++)
            launch_or_die(ctx, p, op);
    }
    BENCH_CUDA(cudaEventRecord(ctx->stop, ctx->stream));
    BENCH_CUDA(cudaEventSynchronize(ctx->stop));
    BENCH_CUDA(cudaEventElapsedTime(&ms, ctx->start, ctx->stop));
    return ms * 1e3 / ((double)n * launches);
}

/* Every rank's batch times into one per batch, as -a says: rank 0's, the mean, the minimum or
 * the maximum (a collective is done when its slowest rank is). */
static void combine(mb_ctx *ctx, double *mine, double *out, int n)
{
    switch (ctx->opt->average) {
    case 0:
        memcpy(out, mine, (size_t)n * sizeof *out);
        MPI_Bcast(out, n, MPI_DOUBLE, 0, ctx->comm);
        break;
    case 1:
        MPI_Allreduce(mine, out, n, MPI_DOUBLE, MPI_SUM, ctx->comm);
        for (int i = 0; i < n; i++)
            out[i] /= ctx->nranks;
        break;
    case 2: MPI_Allreduce(mine, out, n, MPI_DOUBLE, MPI_MIN, ctx->comm); break;
    default: MPI_Allreduce(mine, out, n, MPI_DOUBLE, MPI_MAX, ctx->comm); break;
    }
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
    size_t send_bytes = op->shape.send_elems * t->size;
    size_t recv_bytes = bench_recv_buffer_elems(op->coll, &op->shape, op->in_place) * t->size;
    long long bad, total = 0;

    ctx->seed = ctx->seed % 1000 + 1; /* 0 is the timing input */
    bench_check_inputs(op->coll, t, &op->shape, ctx->rank, op->in_place, ctx->seed, ctx->h_send, ctx->h_recv);
    BENCH_CUDA(cudaMemcpy(p->d_send, ctx->h_send, send_bytes, cudaMemcpyHostToDevice));
    BENCH_CUDA(cudaMemcpy(p->d_recv, ctx->h_recv, recv_bytes, cudaMemcpyHostToDevice));
    settle(ctx);
    if (exec)
        BENCH_CUDA(cudaGraphLaunch(exec, ctx->stream));
    else
        launch_or_die(ctx, p, op);
    BENCH_CUDA(cudaStreamSynchronize(ctx->stream));
    BENCH_CUDA(cudaMemcpy(ctx->h_recv, p->d_recv, recv_bytes, cudaMemcpyDeviceToHost));
    if (op->in_place && op->coll == BENCH_REDUCE_SCATTER && p->rs_in_place_at_block)
        memmove(ctx->h_recv, (char *)ctx->h_recv + op->shape.first * t->size, op->shape.count * t->size);
    bad = (long long)bench_check_result(op->coll, t, &op->shape, ctx->rank, ctx->nranks, op->in_place, ctx->seed,
                                        ctx->h_recv);
    MPI_Allreduce(&bad, &total, 1, MPI_LONG_LONG, MPI_SUM, ctx->comm);
    return total;
}

/* In place, and for bcast's one buffer, the calls read the receive buffer, where an earlier
 * check may have left 0xff bytes (NaN as floats): the timed calls start from the timing input. */
static void load_timing_input(mb_ctx *ctx, const mb_peer *p, const mb_op *op)
{
    const bench_dtype *t = ctx->dtype;
    size_t recv_bytes = bench_recv_buffer_elems(op->coll, &op->shape, op->in_place) * t->size;
    bench_check_inputs(op->coll, t, &op->shape, ctx->rank, op->in_place, 0, ctx->h_send, ctx->h_recv);
    BENCH_CUDA(cudaMemcpy(p->d_send, ctx->h_send, op->shape.send_elems * t->size, cudaMemcpyHostToDevice));
    BENCH_CUDA(cudaMemcpy(p->d_recv, ctx->h_recv, recv_bytes, cudaMemcpyHostToDevice));
}

static int batch_length(const mb_ctx *ctx, double probe_us)
{
    double fit = ctx->opt->batch_ms * 1e3 / (probe_us > 0 ? probe_us : 1e-3);
    if (fit >= ctx->opt->iters)
        return ctx->opt->iters;
    return fit < 1 ? 1 : (int)ceil(fit);
}

void mb_measure(mb_ctx *ctx, int peer_id, const mb_op *op, mb_result *res, mb_split *split)
{
    const mb_peer *p = &ctx->peer[peer_id];
    const mb_options *o = ctx->opt;
    cudaGraphExec_t exec = NULL;
    char why[320] = "";
    double local, probe, *mine, *batch;
    unsigned long long zero_copy;
    int ok, n;

    memset(res, 0, sizeof *res);
    res->wrong = -1;
    res->path = p->path;
    if (op->in_place || op->coll == BENCH_BCAST)
        load_timing_input(ctx, p, op);

    /* 1. First call. Every rank learns whether all could issue it before anyone waits on the
     * stream: a collective issued on some ranks only would never end. */
    settle(ctx);
    zero_copy = p->probe_zero_copy ? mb_mcoll_zero_copy_calls(ctx) : 0;
    ok = p->launch(ctx, op, why, sizeof why) == 0;
    if (!mb_agree(ctx, ok, why, sizeof why)) {
        snprintf(res->note, sizeof res->note, "%s", why);
        return;
    }
    if (p->probe_zero_copy)
        res->path = mb_mcoll_zero_copy_calls(ctx) > zero_copy ? MB_PATH_ZERO_COPY : MB_PATH_STAGED;
    BENCH_CUDA(cudaStreamSynchronize(ctx->stream));

    /* 2. One timed call (slowest rank), then the warm-up calls, as many as fit in one batch (at
     * most --warmup), timed together. The batch length comes from the faster of the two, so
     * one call slowed by the scheduler does not shrink every batch. */
    local = time_batch(ctx, p, op, 1, NULL, 1);
    MPI_Allreduce(&local, &probe, 1, MPI_DOUBLE, MPI_MAX, ctx->comm);
    n = batch_length(ctx, probe);
    if (o->warmup > 0) {
        double warm;
        local = time_batch(ctx, p, op, o->warmup < n ? o->warmup : n, NULL, 1);
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
    batch = mine + o->reps;
    if (split)
        mb_split_begin(ctx);
    for (int b = 0; b < o->reps; b++)
        mine[b] = time_batch(ctx, p, op, n, exec, o->graph_launches);
    if (split)
        mb_split_end(ctx, split);
    combine(ctx, mine, batch, o->reps);
    bench_summary s = bench_summarize(batch, o->reps);
    free(mine);
    res->ran = 1;
    res->iters = n;
    res->median_us = s.median;
    res->min_us = s.min;
    res->max_us = s.max;

    /* 5. Checks. */
    if (o->check > 0)
        res->wrong = 0;
    /* The timing graph holds n calls: in place, replaying it would apply the collective n
     * times to its own output. The check replays a graph of one call instead. */
    if (exec) {
        BENCH_CUDA(cudaGraphExecDestroy(exec));
        exec = NULL;
        ok = o->check <= 0 || capture(ctx, p, op, 1, &exec, why, sizeof why) == 0;
        if (!mb_agree(ctx, ok, why, sizeof why)) {
            if (exec)
                cudaGraphExecDestroy(exec);
            snprintf(res->note, sizeof res->note, "%s", why);
            return;
        }
    }
    for (int k = 0; k < o->check; k++)
        res->wrong += check(ctx, p, op, exec);
    if (exec)
        BENCH_CUDA(cudaGraphExecDestroy(exec));
    settle(ctx);
}
