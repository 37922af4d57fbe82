/* The MPI peers, both blocking like an application's calls:
 *   mcoll-mpi  MPI_Allreduce etc. on the device buffers. mcoll-bench links libmcoll, so these
 *              calls enter mcoll's PMPI wrappers: what an application gets from the plug-in.
 *   staged     what people do with an MPI that is not CUDA-aware: cudaMemcpy to pinned host
 *              memory, the collective through PMPI_* (mcoll bypassed), cudaMemcpy back. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "context.h"

static int mpi_fail(int rc, const char *what, char *err, size_t len)
{
    char text[MPI_MAX_ERROR_STRING] = "";
    int n = 0;
    MPI_Error_string(rc, text, &n);
    snprintf(err, len, "%s: %s", what, text);
    return -1;
}

static int cuda_fail(cudaError_t e, char *err, size_t len)
{
    snprintf(err, len, "cudaMemcpy: %s", cudaGetErrorString(e));
    return -1;
}

static int mcoll_mpi_launch(mb_ctx *ctx, const mb_op *op, char *err, size_t len)
{
    MPI_Datatype t = ctx->mpi_dtype;
    MPI_Comm comm = ctx->mpi_comm;
    int rc = MPI_SUCCESS, n;
    if (op->shape.count > INT_MAX) {
        snprintf(err, len, "count above INT_MAX: no MPI-3 call takes it");
        return -1;
    }
    n = (int)op->shape.count;
    switch (op->coll) {
    case BENCH_ALLREDUCE: rc = MPI_Allreduce(ctx->d_send, ctx->d_recv, n, t, MPI_SUM, comm); break;
    case BENCH_BCAST: rc = MPI_Bcast(ctx->d_recv, n, t, BENCH_ROOT, comm); break;
    case BENCH_REDUCE: rc = MPI_Reduce(ctx->d_send, ctx->d_recv, n, t, MPI_SUM, BENCH_ROOT, comm); break;
    case BENCH_REDUCE_SCATTER:
        rc = MPI_Reduce_scatter_block(ctx->d_send, ctx->d_recv, n, t, MPI_SUM, comm);
        break;
    case BENCH_ALLGATHER: rc = MPI_Allgather(ctx->d_send, n, t, ctx->d_recv, n, t, comm); break;
    default: break;
    }
    return rc == MPI_SUCCESS ? 0 : mpi_fail(rc, bench_coll_name(op->coll), err, len);
}

/* Device to host before the call (send side), host to device after (receive side): only the
 * bytes each rank actually sends or receives are copied. */
static int staged_launch(mb_ctx *ctx, const mb_op *op, char *err, size_t len)
{
    MPI_Datatype t = ctx->mpi_dtype;
    MPI_Comm comm = ctx->mpi_comm;
    size_t es = ctx->dtype->size;
    size_t send_bytes = op->shape.send_elems * es, recv_bytes = op->shape.recv_elems * es;
    int root = ctx->rank == BENCH_ROOT, rc = MPI_SUCCESS, n, copy_in = 1, copy_out = 1;
    cudaError_t e;
    if (op->shape.count > INT_MAX) {
        snprintf(err, len, "count above INT_MAX: no MPI-3 call takes it");
        return -1;
    }
    n = (int)op->shape.count;
    if (op->coll == BENCH_BCAST) {
        copy_in = 0; /* the root's buffer is the receive buffer */
        copy_out = !root;
        if (root && (e = cudaMemcpy(ctx->h_recv, ctx->d_recv, recv_bytes, cudaMemcpyDeviceToHost)) != cudaSuccess)
            return cuda_fail(e, err, len);
    }
    if (op->coll == BENCH_REDUCE)
        copy_out = root;
    if (copy_in && (e = cudaMemcpy(ctx->h_send, ctx->d_send, send_bytes, cudaMemcpyDeviceToHost)) != cudaSuccess)
        return cuda_fail(e, err, len);
    switch (op->coll) {
    case BENCH_ALLREDUCE: rc = PMPI_Allreduce(ctx->h_send, ctx->h_recv, n, t, MPI_SUM, comm); break;
    case BENCH_BCAST: rc = PMPI_Bcast(ctx->h_recv, n, t, BENCH_ROOT, comm); break;
    case BENCH_REDUCE: rc = PMPI_Reduce(ctx->h_send, ctx->h_recv, n, t, MPI_SUM, BENCH_ROOT, comm); break;
    case BENCH_REDUCE_SCATTER:
        rc = PMPI_Reduce_scatter_block(ctx->h_send, ctx->h_recv, n, t, MPI_SUM, comm);
        break;
    case BENCH_ALLGATHER: rc = PMPI_Allgather(ctx->h_send, n, t, ctx->h_recv, n, t, comm); break;
    default: break;
    }
    if (rc != MPI_SUCCESS)
        return mpi_fail(rc, bench_coll_name(op->coll), err, len);
    if (copy_out && (e = cudaMemcpy(ctx->d_recv, ctx->h_recv, recv_bytes, cudaMemcpyHostToDevice)) != cudaSuccess)
        return cuda_fail(e, err, len);
    return 0;
}

void mb_mpi_setup(mb_ctx *ctx)
{
    mb_peer *m = &ctx->peer[MB_MCOLL_MPI], *s = &ctx->peer[MB_STAGED];
    /* A failing call is reported in its row instead of ending the job. */
    MPI_Comm_dup(ctx->comm, &ctx->mpi_comm);
    MPI_Comm_set_errhandler(ctx->mpi_comm, MPI_ERRORS_RETURN);
    m->kind = s->kind = MB_BLOCKING;
    m->launch = mcoll_mpi_launch;
    s->launch = staged_launch;
    m->nccl_ref = MB_NCCL; /* NCCL has no blocking form: its stream timing is the reference */
    m->ready = s->ready = 1;
    m->why[0] = s->why[0] = '\0';
}

void mb_mpi_teardown(mb_ctx *ctx)
{
    if (ctx->mpi_comm != MPI_COMM_NULL)
        MPI_Comm_free(&ctx->mpi_comm);
}
