/* The mcoll native peers: mcoll_allreduce etc. on the benchmark's stream, back to back
 * (mcoll) and captured in a CUDA graph (mcoll-graph); peer_window.c runs the same calls on
 * window memory. mcoll is used with its defaults: the
 * configuration comes from the environment, so the multicast kill switch is honoured. */
#include <stdio.h>
#include <string.h>

#include "context.h"
#include "mcoll.h"

static int fail(mcoll_result rc, char *err, size_t len)
{
    const char *warning = mcoll_last_warning();
    snprintf(err, len, "%s%s%s", mcoll_strerror(rc), warning && *warning ? ": " : "",
             warning ? warning : "");
    return -1;
}

/* In place, the send buffer is MPI_IN_PLACE (for reduce on the root only), as in MPI. */
int mb_mcoll_call(mb_ctx *ctx, const mb_op *op, void *d_send, void *d_recv, char *err, size_t len)
{
    size_t n = op->shape.count;
    MPI_Datatype t = ctx->mpi_dtype;
    MPI_Op mop = bench_op_mpi(op->shape.op);
    int root = op->shape.root;
    const void *send = op->in_place && (op->coll != BENCH_REDUCE || ctx->rank == root) ? MPI_IN_PLACE : d_send;
    mcoll_result rc = MCOLL_ERR_INVALID_ARG;
    switch (op->coll) {
    case BENCH_ALLREDUCE:
        rc = mcoll_allreduce(send, d_recv, n, t, mop, ctx->mcoll, ctx->stream);
        break;
    case BENCH_BCAST:
        rc = mcoll_bcast(d_recv, n, t, root, ctx->mcoll, ctx->stream);
        break;
    case BENCH_REDUCE:
        rc = mcoll_reduce(send, d_recv, n, t, mop, root, ctx->mcoll, ctx->stream);
        break;
    case BENCH_REDUCE_SCATTER:
        rc = mcoll_reduce_scatter(send, d_recv, n, t, mop, ctx->mcoll, ctx->stream);
        break;
    case BENCH_ALLGATHER:
        rc = mcoll_allgather(send, d_recv, n, t, ctx->mcoll, ctx->stream);
        break;
    case BENCH_BARRIER:
        rc = mcoll_barrier(ctx->mcoll, ctx->stream);
        break;
    default:
        break;
    }
    return rc == MCOLL_SUCCESS ? 0 : fail(rc, err, len);
}

static int launch(mb_ctx *ctx, const mb_op *op, char *err, size_t len)
{
    return mb_mcoll_call(ctx, op, ctx->d_send, ctx->d_recv, err, len);
}

unsigned long long mb_mcoll_zero_copy_calls(mb_ctx *ctx)
{
    mcoll_comm_info_t info;
    if (!ctx->mcoll || mcoll_comm_info(ctx->mcoll, &info) != MCOLL_SUCCESS)
        return 0;
    return info.zero_copy_calls;
}

void mb_mcoll_setup(mb_ctx *ctx)
{
    char why[256] = "";
    mcoll_result rc;
    int ok;

    ctx->peer[MB_MCOLL].launch = ctx->peer[MB_MCOLL_GRAPH].launch = launch;
    ctx->peer[MB_MCOLL].kind = MB_STREAM;
    ctx->peer[MB_MCOLL_GRAPH].kind = MB_GRAPH;
    ctx->peer[MB_MCOLL].nccl_ref = MB_NCCL;
    ctx->peer[MB_MCOLL_GRAPH].nccl_ref = MB_NCCL_GRAPH;
    /* Their buffers are plain cudaMalloc memory: always the staged path. */
    ctx->peer[MB_MCOLL].path = ctx->peer[MB_MCOLL_GRAPH].path = MB_PATH_STAGED;
    /* The communicator is built whenever an mcoll peer runs, so the header can describe it. */
    if (!ctx->peer[MB_MCOLL].enabled && !ctx->peer[MB_MCOLL_WINDOW].enabled && !ctx->peer[MB_MCOLL_GRAPH].enabled &&
        !ctx->peer[MB_MCOLL_MPI].enabled) {
        snprintf(ctx->mcoll_desc, sizeof ctx->mcoll_desc, "not used (no mcoll peer chosen)");
        return;
    }
    /* Its own communicator: the MPI peers' communicator gets the plug-in's team, this one the
     * native team, and neither sees the other's traffic. */
    MPI_Comm_dup(ctx->comm, &ctx->mcoll_mpi_comm);
    rc = mcoll_comm_create(ctx->mcoll_mpi_comm, NULL, &ctx->mcoll);
    ok = rc == MCOLL_SUCCESS;
    if (!ok) {
        fail(rc, why, sizeof why);
        ctx->mcoll = NULL;
    }
    if (!mb_agree(ctx, ok, why, sizeof why)) {
        /* A communicator made on some ranks only cannot be destroyed collectively; it stays
         * until exit. */
        ctx->mcoll = NULL;
        snprintf(ctx->mcoll_desc, sizeof ctx->mcoll_desc, "mcoll_comm_create failed: %s", why);
        for (int p = MB_MCOLL; p <= MB_MCOLL_GRAPH; p++)
            snprintf(ctx->peer[p].why, sizeof ctx->peer[p].why, "mcoll_comm_create failed: %s", why);
        return;
    }
    if (mcoll_comm_describe(ctx->mcoll, ctx->mcoll_desc, sizeof ctx->mcoll_desc) != MCOLL_SUCCESS)
        snprintf(ctx->mcoll_desc, sizeof ctx->mcoll_desc, "(mcoll_comm_describe failed)");
    ctx->peer[MB_MCOLL].ready = ctx->peer[MB_MCOLL_GRAPH].ready = 1;
}

void mb_mcoll_teardown(mb_ctx *ctx)
{
    if (ctx->mcoll)
        mcoll_comm_destroy(ctx->mcoll);
    ctx->mcoll = NULL;
    if (ctx->mcoll_mpi_comm != MPI_COMM_NULL)
        MPI_Comm_free(&ctx->mcoll_mpi_comm);
}
