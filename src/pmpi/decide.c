/* The decision of one call (see decide.h). */
#include <string.h>
#include "decide.h"
#include "plugin.h"
#include "signature.h"
#include "config.h"
#include "driver.h"
#include "hier_path.h"

static int active(const mcoll_buf *b) { return b->in || b->out; }
static int on_device(const mcoll_buf *b) { return active(b) && b->mem != MCOLL_MEM_HOST; }
/* A role whose blocks are all empty (or of a datatype of no bytes): its pointer means nothing,
 * and it does not count as a host buffer beside device ones. */
static int holds_data(const mcoll_buf *b) { return active(b) && !b->ignored; }

/* What the engines would run: for a reduction the kernels' dtype and op, read from the
 * signature's base type in the datatype table. Returns why the kernels cannot, or NULL. */
static const char *engine_kind(const mcoll_call *c, mcoll_decision *d)
{
    static const char *const no_kernel = "datatype or op not in the kernels";
    const mcoll_type_info *base;
    if (c->op != MPI_OP_NULL && c->opi < 0) return no_kernel; /* a user op */
    base = mcoll_signature(c->recvtype, c->recvinfo, &d->per_element);
    d->base = base;
    if (c->op == MPI_OP_NULL) return NULL; /* bytes are bytes */
    if (!base || base->kernel < 0 || base->kernel_op[c->opi] < 0) return no_kernel;
    d->reduces = 1;
    d->dtype = (mcoll_dtype)base->kernel;
    d->op = (mcoll_op)base->kernel_op[c->opi];
    d->multimem = (base->multimem_ops >> c->opi) & 1u;
    return NULL;
}

/* Elements the kernels can walk: back to back, or, for a reduction, the padded pairs of
 * MINLOC/MAXLOC (MPI_DOUBLE_INT, ...) laid out at their own extent, which the kernels reduce in
 * place (value and index; the span ends at the last element's data). */
static int kernel_layout(const mcoll_buf *b, const mcoll_decision *d)
{
    if (b->true_lb != 0) return 0;
    if (b->dense) return 1;
    return d->reduces && d->base && !d->base->dense && d->base->true_lb == 0 &&
           b->extent == d->per_element * d->base->extent;
}

/* Why the engines cannot take calls of this collective on this communicator at all, or NULL.
 * Rests only on what every rank sees alike. */
static const char *engine_off(const mcoll_call *c)
{
    const mcoll_settings *s = mcoll_settings_get();
    if (s->engine == MCOLL_ENGINE_STAGED) return "off (MCOLL_ENGINE=staged)";
    if (!c->coll->engine) return "none for this collective";
    if (c->cs->is_inter) return "intercommunicator";
    /* Choosing the engines for these would take an agreement, which a nonblocking call (or a
     * persistent one, whose plan is made at the initialization, also local) must not wait for. */
    if (c->coll->uneven && c->nonblocking) return "not agreed without waiting (nonblocking)";
    if (c->cs->size < s->min_ranks) return "communicator below MCOLL_MIN_RANKS";
    return NULL;
}

/* Why the engines do not take this call as this rank sees it, or NULL when they do. */
static const char *engine_refusal(const mcoll_call *c, mcoll_decision *d)
{
    const mcoll_buf *bufs[2] = {&c->send, &c->recv};
    const char *why = engine_off(c);
    MPI_Aint block;
    int k;
    if (why) return why;
    for (k = 0; k < 2; k++)
        if (holds_data(bufs[k]) && bufs[k]->mem == MCOLL_MEM_HOST && !bufs[k]->local_only)
            return "host and device buffers mixed";
    why = engine_kind(c, d);
    if (why) return why;
    for (k = 0; k < 2; k++)
        if (active(bufs[k]) && !kernel_layout(bufs[k], d)) return "datatype not contiguous";
    block = c->coll->engine_block(c, &why);
    if (block < 0) return why;
    d->count = (size_t)block * (size_t)d->per_element;
    /* the role whose datatype is c->recvtype */
    d->bytes = (size_t)block * (size_t)(active(&c->recv) ? c->recv.size : c->send.size);
    if (!mcoll_comm_one_domain(c->cs)) return c->cs->hier ? mcoll_hier_why : "communicator spans nodes";
    return NULL;
}

/* The collectives whose counts only some ranks know (gatherv, scatterv, alltoallv): a rank that
 * moves no data cannot tell whether the others use device buffers, so the ranks agree, with
 * one small PMPI_Allreduce, that some rank has device data for the engines and none refuses
 * them. Only where the engines could run at all (engine_off is uniform). Returns the engine's
 * refusal as this rank reports it, or NULL when the engines run the call. */
static const char *engine_agreed(mcoll_call *c, mcoll_decision *d)
{
    static const char *const other = "another rank has host buffers or a layout the engines cannot take";
    int has_data = holds_data(&c->send) || holds_data(&c->recv);
    int device = on_device(&c->send) || on_device(&c->recv);
    const char *why = engine_refusal(c, d);
    int v[2];
    v[0] = device && !why;                /* this rank wants the engines */
    v[1] = (has_data && !device) || why;  /* this rank cannot join them */
    if (PMPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_INT, MPI_MAX, c->comm) != MPI_SUCCESS) return "agreement failed";
    if (v[0] && !v[1]) return NULL;
    return why ? why : other;
}

/* Device buffers without the engines: to the MPI as they are, or through host memory. */
static void decide_fallback(mcoll_call *c, mcoll_decision *d)
{
    d->path = mcoll_mpi_cuda_aware ? MCOLL_PATH_DIRECT : MCOLL_PATH_STAGED;
    d->why = mcoll_mpi_cuda_aware ? "MPI is CUDA-aware" : "MPI not CUDA-aware";
    c->send.staged = d->path == MCOLL_PATH_STAGED && on_device(&c->send);
    c->recv.staged = d->path == MCOLL_PATH_STAGED && on_device(&c->recv);
}

/* The engines could take a call of gatherv, scatterv or alltoallv on this communicator: every
 * rank sees this alike (its domains are known by now: the communicator's first blocking call
 * asked it wherever a driver is loaded and the engines are on). Where building the engine
 * failed, on every rank alike, the call goes on as below and the engine declines it on the
 * ranks that ask. */
static int agreement_needed(mcoll_call *c)
{
    return c->coll->uneven && mcoll_driver_available() && !engine_off(c) && !(c->cs->engine_tried && !c->cs->engine) &&
           mcoll_comm_one_domain(c->cs);
}

/* Blocking and persistent calls with a zero-copy form whose largest buffer has
 * MCOLL_ZERO_COPY_MIN bytes or more: the bytes are alike on every rank, so every rank maps or
 * none (a persistent call once, at its initialization, which MPI lets wait for the other ranks).
 * Nonblocking calls do not: the mapping is collective (engine_map.h), which they must not wait
 * for. */
static int zero_copy_wanted(const mcoll_call *c, const mcoll_decision *d)
{
    const size_t min = mcoll_settings_get()->zero_copy_min;
    const size_t largest = d->bytes * (c->coll->zero_copy == MCOLL_ZERO_COPY_PER_RANK ? (size_t)c->cs->size : 1);
    return min && c->coll->zero_copy && c->form != MCOLL_CALL_NONBLOCKING && largest >= min;
}

void mcoll_decide(mcoll_call *c, mcoll_decision *d)
{
    memset(d, 0, sizeof *d);
    d->path = MCOLL_PATH_MPI;
    d->per_element = 1;
    d->why = "host buffers";
    if ((long long)c->send.count * c->send.size + (long long)c->recv.count * c->recv.size == 0) d->why = "no data";
    if (agreement_needed(c)) {
        d->engine_why = engine_agreed(c, d);
        if (!d->engine_why) {
            d->path = MCOLL_PATH_ENGINE;
            d->why = on_device(&c->send) || on_device(&c->recv) ? "device buffers" : "no data here, agreed";
            return;
        }
        if (!on_device(&c->send) && !on_device(&c->recv)) d->engine_why = NULL;
    }
    if (!on_device(&c->send) && !on_device(&c->recv)) return;
    if (!d->engine_why) d->engine_why = engine_refusal(c, d);
    if (!d->engine_why) {
        d->path = MCOLL_PATH_ENGINE;
        d->zero_copy = zero_copy_wanted(c, d);
        d->why = d->zero_copy ? "device buffers, zero-copy where every rank's can be mapped" : "device buffers";
        return;
    }
    /* Several NVLink domains: hierarchical where it can run the call (hier_path.h). */
    if (d->engine_why == mcoll_hier_why && mcoll_hier_takes(c, d)) return;
    decide_fallback(c, d);
}

void mcoll_decide_without_engine(mcoll_call *c, mcoll_decision *d, const char *why)
{
    d->engine_why = why;
    decide_fallback(c, d);
}

/* Chunks are cut at the same element on every rank, which needs the same count and datatype
 * size everywhere (reductions guarantee it; a broadcast may differ, and then runs whole). Ranks
 * with host buffers run the same chunks straight from their buffers. */
int mcoll_decide_chunk(mcoll_call *c, mcoll_decision *d)
{
    const mcoll_buf *b = active(&c->recv) ? &c->recv : &c->send;
    size_t chunk_bytes = mcoll_settings_get()->stage_chunk, elems;
    int v[6], err;

    d->chunk = 0;
    if (!c->coll->elementwise || mcoll_mpi_cuda_aware || c->cs->is_inter ||
        (size_t)c->count * (size_t)b->size <= chunk_bytes)
        return MPI_SUCCESS;
    v[0] = d->path == MCOLL_PATH_STAGED;
    v[1] = b->size;
    v[2] = -b->size;
    v[3] = c->count;
    v[4] = -c->count;
    v[5] = b->extent <= 0 || b->size <= 0; /* such a rank cannot cut its buffer */
    /* A call without a communicator (MPI_Reduce_local) has nobody to agree with. */
    if (!c->local) {
        err = PMPI_Allreduce(MPI_IN_PLACE, v, 6, MPI_INT, MPI_MAX, c->comm);
        if (err != MPI_SUCCESS) return err;
    }
    if (!v[0] || v[5] || v[1] != -v[2] || v[3] != -v[4]) return MPI_SUCCESS;
    elems = chunk_bytes / (size_t)v[1];
    if (elems == 0) elems = 1;
    d->chunk = elems >= (size_t)c->count ? 0 : (int)elems;
    return MPI_SUCCESS;
}
