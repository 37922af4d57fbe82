/* The steps of one operation on the engine or the staged path (see operation.h). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime under -std=c11 (clock.h) */
#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "operation.h"
#include "checks.h"
#include "clock.h"
#include "config.h"
#include "comm_internal.h"
#include "engine.h"
#include "hier_path.h"
#include "stage.h"
#include "validate.h"

#define SLOT_ALIGN 256

/* op->ctx is the current context (an event of another goes back to its pool). */
static void take_context(mcoll_nbop *op)
{
    CUcontext cur = NULL;
    mcoll_cu.cuCtxGetCurrent(&cur);
    if (op->event && op->ctx != cur) {
        mcoll_pool_event_put(op->ctx, op->event);
        op->event = NULL;
    }
    op->ctx = cur;
}

/* An event after the work queued so far on `stream`, in the current context. */
static int mark(mcoll_nbop *op, CUstream stream)
{
    CUresult rc;
    take_context(op);
    if (!op->event && !(op->event = mcoll_pool_event())) return -1;
    if ((rc = mcoll_cu.cuEventRecord(op->event, stream)) != CUDA_SUCCESS) {
        MCOLL_WARN("%s: cuEventRecord failed: %s", op->nb->name, mcoll_cu_errname(rc));
        return -1;
    }
    return 0;
}

/* A root's own buffer in host memory (engine_root.c says why) goes through pooled device
 * memory: copied in now where the call reads it, out once the kernel is done where it writes
 * it. *st stays open until the launch. MPI_SUCCESS, or the error class raised. */
static int root_scratch(mcoll_nbop *op, mcoll_call *e, mcoll_stage **st)
{
    mcoll_buf *b = mcoll_engine_host_role(e);
    MPI_Aint lo = 0, out_lo = 0;
    size_t bytes = 0, out_bytes = 0;
    char *base;
    int failed;

    op->ncopies = 0;
    if (!b) return MPI_SUCCESS;
    mcoll_buf_span(b, b->first, b->count, &lo, &bytes);
    *st = mcoll_stage_begin(b == &e->recv ? e->send.device : e->recv.device);
    if (*st && (!op->scratch || op->scratch->bytes < bytes)) {
        mcoll_pool_put(op->scratch);
        op->scratch = mcoll_pool_get(1, bytes ? bytes : 1);
    }
    failed = !*st || !op->scratch;
    if (!failed && b->in && bytes)
        failed = mcoll_stage_to_device(*st, op->scratch->ptr, b->user + lo, bytes) != MCOLL_SUCCESS ||
                 mcoll_stage_sync(*st) != MCOLL_SUCCESS;
    if (failed) {
        MCOLL_WARN("%s: no device memory for the root's host buffer; MPI_ERR_OTHER raised", op->nb->name);
        return mcoll_raise(e->comm, MPI_ERR_OTHER);
    }
    base = op->scratch->ptr - lo; /* the span at the offsets it has in the user's buffer */
    if (b->out) {
        mcoll_buf_span(b, b->out_first, b->out_count, &out_lo, &out_bytes);
        op->copies[0].dst = b->user + out_lo;
        op->copies[0].src = base + out_lo;
        op->copies[0].bytes = out_bytes;
        op->copies[0].to_device = 0;
        op->ncopies = 1;
    }
    b->user = base;
    b->mem = MCOLL_MEM_DEVICE;
    if (b == &e->recv) e->recvbuf = base;
    else e->sendbuf = base;
    return MPI_SUCCESS;
}

/* The engine hook with the launch only (engine.h), a persistent request's windows held. */
static mcoll_result run_hook(mcoll_nbop *op, mcoll_call *e)
{
    mcoll_result rc;
    mcoll_engine_launch_only(1);
    mcoll_engine_hold(op->persistent ? &op->held : NULL);
    rc = e->coll->engine(e, &op->d);
    mcoll_engine_hold(NULL);
    mcoll_engine_launch_only(0);
    return rc;
}

/* The hook's launch, then how it will be known done: its kernel's completion word, or an event
 * after it where the kernel carries no word or results are copied out after it (copy_out records
 * that event again, after the copies). */
static mcoll_result launch_kernel(mcoll_nbop *op, mcoll_call *e)
{
    mcoll_result rc = run_hook(op, e);
    op->word = mcoll_launch_word_taken();
    op->word_checked = 0;
    if (rc == MCOLL_SUCCESS) {
        op->engine = e->cs->engine;
        if (op->word && !op->ncopies) {
            take_context(op);
            return rc;
        }
        op->word = 0;
        /* Without an event the call cannot be waited for later: wait now, then report. */
        if (mark(op, (CUstream)mcoll_comm_nb_stream(op->engine))) {
            mcoll_comm_sync(op->engine);
            rc = MCOLL_ERR_CUDA;
        }
    }
    return rc;
}

void mcoll_nbop_map_once(mcoll_nbop *op)
{
    mcoll_call e = op->call;
    if (!op->persistent || op->d.path != MCOLL_PATH_ENGINE || !op->d.zero_copy) return;
    /* The hook as a start calls it (no resident kernel, no wait), stopping after the mapping. */
    (void)run_hook(op, &e);
}

static mcoll_nbop *op_of(mcoll_async_job *job) { return (mcoll_nbop *)((char *)job - offsetof(mcoll_nbop, job)); }

/* The launcher thread's part of a queued start (async.h): what the caller would have done after
 * deciding, in the caller's context. A failure is the request's error, found by its next test.
 *
 * The hook never answers MCOLL_ERR_UNSUPPORTED here, which in the caller means "decline: decide
 * again without the engine" (launch_engine) and which a thread could not act on (the fallback's
 * MPI call belongs to the caller, in the order of its calls). Engine hooks answer it only when
 * the communicator has no engine, and queue_engine queued the job only after getting it (it stays
 * until the operations on it have finished: mcoll_requests_comm_freed); the launchers answer
 * MCOLL_LAUNCH_UNSUPPORTED only for what the decision has excluded (a datatype or op the kernels
 * lack, a root outside the team) or a team that is not built (team_ok; a data area too small for
 * one chunk, which team creation refuses). */
static void run_queued(mcoll_async_job *job)
{
    mcoll_nbop *op = op_of(job);
    mcoll_call e = op->call;
    mcoll_result rc;
    const uint64_t t0 = mcoll_trace_ns();
    mcoll_ctx_enter(op->launch_ctx); /* left current: the next job most likely wants it too */
    rc = launch_kernel(op, &e);
    /* How long a queued start waits for the thread, and how long its launch takes there. */
    MCOLL_TRACE("%s: %.2f us in the queue, %.2f us to launch in the launcher thread", op->nb->name,
                mcoll_trace_us(op->queued_at, t0), mcoll_trace_us(t0, mcoll_trace_ns()));
    assert(rc != MCOLL_ERR_UNSUPPORTED);
    if (rc != MCOLL_SUCCESS) {
        MCOLL_WARN("%s: GPU engine failed in a queued launch (%s); the request completes with MPI_ERR_OTHER",
                   op->nb->name, mcoll_strerror(rc));
        op->error = MPI_ERR_OTHER;
    }
    atomic_store_explicit(&op->queued, 0, memory_order_release);
}

/* In a forked child: the parent's thread launches this one, the child never will. */
static void abandon_queued(mcoll_async_job *job)
{
    mcoll_nbop *op = op_of(job);
    op->error = MPI_ERR_OTHER;
    atomic_store_explicit(&op->queued, 0, memory_order_release);
}

/* Queue the launch to the launcher thread (MCOLL_ASYNC_START): MPI_SUCCESS when queued,
 * MCOLL_NB_DECLINED when the communicator has no engine, -1 to launch here instead (the
 * setting is off, a root's host buffer goes through scratch memory, whose copy-in the caller's
 * stage keeps open until the launch, or no thread could be started). The engine is built, where
 * this is its first call, here: team creation is collective and belongs to the caller. */
static int queue_engine(mcoll_nbop *op)
{
    mcoll_call probe = op->call;
    mcoll_comm *engine;
    if (!mcoll_settings_get()->async_start || mcoll_engine_host_role(&probe)) return -1;
    if (!(engine = mcoll_engine_of(op->call.cs))) return MCOLL_NB_DECLINED;
    op->engine = engine;
    op->launch_ctx = mcoll_comm_context(engine);
    op->ncopies = 0;
    op->error = MPI_SUCCESS;
    op->state = MCOLL_NB_QUEUED;
    op->job.lane = &engine->lane;
    op->job.run = run_queued;
    op->job.abandon = abandon_queued;
    atomic_store_explicit(&op->queued, 1, memory_order_relaxed);
    op->queued_at = mcoll_trace_ns();
    if (mcoll_async_submit(&op->job) == 0) return MPI_SUCCESS;
    atomic_store_explicit(&op->queued, 0, memory_order_relaxed);
    return -1;
}

/* A call decided for the resident kernel's ring (d.ring) posted there: 1, or 0 when the ring does
 * not take it now (it is launched instead, as any other). In the caller, never in the launcher
 * thread: the post keeps its order with the caller's other calls by itself. */
static int post_ring(mcoll_nbop *op)
{
    mcoll_comm *engine = op->call.cs->engine;
    if (!op->d.ring || !engine || !mcoll_resident_post(engine, &op->d.ll, &op->ticket)) return 0;
    op->engine = engine;
    op->ncopies = 0;
    op->error = MPI_SUCCESS;
    op->state = MCOLL_NB_RING;
    return 1;
}

/* The engine path: like the blocking one (engine.h) without its wait. */
static int launch_engine(mcoll_nbop *op)
{
    mcoll_call e = op->call;
    mcoll_stage *st = NULL;
    mcoll_result rc;
    int err;

    if (post_ring(op)) return MPI_SUCCESS;
    err = queue_engine(op);
    if (err != -1) return err;
    if ((err = root_scratch(op, &e, &st)) != MPI_SUCCESS) {
        mcoll_stage_end(st);
        return err;
    }
    rc = launch_kernel(op, &e);
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

/* Open MPI 4.1's MPI_Ialltoallv with MPI_IN_PLACE returns wrong blocks with uneven counts
 * (reproduced on host buffers without mcoll). The staged copy of an in-place alltoallv is
 * therefore made out of place: a second host copy of the blocks is sent, with the receive
 * counts and displacements as the send ones, which is what in place means. */
static int unfolds_in_place(const mcoll_call *c)
{
    return c->coll == &mcoll_coll_alltoallv && c->sendbuf == MPI_IN_PLACE && c->recv.staged;
}

static void unfold_in_place(mcoll_call *c, char *copy, void **mpi_buf)
{
    MPI_Aint lo;
    size_t bytes;
    mcoll_buf_span(&c->recv, c->recv.first, c->recv.count, &lo, &bytes);
    memcpy(copy, (char *)mpi_buf[1] + lo, bytes);
    mpi_buf[0] = copy - lo;
    c->sendcounts = c->recvcounts;
    c->sdispls = c->rdispls;
    c->type = c->recvtype;
}

/* The staged path: device buffers copied whole into one pooled host block (each at the offsets
 * it has in the user's buffer, as the blocking staged path does), the copies waited for, the
 * MPI's nonblocking call made on the host copies. Results go back after it completes. */
static int launch_staged(mcoll_nbop *op)
{
    mcoll_call *c = &op->call;
    mcoll_buf *roles[2] = {&c->send, &c->recv};
    void *mpi_buf[2] = {(void *)(uintptr_t)c->sendbuf, c->recvbuf};
    size_t need[2] = {0, 0}, off = 0, bytes, extra;
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
    extra = unfolds_in_place(c) ? need[1] : 0;
    if (st && (!op->host || op->host->bytes < need[0] + need[1] + extra)) {
        mcoll_pool_put(op->host);
        op->host = mcoll_pool_get(0, need[0] + need[1] + extra);
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
    if (!failed && extra) unfold_in_place(c, op->host->ptr + need[0] + need[1], mpi_buf);
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

/* The hierarchical path: the steps are recorded at the first start (a persistent call keeps
 * them) and advanced in MCOLL_NB_HIER; a reduce root's host buffer gets the result through
 * pooled device memory, copied out at the end. */
static int launch_hier(mcoll_nbop *op)
{
    mcoll_call *c = &op->call;
    mcoll_result rc = MCOLL_SUCCESS;
    int host_root = mcoll_hier_path_host_root(c);
    take_context(op);
    op->ncopies = 0;
    if (host_root && !op->scratch && !(op->scratch = mcoll_pool_get(1, op->d.bytes ? op->d.bytes : 1)))
        rc = MCOLL_ERR_NO_MEMORY;
    if (!op->hop && rc == MCOLL_SUCCESS)
        op->hop = mcoll_hier_path_record(c, &op->d, host_root ? op->scratch->ptr : NULL, &rc);
    /* The copy out ends on the operation's event. */
    if (op->hop && host_root && !op->event && !(op->event = mcoll_pool_event())) rc = MCOLL_ERR_CUDA;
    if (!op->hop || rc != MCOLL_SUCCESS) {
        MCOLL_WARN("%s: cannot prepare the hierarchical steps (%s); MPI_ERR_OTHER raised", op->nb->name,
                   mcoll_strerror(rc));
        return mcoll_raise(c->comm, MPI_ERR_OTHER);
    }
    if (host_root) {
        op->copies[0] = (mcoll_copy){c->recvbuf, op->scratch->ptr, op->d.bytes, 0};
        op->ncopies = 1;
    }
    mcoll_hier_op_start(op->hop);
    op->error = MPI_SUCCESS;
    op->state = MCOLL_NB_HIER;
    return MPI_SUCCESS;
}

int mcoll_nbop_launch(mcoll_nbop *op)
{
    op->inner = MPI_REQUEST_NULL;
    if (op->d.path == MCOLL_PATH_HIER) return launch_hier(op);
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

/* 1 once the kernel has written op->word, or its stream has finished (0 while it runs); sets
 * op->error on failure. The stream is asked only every MCOLL_WORD_CHECK_NS of testing. */
static int word_passed(mcoll_nbop *op)
{
    mcoll_word *w = &op->engine->word;
    CUcontext before;
    mcoll_word_state state;
    if (mcoll_word_reached(w, op->word)) return 1;
    if (!mcoll_word_check_due(&op->word_checked)) return 0;
    before = mcoll_ctx_enter(op->ctx);
    state = mcoll_word_stream(w, (CUstream)mcoll_comm_nb_stream(op->engine), op->word, op->nb->name);
    mcoll_ctx_leave(op->ctx, before);
    if (state == MCOLL_WORD_RUNNING) return 0;
    if (state == MCOLL_WORD_FAILED) op->error = MPI_ERR_OTHER;
    return 1;
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
    mcoll_result ring_rc;
    switch (op->state) {
    case MCOLL_NB_RING:
        if (!mcoll_resident_test(op->engine, op->ticket, &ring_rc)) return 0;
        if (ring_rc != MCOLL_SUCCESS) {
            MCOLL_WARN("%s: the resident kernel did not run the call (%s); the request completes with MPI_ERR_OTHER",
                       op->nb->name, mcoll_strerror(ring_rc));
            op->error = MPI_ERR_OTHER;
        }
        op->engine = NULL;
        op->state = MCOLL_NB_DONE;
        break;
    case MCOLL_NB_QUEUED:
        if (atomic_load_explicit(&op->queued, memory_order_acquire)) return 0;
        if (op->error != MPI_SUCCESS) {
            op->engine = NULL;
            op->state = MCOLL_NB_DONE;
            break;
        }
        op->state = MCOLL_NB_KERNEL;
        /* fall through */
    case MCOLL_NB_KERNEL:
        if (op->word ? !word_passed(op) : !event_passed(op)) return 0;
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
    case MCOLL_NB_HIER: {
        CUcontext before = mcoll_ctx_enter(op->ctx);
        mcoll_result hrc = MCOLL_SUCCESS;
        int done = mcoll_hier_op_test(op->hop, &hrc);
        mcoll_ctx_leave(op->ctx, before);
        if (!done) return 0;
        if (hrc != MCOLL_SUCCESS) {
            MCOLL_WARN("%s: hierarchical collective failed (%s); the request completes with MPI_ERR_OTHER",
                       op->nb->name, mcoll_strerror(hrc));
            op->error = MPI_ERR_OTHER;
        }
        if (op->error == MPI_SUCCESS && op->ncopies) copy_out(op);
        else op->state = MCOLL_NB_DONE;
        break;
    }
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
    mcoll_engine_release_held(&op->held);
    /* Still in flight only when MPI_Finalize could not finish it: left as it is. */
    if (op->hop && !mcoll_hier_op_in_flight(op->hop)) {
        mcoll_hier_op_free(op->hop);
        op->hop = NULL;
    }
}
