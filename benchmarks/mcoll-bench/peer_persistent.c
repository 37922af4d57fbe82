/* The persistent MPI peer, mcoll-persistent: each collective and size becomes one persistent
 * request (MPI_<Name>_init, or Open MPI 4's MPIX_<Name>_init), built when the size's first call
 * comes and then started and waited for per call, as an iterative code does. Through libmcoll
 * the plan (classification, decision, device work) is made at init, so a row shows what a
 * start costs against mcoll-mpi's whole call. Absent where the MPI has no persistent
 * collectives. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "context.h"
#if MCOLL_PCOLL == 2
#include <mpi-ext.h>
#define PINIT(name) MPIX_##name##_init
#elif MCOLL_PCOLL == 1
#define PINIT(name) MPI_##name##_init
#endif

#ifdef PINIT
static int same_op(const mb_op *a, const mb_op *b)
{
    return a->coll == b->coll && a->in_place == b->in_place && a->shape.count == b->shape.count &&
           a->shape.root == b->shape.root && a->shape.op == b->shape.op;
}

/* The persistent request of `op`: every rank builds it at the same call of the sweep, since
 * all ranks run the same sequence of (collective, size, place). */
static int build(mb_ctx *ctx, const mb_op *op)
{
    MPI_Datatype t = ctx->mpi_dtype;
    MPI_Comm comm = ctx->mpi_comm;
    MPI_Op mop = bench_op_mpi(op->shape.op);
    MPI_Request *r = &ctx->persistent;
    const void *send = ctx->d_send;
    void *recv = ctx->d_recv;
    int n = (int)op->shape.count, root = op->shape.root;
    if (op->in_place && (op->coll != BENCH_REDUCE || ctx->rank == root))
        send = MPI_IN_PLACE;
    switch (op->coll) {
    case BENCH_ALLREDUCE: return PINIT(Allreduce)(send, recv, n, t, mop, comm, MPI_INFO_NULL, r);
    case BENCH_BCAST: return PINIT(Bcast)(recv, n, t, root, comm, MPI_INFO_NULL, r);
    case BENCH_REDUCE: return PINIT(Reduce)(send, recv, n, t, mop, root, comm, MPI_INFO_NULL, r);
    case BENCH_REDUCE_SCATTER:
        return PINIT(Reduce_scatter_block)(send, recv, n, t, mop, comm, MPI_INFO_NULL, r);
    case BENCH_ALLGATHER: return PINIT(Allgather)(send, n, t, recv, n, t, comm, MPI_INFO_NULL, r);
    case BENCH_BARRIER: return PINIT(Barrier)(comm, MPI_INFO_NULL, r);
    default: return MPI_ERR_OTHER;
    }
}

static int persistent_launch(mb_ctx *ctx, const mb_op *op, char *err, size_t len)
{
    char text[MPI_MAX_ERROR_STRING] = "";
    int rc = MPI_SUCCESS, n = 0;
    if (op->shape.count > INT_MAX) {
        snprintf(err, len, "count above INT_MAX: no MPI-3 call takes it");
        return -1;
    }
    if (ctx->persistent == MPI_REQUEST_NULL || !same_op(&ctx->persistent_op, op)) {
        if (ctx->persistent != MPI_REQUEST_NULL)
            MPI_Request_free(&ctx->persistent);
        rc = build(ctx, op);
        ctx->persistent_op = *op;
    }
    if (rc == MPI_SUCCESS)
        rc = MPI_Start(&ctx->persistent);
    if (rc == MPI_SUCCESS)
        rc = MPI_Wait(&ctx->persistent, MPI_STATUS_IGNORE);
    if (rc == MPI_SUCCESS)
        return 0;
    MPI_Error_string(rc, text, &n);
    snprintf(err, len, "persistent %s: %s", bench_coll_name(op->coll), text);
    return -1;
}
#endif

void mb_persistent_setup(mb_ctx *ctx)
{
    mb_peer *p = &ctx->peer[MB_MCOLL_PERSISTENT];
    ctx->persistent = MPI_REQUEST_NULL;
    p->kind = MB_BLOCKING;
    p->nccl_ref = MB_NCCL;
#ifdef PINIT
    p->launch = persistent_launch;
    p->ready = 1;
    p->why[0] = '\0';
#else
    p->ready = 0;
    snprintf(p->why, sizeof p->why, "this MPI has no persistent collectives (MPI_Allreduce_init or MPIX_Allreduce_init)");
#endif
}

void mb_persistent_teardown(mb_ctx *ctx)
{
    if (ctx->persistent != MPI_REQUEST_NULL)
        MPI_Request_free(&ctx->persistent);
}
