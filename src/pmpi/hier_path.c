/* The plug-in's side of the hierarchical path (see hier_path.h), and the query of its time
 * split (mcoll.h). */
#include <limits.h>
#include <string.h>
#include "comm_attr.h"
#include "config.h"
#include "hier.h"
#include "hier_path.h"
#include "plugin.h"
#include "stage.h"

const char mcoll_hier_why[] = "communicator spans NVLink domains";

static int hier_collective(const mcoll_coll *coll)
{
    return coll == &mcoll_coll_allreduce || coll == &mcoll_coll_reduce || coll == &mcoll_coll_bcast ||
           coll == &mcoll_coll_allgather || coll == &mcoll_coll_reduce_scatter_block ||
           coll == &mcoll_coll_reduce_scatter;
}

int mcoll_hier_takes(mcoll_call *c, mcoll_decision *d)
{
    mcoll_hier *h = c->cs->hier;
    /* The largest MPI count of a step: the whole vector (allreduce, reduce, bcast), or every
     * rank's block at once (allgather, reduce-scatter). */
    int per_rank = c->coll == &mcoll_coll_allgather || c->coll == &mcoll_coll_reduce_scatter_block ||
                   c->coll == &mcoll_coll_reduce_scatter;
    size_t widest = (d->reduces ? d->count : d->bytes) * (per_rank ? (size_t)c->cs->size : 1);
    if (mcoll_settings_get()->hier == MCOLL_HIER_OFF || !mcoll_hier_useful(h) || !hier_collective(c->coll)) return 0;
    /* Padded pairs (MPI_DOUBLE_INT, ...) would be copied with their padding past the end. */
    if (d->reduces && (!d->base || !d->base->dense)) return 0;
    if (widest > INT_MAX) return 0;
    d->path = MCOLL_PATH_HIER;
    d->why = mcoll_hier_describe(h);
    c->send.staged = c->recv.staged = 0;
    return 1;
}

/* The call as the hierarchy runs it: reductions in the signature's base type, data movers in
 * bytes. Aliased reduce-scatter buffers are computed in place, as on the other paths. */
static void fill_args(const mcoll_call *c, const mcoll_decision *d, mcoll_hier_args *a)
{
    a->sendbuf = c->sendbuf == c->recvbuf && c->coll != &mcoll_coll_allgather ? MPI_IN_PLACE : c->sendbuf;
    a->recvbuf = c->recvbuf;
    a->root = c->root;
    a->device = 1;
    a->cuda_aware = mcoll_mpi_cuda_aware;
    a->engines = mcoll_settings_get()->hier == MCOLL_HIER_AUTO;
    if (d->reduces) {
        a->count = d->count;
        a->esize = (size_t)d->base->size;
        a->type = d->base->type;
        a->op = c->mpi_op;
        a->dtype = d->dtype;
        a->kernel_op = d->op;
    } else {
        a->count = d->bytes;
        a->esize = 1;
        a->type = MPI_BYTE;
        a->op = MPI_OP_NULL;
    }
}

static mcoll_hier_collective collective_of(const mcoll_call *c)
{
    if (c->coll == &mcoll_coll_allreduce) return mcoll_hier_allreduce;
    if (c->coll == &mcoll_coll_reduce) return mcoll_hier_reduce;
    if (c->coll == &mcoll_coll_bcast) return mcoll_hier_bcast;
    if (c->coll == &mcoll_coll_allgather) return mcoll_hier_allgather;
    return mcoll_hier_reduce_scatter;
}

/* Reduce's root may pass a host recvbuf to device sendbufs: the result goes through device
 * scratch memory (every rank has decided on the sendbufs alone). */
int mcoll_hier_path_host_root(const mcoll_call *c)
{
    return c->coll == &mcoll_coll_reduce && c->recv.out && c->recv.mem == MCOLL_MEM_HOST;
}

mcoll_hier_op *mcoll_hier_path_record(const mcoll_call *c, const mcoll_decision *d, void *root_device,
                                      mcoll_result *rc)
{
    mcoll_hier_args a;
    fill_args(c, d, &a);
    if (root_device) a.recvbuf = root_device;
    return mcoll_hier_op_record(c->cs->hier, &a, collective_of(c), rc);
}

mcoll_result mcoll_hier_path_run(mcoll_call *c, const mcoll_decision *d)
{
    mcoll_hier_args a;
    mcoll_stage *st;
    mcoll_result rc;
    int device = c->send.mem != MCOLL_MEM_HOST && (c->send.in || c->send.out) ? c->send.device : c->recv.device;
    int host_root = mcoll_hier_path_host_root(c);

    fill_args(c, d, &a);
    st = mcoll_stage_begin(device); /* a current context for the copies */
    if (!st) return MCOLL_ERR_CUDA;
    if (host_root) a.recvbuf = mcoll_stage_device(st, d->bytes);
    rc = host_root && !a.recvbuf ? MCOLL_ERR_NO_MEMORY : collective_of(c)(c->cs->hier, &a);
    if (rc == MCOLL_SUCCESS && host_root) rc = mcoll_stage_to_host(st, c->recvbuf, a.recvbuf, d->bytes);
    if (rc == MCOLL_SUCCESS && host_root) rc = mcoll_stage_sync(st);
    mcoll_stage_end(st);
    if (mcoll_hier_engine_built(c->cs->hier)) mcoll_comm_state_engine_built(c->cs);
    return rc;
}

mcoll_result mcoll_hier_times(MPI_Comm comm, int reset, mcoll_hier_times_t *times)
{
    mcoll_comm_state *cs;
    if (!times || comm == MPI_COMM_NULL) return MCOLL_ERR_INVALID_ARG;
    memset(times, 0, sizeof *times);
    /* Without the plug-in (before MPI_Init, MCOLL_DISABLE=1) there is no record: zeros. */
    cs = mcoll_plugin_active ? mcoll_comm_state_find(comm) : NULL;
    if (cs && cs->hier) mcoll_hier_times_take(cs->hier, reset, times);
    return MCOLL_SUCCESS;
}
