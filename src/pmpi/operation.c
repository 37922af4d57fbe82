/* The steps of one operation on the engine or the staged path (see operation.h). */
#include <stdint.h>
#include <string.h>
#include "operation.h"
#include "checks.h"
#include "comm_internal.h"
#include "engine.h"
#include "stage.h"
#include "validate.h"

#define SLOT_ALIGN 256

/* An event after the work queued so far on `stream`, in the current context. */
static int mark(mcoll_nbop *op, CUstream stream)
{
    CUcontext cur = NULL;
    CUresult rc;
    mcoll_cu.cuCtxGetCurrent(&cur);
    if (op->event && op->ctx != cur) {
        mcoll_pool_event_put(op->ctx, op->event);
        op->event = NULL;
    }
    op->ctx = cur;
    if (!op->event && !(op->event = mcoll_pool_event())) return -1;
    if ((rc = mcoll_cu.cuEventRecord(op->event, stream)) != CUDA_SUCCESS) {
        MCOLL_WARN("%s: cuEventRecord failed: %s", op->nb->name, mcoll_cu_errname(rc));
        return -1;
    }
    return 0;
}

/* The engine path: like the blocking one (engine.h) without its wait. A host receive buffer at
 * a reduce's root (the only host buffer the engines take) is reduced into device scratch
 * memory, copied out once the kernel is done. */
static int launch_engine(mcoll_nbop *op)
{
    mcoll_call e = op->call;
    mcoll_stage *st = NULL;
    mcoll_result rc;
    MPI_Aint lo = 0;
    size_t bytes = 0;

    op->ncopies = 0;
    if (e.recv.out && e.recv.mem == MCOLL_MEM_HOST) {
        mcoll_buf_span(&e.recv, e.recv.out_first, e.recv.out_count, &lo, &bytes);
        st = mcoll_stage_begin(e.send.device);
        if (st && (!op->scratch || op->scratch->bytes < (size_t)lo + bytes)) {
            mcoll_pool_put(op->scratch);
            op->scratch = mcoll_pool_get(1, (size_t)lo + bytes);
        }
        if (!st || !op->scratch) {
            mcoll_stage_end(st);
            MCOLL_WARN("%s: no device memory for the root's host buffer; MPI_ERR_OTHER raised", op->nb->name);
            return mcoll_raise(e.comm, MPI_ERR_OTHER);
        }
        e.recvbuf = op->scratch->ptr;
        e.recv.mem = MCOLL_MEM_DEVICE;
        op->copies[0].dst = (char *)op->call.recvbuf + lo;
        op->copies[0].src = op->scratch->ptr + lo;
        op->copies[0].bytes = bytes;
        op->copies[0].to_device = 0;
        op->ncopies = 1;
    }
    mcoll_engine_launch_only(1);
    rc = e.coll->engine(&e, &op->d);
    mcoll_engine_launch_only(0);
    if (rc == MCOLL_SUCCESS) {
        op->engine = e.cs->engine;
        /* Without an event the call cannot be waited for later: wait now, then report. */
        if (mark(op, (CUstream)mcoll_comm_stream(op->engine))) {
            mcoll_comm_sync(op->engine);
            rc = MCOLL_ERR_CUDA;
        }
    }
    mcoll_stage_end(st);
    if (rc == MCOLL_ERR_UNSUPPORTED) return MCOLL_NB_DECLINED;
    if (rc != MCOLL_SUCCESS) {
        MCOLL_WARN("%s: GPU engine failed (%s); MPI_ERR_OTHER raised", op->nb->name, mcoll_strerror(rc));
        return mcoll_raise(e.comm, MPI_ERR_OTHER);
    }
    op->error = MPI_SUCCESS;
    op->state = MCOLL_NB_KERNEL;
    return MPI_SUCCESS;
}

/* The staged path: device buffers copied whole into one pooled host block (each at the offsets
 * it has in the user's buffer, as the blocking staged path does), the copies waited for, the
 * MPI's nonblocking call made on the host copies. Results go back after it completes. */
static int launch_staged(mcoll_nbop *op)
{
    mcoll_call *c = &op->call;
    mcoll_buf *roles[2] = {&c->send, &c->recv};
    void *mpi_buf[2] = {(void *)(uintptr_t)c->sendbuf, c->recvbuf};
    size_t need[2] = {0, 0}, off = 0, bytes;
    MPI_Aint lo;
    mcoll_stage *st;
    CUstream stream = NULL;
    int k, failed = 0, err;

    st = mcoll_stage_begin(c->send.staged ? c->send.device : c->recv.device);
    for (k = 0; k < 2; k++) {
        if (!roles[k]->staged) continue;
        mcoll_buf_span(roles[k], roles[k]->first, roles[k]->count, &lo, &bytes);
        need[k] = (bytes + SLOT_ALIGN - 1) / SLOT_ALIGN * SLOT_ALIGN;
    }
    if (st && (!op->host || op->host->bytes < need[0] + need[1])) {
        mcoll_pool_put(op->host);
        op->host = mcoll_pool_get(0, need[0] + need[1]);
    }
    if (st) stream = mcoll_pool_stream();
    if (!st || !op->host || !stream) {
        mcoll_stage_end(st);
        MCOLL_WARN("%s: cannot stage device buffers; MPI_ERR_OTHER raised", op->nb->name);
        return mcoll_raise(c->comm, MPI_ERR_OTHER);
    }
    op->ncopies = 0;
    for (k = 0; k < 2; k++) {
        mcoll_buf *b = roles[k];
        char *slot = op->host->ptr + off, *base;
        if (!b->staged) continue;
        off += need[k];
        mcoll_buf_span(b, b->first, b->count, &lo, &bytes);
        base = slot - lo;
        mpi_buf[k] = base;
        if (b->in && bytes && !failed &&
            mcoll_cu.cuMemcpyDtoHAsync(slot, (CUdeviceptr)(uintptr_t)(b->user + lo), bytes, stream) != CUDA_SUCCESS)
            failed = 1;
        if (!b->out) continue;
        mcoll_buf_span(b, b->out_first, b->out_count, &lo, &bytes);
        op->copies[op->ncopies].dst = b->user + lo;
        op->copies[op->ncopies].src = base + lo;
        op->copies[op->ncopies].bytes = bytes;
        op->copies[op->ncopies].to_device = 1;
        op->ncopies++;
    }
    /* Only local copies are waited for here: nothing of another rank's. */
    if (!failed && mcoll_cu.cuStreamSynchronize(stream) != CUDA_SUCCESS) failed = 1;
    if (!failed && !op->event) {
        mcoll_cu.cuCtxGetCurrent(&op->ctx);
        if (!(op->event = mcoll_pool_event())) failed = 1;
    }
    mcoll_stage_end(st);
    /* The MPI call is made even when a copy failed, so the other ranks are not left waiting. */
    err = op->nb->start(c, mpi_buf[0], mpi_buf[1], &op->inner);
    if (err != MPI_SUCCESS) return err; /* the MPI has raised it */
    if (failed) {
        MCOLL_WARN("%s: staging a device buffer failed; the request completes with MPI_ERR_OTHER", op->nb->name);
        op->ncopies = 0;
    }
    op->error = failed ? MPI_ERR_OTHER : MPI_SUCCESS;
    op->state = MCOLL_NB_MPI;
    return MPI_SUCCESS;
}

int mcoll_nbop_launch(mcoll_nbop *op)
{
    op->inner = MPI_REQUEST_NULL;
    if (op->d.path == MCOLL_PATH_ENGINE) return launch_engine(op);
    return launch_staged(op);
}

/* Queue the copies of the results, then an event after them. */
static void copy_out(mcoll_nbop *op)
{
    CUcontext before = mcoll_ctx_enter(op->ctx);
    CUstream stream = mcoll_pool_stream();
    CUresult rc = stream ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
    int i;
    for (i = 0; i < op->ncopies && rc == CUDA_SUCCESS; i++) {
        const mcoll_copy *x = &op->copies[i];
        if (!x->bytes) continue;
        rc = x->to_device
                 ? mcoll_cu.cuMemcpyHtoDAsync((CUdeviceptr)(uintptr_t)x->dst, x->src, x->bytes, stream)
                 : mcoll_cu.cuMemcpyDtoHAsync(x->dst, (CUdeviceptr)(uintptr_t)x->src, x->bytes, stream);
    }
    if (rc == CUDA_SUCCESS) rc = mcoll_cu.cuEventRecord(op->event, stream);
    mcoll_ctx_leave(op->ctx, before);
    if (rc != CUDA_SUCCESS) {
        MCOLL_WARN("%s: copying the result back failed: %s", op->nb->name, mcoll_cu_errname(rc));
        op->error = MPI_ERR_OTHER;
        op->state = MCOLL_NB_DONE;
        return;
    }
    op->state = MCOLL_NB_COPY_OUT;
}

/* 1 once the work before op->event is done (0 while it runs); sets op->error on failure. */
static int event_passed(mcoll_nbop *op)
{
    CUcontext before = mcoll_ctx_enter(op->ctx);
    CUresult rc = mcoll_cu.cuEventQuery(op->event);
    mcoll_ctx_leave(op->ctx, before);
    if (rc == CUDA_ERROR_NOT_READY) return 0;
    if (rc != CUDA_SUCCESS) {
        MCOLL_WARN("%s: cuEventQuery failed: %s", op->nb->name, mcoll_cu_errname(rc));
        op->error = MPI_ERR_OTHER;
    }
    return 1;
}

int mcoll_nbop_advance(mcoll_nbop *op)
{
    int flag = 0, rc;
    switch (op->state) {
    case MCOLL_NB_KERNEL:
        if (!event_passed(op)) return 0;
        if (op->error == MPI_SUCCESS && mcoll_watch_aborted(&op->engine->team->watch)) {
            MCOLL_WARN("%s: a peer of the GPU engine is gone; the request completes with MPI_ERR_OTHER", op->nb->name);
            op->error = MPI_ERR_OTHER;
        }
        op->engine = NULL;
        if (op->error == MPI_SUCCESS && op->ncopies) copy_out(op);
        else op->state = MCOLL_NB_DONE;
        break;
    case MCOLL_NB_MPI:
        rc = PMPI_Test(&op->inner, &flag, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS) {
            PMPI_Error_class(rc, &op->error);
            op->state = MCOLL_NB_DONE;
        } else if (flag) {
            if (op->error == MPI_SUCCESS && op->ncopies) copy_out(op);
            else op->state = MCOLL_NB_DONE;
        }
        break;
    case MCOLL_NB_COPY_OUT:
        if (event_passed(op)) op->state = MCOLL_NB_DONE;
        break;
    default:
        break;
    }
    return op->state == MCOLL_NB_DONE;
}

void mcoll_nbop_release(mcoll_nbop *op)
{
    mcoll_pool_event_put(op->ctx, op->event);
    op->event = NULL;
    mcoll_pool_put(op->host);
    mcoll_pool_put(op->scratch);
    op->host = op->scratch = NULL;
}
