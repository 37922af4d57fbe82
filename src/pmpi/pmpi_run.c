/* The steps every intercepted collective takes (see pmpi.h): look up, validate, lay out,
 * classify, decide, run, and say which path it took and why (INFO once per communicator and
 * decision, TRACE every time). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include "pmpi.h"
#include "plugin.h"
#include "validate.h"
#include "half.h"
#include "decide.h"
#include "engine.h"
#include "hier_path.h"
#include "dtype.h"
#include "stage.h"
#include "log.h"
#include "watchdog.h"
#include "clock.h"

static const char *const path_names[] = {"mpi", "engine", "direct", "staged", "hier"};

void mcoll_buf_set(mcoll_buf *b, const void *user, MPI_Datatype type, MPI_Aint count, int in, int out)
{
    memset(b, 0, sizeof *b);
    b->user = (char *)(uintptr_t)user;
    b->type = type;
    b->count = count;
    b->in = in;
    b->out = out;
    b->out_count = count;
    b->device = -1;
}

void mcoll_buf_ignore(mcoll_buf *b, const void *user)
{
    mcoll_buf_set(b, user, MPI_DATATYPE_NULL, 0, 0, 0);
    b->ignored = 1;
}

MPI_Aint mcoll_block_is_count(const mcoll_call *c, const char **why)
{
    (void)why;
    return c->count;
}

int mcoll_is_root(const mcoll_call *c)
{
    return c->cs->is_inter ? c->root == MPI_ROOT : c->root == c->cs->rank;
}

int mcoll_is_leaf(const mcoll_call *c)
{
    return !c->cs->is_inter || (c->root != MPI_ROOT && c->root != MPI_PROC_NULL);
}

static int active(const mcoll_buf *b) { return b->in || b->out; }

/* Even an argument MPI does not read (reduce's recvbuf off the root, any buffer of a count-0
 * call) must not hand device memory to an MPI that is not CUDA-aware: it becomes NULL. */
static int drop_ignored(mcoll_buf *b)
{
    int device;
    if (!b->ignored || !b->user || (void *)b->user == MPI_IN_PLACE || mcoll_mpi_cuda_aware) return 0;
    if (mcoll_classify(b->user, &device) == MCOLL_MEM_HOST) return 0;
    b->user = NULL;
    return 1;
}

/* The table row of one of the call's datatypes (NULL: derived). */
static const mcoll_type_info *row(const mcoll_call *c, MPI_Datatype type)
{
    if (type == c->type) return c->info;
    if (type == c->recvtype) return c->recvinfo;
    return mcoll_typeinfo_lookup(type); /* the w variants' spans, in MPI_BYTE */
}

/* Fill the datatype geometry of an active role (from the call's table row when it has one)
 * and classify its memory. */
static void describe(const mcoll_call *c, mcoll_buf *b)
{
    const mcoll_type_info *info = row(c, b->type);
    MPI_Aint lb = 0, first;
    if (info) {
        b->size = info->size;
        b->extent = info->extent;
        b->true_lb = info->true_lb;
        b->true_extent = info->true_extent;
    } else {
        PMPI_Type_size(b->type, &b->size);
        PMPI_Type_get_extent(b->type, &lb, &b->extent);
        PMPI_Type_get_true_extent(b->type, &b->true_lb, &b->true_extent);
    }
    b->dense = (MPI_Aint)b->size == b->extent && b->extent == b->true_extent;
    b->mem = MCOLL_MEM_HOST;
    if (b->count <= 0 || b->size <= 0) { /* holds no data: MPI will not read the pointer */
        b->ignored = 1;
        return;
    }
    first = b->first * b->extent + b->true_lb + (b->extent < 0 ? (MPI_Aint)(b->count - 1) * b->extent : 0);
    b->mem = mcoll_classify(b->user + first, &b->device);
    /* Writing back a span with gaps needs the gaps' current contents first. */
    if (b->out && !b->in && !b->dense && b->mem != MCOLL_MEM_HOST) b->in = 1;
}

static const char *mem_name(mcoll_mem_kind m)
{
    return m == MCOLL_MEM_HOST ? "host" : m == MCOLL_MEM_DEVICE ? "device" : "managed";
}

static void log_path(const mcoll_call *c, const mcoll_decision *d)
{
    const mcoll_buf *b = active(&c->send) ? &c->send : &c->recv;
    const mcoll_type_info *info = row(c, b->type);
    const char *type_name = c->sendtypes || c->recvtypes ? "datatypes per peer"
                            : info                        ? info->name
                                                          : "derived datatype";
    char chunks[48] = "";
    long long bytes = (long long)b->count * b->size;
    mcoll_decision_key key = {c->coll, c->form, d->path, d->why, d->engine_why};
    if (mcoll_log_level < MCOLL_LOG_INFO) return;
    if (d->chunk > 0) snprintf(chunks, sizeof chunks, ", %d-element chunks", d->chunk);
    /* INFO once per communicator and decision, TRACE for every call (reported.h). */
    mcoll_log_print(mcoll_reported_level(c->cs ? &c->cs->reported : NULL, &key), __FILE__, __LINE__,
                    "%s %lld B %s%s%s: %s (%s%s%s%s)", c->coll->name, bytes, type_name,
                    c->op != MPI_OP_NULL ? " " : "", c->op != MPI_OP_NULL ? mcoll_op_text(c->op) : "",
                    path_names[d->path], d->why, d->engine_why ? ", engine: " : "",
                    d->engine_why ? d->engine_why : "", chunks);
    if (d->path == MCOLL_PATH_ENGINE)
        MCOLL_TRACE("%s: %zu elements of %s, %zu B per rank%s%s%s", c->coll->name, d->count,
                    d->base ? d->base->name : "bytes", d->bytes, d->reduces ? ", kernel " : "",
                    d->reduces ? mcoll_op_name(d->op) : "", d->reduces ? (d->multimem ? " (multimem)" : " (unicast)") : "");
    MCOLL_TRACE("%s: send %p (%s, device %d, %s) recv %p (%s, device %d, %s)", c->coll->name, c->sendbuf,
                mem_name(c->send.mem), c->send.device, active(&c->send) ? (c->send.staged ? "staged" : "direct") : "unused",
                c->recvbuf, mem_name(c->recv.mem), c->recv.device,
                active(&c->recv) ? (c->recv.staged ? "staged" : "direct") : "unused");
}

/* Raise through the error handler of the call's communicator (MPI_COMM_WORLD's for the calls
 * that have none), naming the user's call. */
static int raise_error(const mcoll_call *c, int errclass)
{
    char fn[64];
    return mcoll_raise_in(mcoll_call_name(c, fn, sizeof fn), c->local ? MPI_COMM_WORLD : c->comm, errclass);
}

/* A process of the call's communicator has exited (the watchdog saw it): every path of a call on
 * device buffers would wait for it for ever (MPI, or a new team's creation). Said once. */
static int lost_member(const mcoll_call *c)
{
    static int said;
    int world_rank;
    if (!mcoll_watch_lost_member(c->comm, &world_rank)) return 0;
    /* Its team's failure, if it has one, is taken now: the watchdog need not end the job. */
    mcoll_engine_take_failure(c->cs);
    if (!__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
        MCOLL_WARN("%s: MPI_COMM_WORLD rank %d of this communicator has exited; calls on device buffers of "
                   "communicators that hold it fail with MPI_ERR_OTHER",
                   c->coll->name, world_rank);
    return 1;
}

/* Try the engine; 1 when the call is done (*err set), 0 to fall back. t0: the call's entry
 * (mcoll_trace_ns). */
static int run_engine(mcoll_call *c, mcoll_decision *d, int *err, uint64_t t0)
{
    const uint64_t t1 = mcoll_trace_ns();
    mcoll_result rc = mcoll_engine_root(c, d, c->coll->engine);
    if (rc == MCOLL_SUCCESS) {
        /* Where a call's time goes: the plug-in's own steps, then the engine's (its kernel and
         * the wait for it included). */
        MCOLL_TRACE("%s: %.2f us to decide, %.2f us in the engine", c->coll->name, mcoll_trace_us(t0, t1),
                    mcoll_trace_us(t1, mcoll_trace_ns()));
        log_path(c, d);
        *err = MPI_SUCCESS;
        return 1;
    }
    if (rc != MCOLL_ERR_UNSUPPORTED) {
        MCOLL_WARN("%s: GPU engine failed (%s); MPI_ERR_OTHER raised", c->coll->name, mcoll_strerror(rc));
        *err = raise_error(c, MPI_ERR_OTHER);
        return 1;
    }
    mcoll_decide_without_engine(c, d, "declined");
    return 0;
}

int mcoll_pmpi_prepare(mcoll_call *c, mcoll_decision *d)
{
    int err;

    c->mpi_op = mcoll_half_op(c->type, c->op);
    if (!mcoll_plugin_active) return MCOLL_PMPI_FORWARD;
    if (mcoll_comm_is_null(c->comm)) return raise_error(c, MPI_ERR_COMM);
    if (!c->cs) c->cs = mcoll_comm_state_get(c->comm);
    if (!c->cs) return MCOLL_PMPI_FORWARD; /* MPI reports what is wrong */
    /* The one lookup of the call's datatypes and op in the table. */
    c->info = mcoll_typeinfo_lookup(c->type);
    c->recvinfo = c->recvtype == c->type ? c->info : mcoll_typeinfo_lookup(c->recvtype);
    c->opi = c->op == MPI_OP_NULL ? -1 : mcoll_op_index(c->op);
    err = c->coll->validate(c);
    if (err != MPI_SUCCESS) return raise_error(c, err);

    mcoll_buf_set(&c->send, NULL, MPI_DATATYPE_NULL, 0, 0, 0);
    mcoll_buf_set(&c->recv, NULL, MPI_DATATYPE_NULL, 0, 0, 0);
    c->coll->layout(c);
    if (active(&c->send)) describe(c, &c->send);
    if (active(&c->recv)) describe(c, &c->recv);
    if (drop_ignored(&c->send)) c->sendbuf = NULL;
    if (drop_ignored(&c->recv)) c->recvbuf = NULL;

    /* Before the decision, which may ask the communicator's ranks together. */
    if ((c->send.mem != MCOLL_MEM_HOST || c->recv.mem != MCOLL_MEM_HOST) && !c->local && lost_member(c))
        return raise_error(c, MPI_ERR_OTHER);
    mcoll_decide(c, d);
    return MPI_SUCCESS;
}

void mcoll_pmpi_log_path(const mcoll_call *c, const mcoll_decision *d) { log_path(c, d); }

int mcoll_pmpi_run(mcoll_call *c)
{
    mcoll_decision d;
    int err, cuda_failed = 0;
    const uint64_t t0 = mcoll_trace_ns();

    err = mcoll_pmpi_prepare(c, &d);
    if (err == MCOLL_PMPI_FORWARD) return c->coll->mpi(c, c->sendbuf, c->recvbuf, c->count);
    if (err != MPI_SUCCESS) return err;
    if (d.path == MCOLL_PATH_ENGINE && run_engine(c, &d, &err, t0)) return err;
    if (d.path == MCOLL_PATH_HIER) { /* the engine inside each domain, MPI between */
        mcoll_result rc = mcoll_hier_path_run(c, &d);
        log_path(c, &d);
        if (rc == MCOLL_SUCCESS) return MPI_SUCCESS;
        MCOLL_WARN("%s: hierarchical collective failed (%s); MPI_ERR_OTHER raised", c->coll->name, mcoll_strerror(rc));
        return raise_error(c, MPI_ERR_OTHER);
    }
    err = mcoll_decide_chunk(c, &d);
    if (err != MPI_SUCCESS) return err;
    log_path(c, &d);
    err = mcoll_stage_run(c, d.chunk, &cuda_failed);
    /* A PMPI error has been through the error handler already; a failed copy has not. */
    if (cuda_failed && err == MPI_SUCCESS) return raise_error(c, MPI_ERR_OTHER);
    return err;
}
