/* The steps every intercepted collective takes (see pmpi.h): validate, lay out, classify,
 * choose a path, run it, and say in one INFO line which path it took and why. */
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include "pmpi.h"
#include "plugin.h"
#include "validate.h"
#include "typeinfo.h"
#include "half.h"
#include "dtype.h"
#include "engine.h"
#include "stage.h"
#include "config.h"
#include "driver.h"
#include "log.h"

typedef enum { PATH_MPI, PATH_ENGINE, PATH_DIRECT, PATH_STAGED } mcoll_path;
static const char *const path_names[] = {"mpi", "engine", "direct", "staged"};

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

/* Fill the datatype geometry of an active role and classify its memory. */
static void describe(mcoll_buf *b)
{
    const mcoll_type_info *info = mcoll_typeinfo_lookup(b->type);
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
    first = b->true_lb + (b->extent < 0 ? (MPI_Aint)(b->count - 1) * b->extent : 0);
    b->mem = mcoll_classify(b->user + first, &b->device);
    /* Writing back a span with gaps needs the gaps' current contents first. */
    if (b->out && !b->in && !b->dense && b->mem != MCOLL_MEM_HOST) b->in = 1;
}

/* Why the engines do not take this call, or NULL when they may be asked. */
static const char *engine_refusal(mcoll_call *c)
{
    const mcoll_settings *s = mcoll_settings_get();
    const mcoll_buf *bufs[2] = {&c->send, &c->recv};
    mcoll_dtype dt;
    mcoll_op op;
    int k;
    if (s->engine == MCOLL_ENGINE_STAGED) return "off (MCOLL_ENGINE=staged)";
    if (!c->coll->engine) return "none for this collective";
    if (c->cs->is_inter) return "intercommunicator";
    for (k = 0; k < 2; k++) {
        if (!active(bufs[k])) continue;
        if (!bufs[k]->dense || bufs[k]->true_lb != 0) return "datatype not contiguous";
        if (bufs[k]->mem == MCOLL_MEM_HOST && !bufs[k]->local_only) return "host and device buffers mixed";
    }
    if (c->op != MPI_OP_NULL &&
        (mcoll_dtype_from_mpi(c->type, &dt) != 0 || mcoll_op_from_mpi(c->op, dt, &op) != 0))
        return "datatype or op not in the kernels";
    if (c->cs->size < s->min_ranks) return "communicator below MCOLL_MIN_RANKS";
    if (!mcoll_comm_node_local(c->cs)) return "communicator spans nodes";
    return NULL;
}

/* Elementwise calls larger than MCOLL_STAGE_CHUNK may be pipelined in chunks, which changes the
 * sequence of PMPI calls, so every rank must chunk or none: one small allreduce settles it
 * (also on ranks with host buffers, which then run the same chunks straight from their
 * buffers). Chunks are cut at the same element on every rank, which needs the same count and
 * datatype size everywhere (reductions guarantee it; a broadcast may differ, and then runs
 * whole). Returns the chunk in elements (0: whole) or -1 with *err set. */
static int agree_chunk(mcoll_call *c, int want, int *err)
{
    const mcoll_buf *b = active(&c->recv) ? &c->recv : &c->send;
    size_t chunk_bytes = mcoll_settings_get()->stage_chunk, elems;
    int v[6];
    v[0] = want;
    v[1] = b->size;
    v[2] = -b->size;
    v[3] = c->count;
    v[4] = -c->count;
    v[5] = b->extent <= 0 || b->size <= 0; /* such a rank cannot cut its buffer */
    *err = PMPI_Allreduce(MPI_IN_PLACE, v, 6, MPI_INT, MPI_MAX, c->comm);
    if (*err != MPI_SUCCESS) return -1;
    if (!v[0] || v[5] || v[1] != -v[2] || v[3] != -v[4]) return 0;
    elems = chunk_bytes / (size_t)v[1];
    if (elems == 0) elems = 1;
    return elems >= (size_t)c->count ? 0 : (int)elems;
}

static void log_path(const mcoll_call *c, mcoll_path path, const char *why, const char *engine_why, int chunk)
{
    const mcoll_buf *b = active(&c->send) ? &c->send : &c->recv;
    const mcoll_type_info *info = mcoll_typeinfo_lookup(b->type);
    char chunks[48] = "";
    long long bytes = (long long)b->count * b->size;
    if (chunk > 0) snprintf(chunks, sizeof chunks, ", %d-element chunks", chunk);
    MCOLL_INFO("%s %lld B %s%s%s: %s (%s%s%s%s)", c->coll->name, bytes, info ? info->name : "derived datatype",
               c->op != MPI_OP_NULL ? " " : "", c->op != MPI_OP_NULL ? mcoll_op_text(c->op) : "",
               path_names[path], why, engine_why ? ", engine: " : "", engine_why ? engine_why : "", chunks);
    MCOLL_TRACE("%s: send %p (%s, device %d, %s) recv %p (%s, device %d, %s)", c->coll->name, c->sendbuf,
                c->send.mem == MCOLL_MEM_HOST ? "host" : c->send.mem == MCOLL_MEM_DEVICE ? "device" : "managed",
                c->send.device, active(&c->send) ? (c->send.staged ? "staged" : "direct") : "unused",
                c->recvbuf, c->recv.mem == MCOLL_MEM_HOST ? "host" : c->recv.mem == MCOLL_MEM_DEVICE ? "device" : "managed",
                c->recv.device, active(&c->recv) ? (c->recv.staged ? "staged" : "direct") : "unused");
}

int mcoll_pmpi_run(mcoll_call *c)
{
    const char *why = "host buffers", *engine_why = NULL;
    mcoll_path path = PATH_MPI;
    int err, chunk = 0, cuda_failed = 0;

    c->mpi_op = mcoll_half_op(c->type, c->op);
    if (!mcoll_plugin_active) return c->coll->mpi(c, c->sendbuf, c->recvbuf, c->count);
    if (mcoll_comm_is_null(c->comm)) return mcoll_raise(c->comm, MPI_ERR_COMM);
    c->cs = mcoll_comm_state_get(c->comm);
    if (!c->cs) return c->coll->mpi(c, c->sendbuf, c->recvbuf, c->count); /* MPI reports what is wrong */
    err = c->coll->validate(c);
    if (err != MPI_SUCCESS) return mcoll_raise(c->comm, err);

    mcoll_buf_set(&c->send, NULL, MPI_DATATYPE_NULL, 0, 0, 0);
    mcoll_buf_set(&c->recv, NULL, MPI_DATATYPE_NULL, 0, 0, 0);
    c->coll->layout(c);
    if (active(&c->send)) describe(&c->send);
    if (active(&c->recv)) describe(&c->recv);
    if (drop_ignored(&c->send)) c->sendbuf = NULL;
    if (drop_ignored(&c->recv)) c->recvbuf = NULL;
    if ((long long)c->send.count * c->send.size + (long long)c->recv.count * c->recv.size == 0) why = "no data";

    if ((active(&c->send) && c->send.mem != MCOLL_MEM_HOST) || (active(&c->recv) && c->recv.mem != MCOLL_MEM_HOST)) {
        engine_why = engine_refusal(c);
        if (!engine_why) {
            mcoll_result rc = c->coll->engine(c);
            if (rc == MCOLL_SUCCESS) {
                log_path(c, PATH_ENGINE, "device buffers", NULL, 0);
                return MPI_SUCCESS;
            }
            if (rc != MCOLL_ERR_UNSUPPORTED) {
                MCOLL_WARN("%s: GPU engine failed (%s); MPI_ERR_OTHER raised", c->coll->name, mcoll_strerror(rc));
                return mcoll_raise(c->comm, MPI_ERR_OTHER);
            }
            engine_why = "declined";
        }
        path = mcoll_mpi_cuda_aware ? PATH_DIRECT : PATH_STAGED;
        why = mcoll_mpi_cuda_aware ? "MPI is CUDA-aware" : "MPI not CUDA-aware";
        c->send.staged = path == PATH_STAGED && active(&c->send) && c->send.mem != MCOLL_MEM_HOST;
        c->recv.staged = path == PATH_STAGED && active(&c->recv) && c->recv.mem != MCOLL_MEM_HOST;
    }

    if (c->coll->elementwise && !mcoll_mpi_cuda_aware && !c->cs->is_inter &&
        (size_t)c->count * (size_t)(active(&c->recv) ? c->recv.size : c->send.size) > mcoll_settings_get()->stage_chunk) {
        chunk = agree_chunk(c, path == PATH_STAGED, &err);
        if (chunk < 0) return err;
    }
    log_path(c, path, why, engine_why, chunk);
    err = mcoll_stage_run(c, chunk, &cuda_failed);
    /* A PMPI error has been through the error handler already; a failed copy has not. */
    if (cuda_failed && err == MPI_SUCCESS) return mcoll_raise(c->comm, MPI_ERR_OTHER);
    return err;
}
