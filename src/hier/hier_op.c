/* Nonblocking and persistent hierarchical calls: recording and advancing (see hier_op.h). */
#define _POSIX_C_SOURCE 200809L
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "comm_internal.h"
#include "hier_op.h"
#include "locality.h"
#include "log.h"

/* Where an MPI step is under way. */
typedef enum { MPI_STAGED_IN = 1, MPI_POSTED, MPI_STAGED_OUT } mpi_phase;

struct mcoll_hier_op {
    mcoll_hier *h;
    mcoll_hier_args a;           /* the call, as recorded */
    hier_step *steps;
    size_t nsteps, cap;
    mcoll_comm *engine;          /* the domain's engine the steps use, or NULL */
    char *scratch;               /* the call's own scratch memory (device, or host for host calls) */
    size_t scratch_bytes;
    char *host;                  /* pinned staging memory for the MPI steps */
    size_t host_bytes;
    int host_registered;
    CUevent event;               /* after the queued work of the step under way */
    CUevent marks[2];            /* MARK and WAIT steps (engine steps only) */
    /* The current start. */
    size_t next;                 /* the step under way */
    int phase;                   /* 0: not started; then a step's own (mpi_phase, or 1) */
    MPI_Request req;
    mcoll_result rc;             /* the first failure; later steps are still made */
    atomic_int in_flight;        /* started and not done (read without the queue lock) */
    atomic_int advancing;        /* one thread at a time advances it */
    struct mcoll_hier_op *queue_next;
};

/* ---- recording ---------------------------------------------------------------------------- */

static hier_step *append(hier_run *x, hier_step_kind kind)
{
    mcoll_hier_op *op = x->rec;
    hier_step *s;
    if (op->nsteps == op->cap) {
        size_t cap = op->cap ? 2 * op->cap : 16;
        hier_step *grown = realloc(op->steps, cap * sizeof *grown);
        if (!grown) {
            if (x->rc == MCOLL_SUCCESS) x->rc = MCOLL_ERR_NO_MEMORY;
            return NULL;
        }
        op->steps = grown;
        op->cap = cap;
    }
    s = &op->steps[op->nsteps++];
    memset(s, 0, sizeof *s);
    s->kind = kind;
    return s;
}

void hier_record_engine(hier_run *x, const hier_engine_step *e)
{
    hier_step *s = append(x, HIER_STEP_ENGINE);
    if (!s) return;
    s->engine = *e;
    s->queued = x->queued;
    x->rec->engine = x->engine;
}

/* A step's per-domain array, kept at `at` of its own (NULL stays NULL). */
static const int *keep(int *at, const int *a, size_t nd)
{
    if (!a) return NULL;
    memcpy(at, a, nd * sizeof(int));
    return at;
}

/* counts, displs, rcounts and rdispls have one entry per domain (on the cross communicator). */
void hier_record_mpi(hier_run *x, const hier_mpi_step *m)
{
    mcoll_hier_op *op = x->rec;
    size_t nd = (size_t)x->h->domains;
    hier_step *s = append(x, HIER_STEP_MPI);
    if (!s) return;
    s->mpi = *m;
    if (m->counts || m->displs || m->rcounts || m->rdispls) {
        s->arrays = malloc(4 * nd * sizeof(int));
        if (!s->arrays) {
            if (x->rc == MCOLL_SUCCESS) x->rc = MCOLL_ERR_NO_MEMORY;
            op->nsteps--;
            return;
        }
        s->mpi.counts = keep(s->arrays, m->counts, nd);
        s->mpi.displs = keep(s->arrays + nd, m->displs, nd);
        s->mpi.rcounts = keep(s->arrays + 2 * nd, m->rcounts, nd);
        s->mpi.rdispls = keep(s->arrays + 3 * nd, m->rdispls, nd);
    }
    if (x->a->device && !x->a->cuda_aware && hier_mpi_staging_bytes(m) > op->host_bytes)
        op->host_bytes = hier_mpi_staging_bytes(m);
}

void hier_record_copy(hier_run *x, const hier_copy_step *c)
{
    hier_step *s = append(x, HIER_STEP_COPY);
    if (!s) return;
    s->copy = *c;
    s->queued = x->queued && x->engine;
}

void hier_record_point(hier_run *x, hier_step_kind kind, int slot)
{
    hier_step *s = append(x, kind);
    if (!s) return;
    s->slot = slot;
    x->rec->engine = x->engine;
}

void hier_record_reduce(hier_run *x, char *parts, int d, size_t n)
{
    size_t bytes = (size_t)d * n * x->a->esize;
    hier_step *s = append(x, HIER_STEP_REDUCE);
    if (!s) return;
    s->reduce.parts = parts;
    s->reduce.d = d;
    s->reduce.n = n;
    if (x->engine) x->rec->engine = x->engine;
    else if (bytes > x->rec->host_bytes) x->rec->host_bytes = bytes; /* reduced on the host */
}

char *hier_record_scratch(hier_run *x, size_t bytes)
{
    mcoll_hier_op *op = x->rec;
    CUdeviceptr p = 0;
    if (op->scratch && bytes <= op->scratch_bytes) return op->scratch;
    if (op->scratch) { /* the algorithms take one region per call */
        if (x->rc == MCOLL_SUCCESS) x->rc = MCOLL_ERR_INTERNAL;
        return NULL;
    }
    if (!x->a->device) op->scratch = malloc(bytes);
    else if (mcoll_cu.cuMemAlloc(&p, bytes) == CUDA_SUCCESS) op->scratch = (char *)(uintptr_t)p;
    if (!op->scratch) {
        MCOLL_WARN("cannot allocate %zu bytes of scratch memory for a nonblocking hierarchical collective", bytes);
        if (x->rc == MCOLL_SUCCESS) x->rc = MCOLL_ERR_NO_MEMORY;
        return NULL;
    }
    op->scratch_bytes = bytes;
    return op->scratch;
}

mcoll_hier_op *mcoll_hier_op_record(mcoll_hier *h, const mcoll_hier_args *a, mcoll_hier_collective collective,
                                    mcoll_result *rc)
{
    mcoll_hier_op *op = calloc(1, sizeof *op);
    if (!op) {
        *rc = MCOLL_ERR_NO_MEMORY;
        return NULL;
    }
    op->h = h;
    op->a = *a;
    op->req = MPI_REQUEST_NULL;
    h->recording = op;
    *rc = collective(h, &op->a);
    h->recording = NULL;
    if (*rc == MCOLL_SUCCESS && op->host_bytes) {
        op->host = hier_host_alloc(op->host_bytes, &op->host_registered, 1);
        if (!op->host) *rc = MCOLL_ERR_NO_MEMORY;
    }
    if (*rc == MCOLL_SUCCESS && a->device &&
        (mcoll_cu.cuEventCreate(&op->event, CU_EVENT_DISABLE_TIMING) != CUDA_SUCCESS ||
         (op->engine && (mcoll_cu.cuEventCreate(&op->marks[0], CU_EVENT_DISABLE_TIMING) != CUDA_SUCCESS ||
                         mcoll_cu.cuEventCreate(&op->marks[1], CU_EVENT_DISABLE_TIMING) != CUDA_SUCCESS))))
        *rc = MCOLL_ERR_CUDA;
    if (*rc != MCOLL_SUCCESS) {
        mcoll_hier_op_free(op);
        return NULL;
    }
    return op;
}

void mcoll_hier_op_free(mcoll_hier_op *op)
{
    size_t i;
    if (!op) return;
    for (i = 0; i < op->nsteps; i++) free(op->steps[i].arrays);
    free(op->steps);
    if (op->scratch) {
        if (op->a.device) mcoll_cu.cuMemFree((CUdeviceptr)(uintptr_t)op->scratch);
        else free(op->scratch);
    }
    if (op->host) hier_host_free(op->host, op->host_bytes, op->host_registered);
    if (op->event) mcoll_cu.cuEventDestroy(op->event);
    if (op->marks[0]) mcoll_cu.cuEventDestroy(op->marks[0]);
    if (op->marks[1]) mcoll_cu.cuEventDestroy(op->marks[1]);
    free(op);
}

/* ---- advancing ---------------------------------------------------------------------------- */

static void failed(mcoll_hier_op *op, mcoll_result rc)
{
    if (op->rc == MCOLL_SUCCESS) op->rc = rc;
}

static void cu_check(mcoll_hier_op *op, CUresult r, const char *what)
{
    if (r == CUDA_SUCCESS) return;
    MCOLL_WARN("nonblocking hierarchical collective: %s failed (%s)", what, mcoll_cu_errname(r));
    failed(op, MCOLL_ERR_CUDA);
}

/* 1 once the work before `event` is done. */
static int passed(mcoll_hier_op *op, CUevent event)
{
    CUresult r = mcoll_cu.cuEventQuery(event);
    if (r == CUDA_ERROR_NOT_READY) return 0;
    cu_check(op, r, "cuEventQuery");
    return 1;
}

static int event_passed(mcoll_hier_op *op) { return passed(op, op->event); }

static CUstream engine_stream(const mcoll_hier_op *op) { return (CUstream)mcoll_comm_stream(op->engine); }

/* Until the engine has run what is queued on it (a peer gone ends the wait too). */
static int engine_caught_up(mcoll_hier_op *op)
{
    if (op->phase == 0) {
        cu_check(op, mcoll_cu.cuEventRecord(op->event, engine_stream(op)), "cuEventRecord");
        op->phase = 1;
    }
    if (!event_passed(op)) return 0;
    if (mcoll_watch_aborted(&op->engine->team->watch)) failed(op, MCOLL_ERR_ABORTED);
    return 1;
}

/* Queued on the engine; inside a pipeline done at once, else when the engine has run it. */
static int engine_step(mcoll_hier_op *op, const hier_step *s)
{
    mcoll_result r;
    if (op->phase == 0) {
        r = hier_engine_queue(op->engine, &op->a, &s->engine);
        if (r != MCOLL_SUCCESS) {
            MCOLL_WARN("nonblocking hierarchical collective: the domain's engine failed (%s)", mcoll_strerror(r));
            failed(op, r);
        }
        if (s->queued) return 1;
    }
    return engine_caught_up(op);
}

static int copy_step(mcoll_hier_op *op, const hier_step *s)
{
    if (op->phase == 0) {
        cu_check(op, hier_copy_queue(&s->copy, op->a.device, s->queued ? engine_stream(op) : op->h->stream),
                 "device copy");
        if (!op->a.device || s->queued) return 1;
        cu_check(op, mcoll_cu.cuEventRecord(op->event, op->h->stream), "cuEventRecord");
        op->phase = 1;
    }
    return event_passed(op);
}

static void stage(mcoll_hier_op *op, void *dst, const void *src, size_t bytes, int to_host)
{
    if (hier_stage_copy(op->h->stream, dst, src, bytes, to_host) != CUDA_SUCCESS) failed(op, MCOLL_ERR_CUDA);
}

/* Staged through op->host when the buffers are device memory the MPI cannot take: inputs copied
 * in, the MPI's nonblocking call, the output copied back; every phase ends on a query. The MPI
 * call is made even after a failed copy, so the peers are not left waiting. */
static int mpi_step(mcoll_hier_op *op, const hier_step *s)
{
    const hier_mpi_step *m = &s->mpi;
    int staged = op->a.device && !op->a.cuda_aware, has_in = m->in && m->in != MPI_IN_PLACE && m->in_bytes;
    size_t in_room = hier_mpi_in_room(m);
    int flag = 0;
    switch (op->phase) {
    case 0:
        if (staged) {
            if (has_in) stage(op, op->host, m->in, m->in_bytes, 1);
            if (m->out && m->out_bytes && m->out_read) stage(op, op->host + in_room, m->out, m->out_bytes, 1);
            cu_check(op, mcoll_cu.cuEventRecord(op->event, op->h->stream), "cuEventRecord");
        }
        op->phase = MPI_STAGED_IN;
        /* fall through */
    case MPI_STAGED_IN:
        if (staged && !event_passed(op)) return 0;
        if (hier_mpi_call(&op->a, m, staged && has_in ? op->host : m->in,
                          staged && m->out && m->out_bytes ? op->host + in_room : m->out, &op->req) != MPI_SUCCESS) {
            failed(op, MCOLL_ERR_MPI);
            return 1;
        }
        op->phase = MPI_POSTED;
        /* fall through */
    case MPI_POSTED:
        if (PMPI_Test(&op->req, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
            failed(op, MCOLL_ERR_MPI);
            return 1;
        }
        if (!flag) return 0;
        if (!staged || !m->out || !m->out_bytes) return 1;
        stage(op, m->out, op->host + in_room, m->out_bytes, 0);
        cu_check(op, mcoll_cu.cuEventRecord(op->event, op->h->stream), "cuEventRecord");
        op->phase = MPI_STAGED_OUT;
        /* fall through */
    default:
        return event_passed(op);
    }
}

/* On the engine's stream, done when the engine has run it; without an engine, on the host: the
 * copies brought over, reduced with PMPI_Reduce_local and the sum copied back, all at once (local
 * work: nothing here waits for a peer). */
static int reduce_step(mcoll_hier_op *op, const hier_step *s)
{
    const mcoll_hier_args *a = &op->a;
    size_t n = s->reduce.n, bytes = n * a->esize, last = (size_t)(s->reduce.d - 1) * bytes;
    if (!n || op->rc != MCOLL_SUCCESS) return 1;
    if (op->engine) {
        if (op->phase == 0 && !hier_reduce_parts_gpu(a, s->reduce.parts, s->reduce.d, n, engine_stream(op))) {
            failed(op, MCOLL_ERR_CUDA);
            return 1;
        }
        return engine_caught_up(op);
    }
    stage(op, op->host, s->reduce.parts, last + bytes, 1);
    cu_check(op, mcoll_cu.cuStreamSynchronize(op->h->stream), "cuStreamSynchronize");
    if (op->rc == MCOLL_SUCCESS && !hier_reduce_parts_host(a, op->host, s->reduce.d, n)) failed(op, MCOLL_ERR_MPI);
    if (op->rc != MCOLL_SUCCESS) return 1;
    stage(op, s->reduce.parts + last, op->host + last, bytes, 0);
    cu_check(op, mcoll_cu.cuStreamSynchronize(op->h->stream), "cuStreamSynchronize");
    return 1;
}

/* 1 when step op->next is done. */
static int advance_step(mcoll_hier_op *op)
{
    const hier_step *s = &op->steps[op->next];
    switch (s->kind) {
    case HIER_STEP_ENGINE: return engine_step(op, s);
    case HIER_STEP_COPY: return copy_step(op, s);
    case HIER_STEP_MPI: return mpi_step(op, s);
    case HIER_STEP_MARK:
        cu_check(op, mcoll_cu.cuEventRecord(op->marks[s->slot], engine_stream(op)), "cuEventRecord");
        return 1;
    case HIER_STEP_WAIT: return passed(op, op->marks[s->slot]);
    case HIER_STEP_FINISH: return engine_caught_up(op);
    case HIER_STEP_REDUCE: return reduce_step(op, s);
    }
    return 1;
}

/* The queue of h's calls in flight is changed by the thread that starts a call and by the one
 * that finishes the oldest (MPI_THREAD_MULTIPLE allows them to differ). */
static void queue_lock(mcoll_hier *h)
{
    int free_ = 0;
    while (!atomic_compare_exchange_weak(&h->ops_lock, &free_, 1)) {
        free_ = 0;
        sched_yield();
    }
}

static void queue_unlock(mcoll_hier *h) { atomic_store(&h->ops_lock, 0); }

static mcoll_hier_op *queue_head(mcoll_hier *h)
{
    mcoll_hier_op *op;
    queue_lock(h);
    op = h->ops_head;
    queue_unlock(h);
    return op;
}

void mcoll_hier_op_start(mcoll_hier_op *op)
{
    mcoll_hier *h = op->h;
    op->next = 0;
    op->phase = 0;
    op->rc = MCOLL_SUCCESS;
    op->req = MPI_REQUEST_NULL;
    op->in_flight = 1;
    op->queue_next = NULL;
    queue_lock(h);
    if (h->ops_tail) h->ops_tail->queue_next = op;
    else h->ops_head = op;
    h->ops_tail = op;
    queue_unlock(h);
}

int mcoll_hier_op_in_flight(const mcoll_hier_op *op) { return op->in_flight; }

/* Advance the oldest call of h as far as queries allow. */
static void advance_head(mcoll_hier *h)
{
    mcoll_hier_op *op = queue_head(h);
    int busy = 0;
    if (!op || !atomic_compare_exchange_strong(&op->advancing, &busy, 1)) return;
    while (op->next < op->nsteps && advance_step(op)) {
        op->next++;
        op->phase = 0;
    }
    if (op->next == op->nsteps) {
        queue_lock(h);
        h->ops_head = op->queue_next;
        if (!h->ops_head) h->ops_tail = NULL;
        op->queue_next = NULL;
        op->in_flight = 0;
        queue_unlock(h);
    }
    atomic_store(&op->advancing, 0);
}

int mcoll_hier_op_test(mcoll_hier_op *op, mcoll_result *rc)
{
    /* The calls before it first; each one finished lets the next advance. */
    while (op->in_flight) {
        const mcoll_hier_op *head = queue_head(op->h);
        advance_head(op->h);
        if (queue_head(op->h) == head) return 0;
    }
    *rc = op->rc;
    return 1;
}

void hier_ops_drain(mcoll_hier *h)
{
    mcoll_hier_op *head;
    while ((head = queue_head(h)) != NULL) {
        advance_head(h);
        if (queue_head(h) == head) sched_yield();
    }
}
