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

static int too_large(const mb_op *op, char *err, size_t len)
{
    if (op->shape.count <= INT_MAX)
        return 0;
    snprintf(err, len, "count above INT_MAX: no MPI-3 call takes it");
    return 1;
}

/* One MPI call on `send`/`recv` (device or host), MPI_IN_PLACE as MPI allows it. */
static int mpi_call(mb_ctx *ctx, const mb_op *op, int pmpi, const void *send, void *recv)
{
    MPI_Datatype t = ctx->mpi_dtype;
    MPI_Comm comm = ctx->mpi_comm;
    MPI_Op mop = bench_op_mpi(op->shape.op);
    int n = (int)op->shape.count, root = op->shape.root;
    if (op->in_place && (op->coll != BENCH_REDUCE || ctx->rank == root))
        send = MPI_IN_PLACE;
    switch (op->coll) {
    case BENCH_ALLREDUCE:
        return pmpi ? PMPI_Allreduce(send, recv, n, t, mop, comm) : MPI_Allreduce(send, recv, n, t, mop, comm);
    case BENCH_BCAST:
        return pmpi ? PMPI_Bcast(recv, n, t, root, comm) : MPI_Bcast(recv, n, t, root, comm);
    case BENCH_REDUCE:
        return pmpi ? PMPI_Reduce(send, recv, n, t, mop, root, comm) : MPI_Reduce(send, recv, n, t, mop, root, comm);
    case BENCH_REDUCE_SCATTER:
        return pmpi ? PMPI_Reduce_scatter_block(send, recv, n, t, mop, comm)
                    : MPI_Reduce_scatter_block(send, recv, n, t, mop, comm);
    case BENCH_ALLGATHER:
        return pmpi ? PMPI_Allgather(send, n, t, recv, n, t, comm) : MPI_Allgather(send, n, t, recv, n, t, comm);
    case BENCH_BARRIER:
        return pmpi ? PMPI_Barrier(comm) : MPI_Barrier(comm);
    default:
        return MPI_ERR_OTHER;
    }
}

static int mcoll_mpi_launch(mb_ctx *ctx, const mb_op *op, char *err, size_t len)
{
    int rc;
    if (too_large(op, err, len))
        return -1;
    rc = mpi_call(ctx, op, 0, ctx->d_send, ctx->d_recv);
    return rc == MPI_SUCCESS ? 0 : mpi_fail(rc, bench_coll_name(op->coll), err, len);
}

/* Device to host before the call, host to device after: only the elements this rank sends
 * (from wherever the call reads them: the receive buffer in place) and receives. The host
 * images mirror the device buffers, offsets included. */
static int staged_launch(mb_ctx *ctx, const mb_op *op, char *err, size_t len)
{
    const bench_shape *s = &op->shape;
    size_t es = ctx->dtype->size, in_off = 0, in_n = 0, out_n = 0;
    int root = ctx->rank == s->root, from_recv = op->in_place, rc;
    cudaError_t e;
    if (too_large(op, err, len))
        return -1;
    switch (op->coll) {
    case BENCH_ALLREDUCE: in_n = out_n = s->count; break;
    case BENCH_BCAST: /* the root's buffer is the receive buffer */
        from_recv = 1;
        in_n = root ? s->count : 0;
        out_n = root ? 0 : s->count;
        break;
    case BENCH_REDUCE:
        from_recv = op->in_place && root;
        in_n = s->count;
        out_n = root ? s->count : 0;
        break;
    case BENCH_REDUCE_SCATTER: in_n = s->send_elems, out_n = s->count; break;
    case BENCH_ALLGATHER:
        in_n = s->count, out_n = s->recv_elems;
        in_off = op->in_place ? (size_t)ctx->rank * s->count : 0;
        break;
    default: break;
    }
    if (in_n) {
        const char *dev = (const char *)(from_recv ? ctx->d_recv : ctx->d_send) + in_off * es;
        char *host = (char *)(from_recv ? ctx->h_recv : ctx->h_send) + in_off * es;
        if ((e = cudaMemcpy(host, dev, in_n * es, cudaMemcpyDeviceToHost)) != cudaSuccess)
            return cuda_fail(e, err, len);
    }
    rc = mpi_call(ctx, op, 1, ctx->h_send, ctx->h_recv);
    if (rc != MPI_SUCCESS)
        return mpi_fail(rc, bench_coll_name(op->coll), err, len);
    if (out_n && (e = cudaMemcpy(ctx->d_recv, ctx->h_recv, out_n * es, cudaMemcpyHostToDevice)) != cudaSuccess)
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
