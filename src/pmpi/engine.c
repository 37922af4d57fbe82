/* The engine bridge (see engine.h): one native communicator per MPI communicator, built on its
 * first call sent to the engines and kept in the communicator's record (comm_attr.h). */
#include "checks.h"
#include "comm_internal.h"
#include "config.h"
#include "direct.h"
#include "dtype.h"
#include "engine.h"
#include "engine_map.h"

/* The communicator's engine, built on first use; NULL when it has none. */
static mcoll_comm *engine_for(mcoll_comm_state *cs)
{
    mcoll_comm *engine = NULL;
    mcoll_config config;
    mcoll_result rc;

    if (cs->engine_tried) return cs->engine;
    mcoll_config_init(&config);
    rc = mcoll_comm_create(cs->comm, &config, &engine);
    if (rc != MCOLL_SUCCESS) {
        engine = NULL;
        MCOLL_INFO("communicator without GPU engine: %s", mcoll_strerror(rc));
    }
    mcoll_comm_state_set_engine(cs, engine);
    return engine;
}

mcoll_comm *mcoll_engine_of(mcoll_comm_state *cs) { return engine_for(cs); }

void mcoll_engine_take_failure(mcoll_comm_state *cs)
{
    if (cs && cs->engine) (void)mcoll_watch_aborted(&cs->engine->team->watch);
}

/* Set by the nonblocking calls around their launch (engine.h). */
static _Thread_local int launch_only;

void mcoll_engine_launch_only(int on) { launch_only = on; }

/* The team's stream for the call being made: the nonblocking calls' while launch_only is on. */
static struct CUstream_st *stream_of(mcoll_comm *e) { return launch_only ? mcoll_comm_nb_stream(e) : mcoll_comm_stream(e); }

/* The MPI call returns with the result in place: wait for the kernel's completion word, or the
 * team's stream where the launch carried none (mcoll_comm_wait). A nonblocking call waits later,
 * on the word or on an event recorded after the kernel (operation.c). */
static mcoll_result finish(mcoll_comm *e, mcoll_result rc)
{
    if (rc != MCOLL_SUCCESS || launch_only) return rc;
    return mcoll_comm_wait(e);
}

/* Set while mcoll_engine_ring_plan runs a hook (this thread only): where the LL form goes. */
static _Thread_local mcoll_ll_call *plan;

/* A blocking call for the LL protocol runs in the communicator's resident kernel (no launch,
 * no stream synchronization): 1 when it did, *rc its result. *small says whether the call has an
 * LL form, alike on every rank; whether the resident kernel takes it is this rank's own answer
 * (its legacy stream may be busy), so a small call the kernel did not take is launched as LL and
 * never mapped for zero-copy (the mapping is collective: the ranks the kernel took never join
 * it). While planning, every hook that comes here stops here: 1, with *rc saying whether the
 * call has an LL form (in *plan). */
static int resident(mcoll_comm *e, mcoll_ll_kind kind, const void *sendbuf, void *recvbuf, size_t count,
                    mcoll_dtype dtype, mcoll_op op, int root, mcoll_result *rc, int *small)
{
    mcoll_ll_call call;
    if (plan) {
        *rc = mcoll_comm_ll_form(e, kind, sendbuf, recvbuf, count, dtype, op, root, plan) ? MCOLL_SUCCESS
                                                                                           : MCOLL_ERR_UNSUPPORTED;
        return 1;
    }
    /* A nonblocking call never maps, and a persistent one maps at its initialization only
     * (engine_map.h): neither needs to know. */
    *small = !launch_only && mcoll_comm_ll_form(e, kind, sendbuf, recvbuf, count, dtype, op, root, &call);
    return *small && mcoll_resident_run(e, &call, rc);
}

/* MPI_IN_PLACE as the kernels read it: the input is the receive buffer. */
static const void *input_of(const void *sendbuf, void *recvbuf) { return sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf; }

int mcoll_engine_ring_plan(const mcoll_call *c, mcoll_decision *d)
{
    const mcoll_settings *s = mcoll_settings_get();
    mcoll_call probe = *c;
    mcoll_result rc;
    d->ring = 0;
    /* A root's host buffer goes through scratch memory copied around a launch (operation.c). */
    if (!s->resident || !s->resident_nonblocking || d->path != MCOLL_PATH_ENGINE || mcoll_engine_host_role(&probe))
        return 0;
    plan = &d->ll;
    rc = c->coll->engine(c, d);
    plan = NULL;
    d->ring = rc == MCOLL_SUCCESS;
    return d->ring;
}

mcoll_result mcoll_engine_allreduce(mcoll_comm_state *cs, const mcoll_decision *d, const void *sendbuf, void *recvbuf)
{
    mcoll_comm *e = engine_for(cs);
    const void *in = input_of(sendbuf, recvbuf);
    const size_t span = mcoll_dtype_span(d->dtype, d->count);
    /* The input is read in 16-byte packs; in place, one buffer. */
    const mcoll_call_buffer bufs[2] = {{in, mcoll_direct_round16(span), 0}, {recvbuf, span, 0}};
    mcoll_result rc;
    int mapped, small;
    if (!e) return MCOLL_ERR_UNSUPPORTED;
    if (resident(e, MCOLL_LL_ALLREDUCE, sendbuf, recvbuf, d->count, d->dtype, d->op, 0, &rc, &small)) return rc;
    mapped = small ? 0 : mcoll_engine_map(e, d, bufs, in == recvbuf ? 1 : 2, 1);
    if (mapped < 0) return MCOLL_SUCCESS; /* a persistent initialization: mapped, nothing to run */
    rc = finish(e, mcoll_comm_run_allreduce(e, sendbuf, recvbuf, d->count, d->dtype, d->op, stream_of(e)));
    return mcoll_engine_unmap(e, mapped, rc);
}

mcoll_result mcoll_engine_reduce(mcoll_comm_state *cs, const mcoll_decision *d, const void *sendbuf, void *recvbuf,
                                 int root)
{
    mcoll_comm *e = engine_for(cs);
    const void *in = input_of(sendbuf, recvbuf);
    const size_t span = mcoll_dtype_span(d->dtype, d->count);
    /* Root's recvbuf, where it is not its input, is mapped for the others to store into. */
    const mcoll_call_buffer bufs[2] = {{in, span, 0}, {cs->rank == root && in != recvbuf ? recvbuf : NULL, span, 1}};
    mcoll_result rc;
    int mapped, small;
    if (!e) return MCOLL_ERR_UNSUPPORTED;
    if (resident(e, MCOLL_LL_REDUCE, sendbuf, recvbuf, d->count, d->dtype, d->op, root, &rc, &small)) return rc;
    mapped = small ? 0 : mcoll_engine_map(e, d, bufs, 2, 1);
    if (mapped < 0) return MCOLL_SUCCESS; /* a persistent initialization: mapped, nothing to run */
    rc = finish(e, mcoll_comm_run_reduce(e, sendbuf, recvbuf, d->count, d->dtype, d->op, root, stream_of(e)));
    return mcoll_engine_unmap(e, mapped, rc);
}

mcoll_result mcoll_engine_bcast(mcoll_comm_state *cs, const mcoll_decision *d, void *buf, int root)
{
    mcoll_comm *e = engine_for(cs);
    const mcoll_call_buffer bufs[1] = {{buf, d->bytes, 0}};
    mcoll_result rc;
    int mapped, small;
    if (!e) return MCOLL_ERR_UNSUPPORTED;
    if (resident(e, MCOLL_LL_BCAST, buf, buf, d->bytes, MCOLL_BYTE, MCOLL_SUM, root, &rc, &small)) return rc;
    mapped = small ? 0 : mcoll_engine_map(e, d, bufs, 1, 1);
    if (mapped < 0) return MCOLL_SUCCESS; /* a persistent initialization: mapped, nothing to run */
    rc = finish(e, mcoll_comm_run_bcast(e, buf, d->bytes, root, stream_of(e)));
    return mcoll_engine_unmap(e, mapped, rc);
}

mcoll_result mcoll_engine_reduce_scatter(mcoll_comm_state *cs, const mcoll_decision *d, const void *sendbuf,
                                         void *recvbuf)
{
    mcoll_comm *e = engine_for(cs);
    const void *in = input_of(sendbuf, recvbuf);
    const size_t total = mcoll_direct_reduce_scatter_total(d->count, d->dtype, cs->size);
    const size_t block = d->count * mcoll_dtype_size(d->dtype);
    /* The receive block is this rank's alone: only the input is mapped, and must not hold it. */
    const mcoll_call_buffer bufs[1] = {{in, mcoll_direct_round16(total), 0}};
    mcoll_result rc;
    int mapped, small;
    if (!e) return MCOLL_ERR_UNSUPPORTED;
    if (resident(e, MCOLL_LL_REDUCE_SCATTER, sendbuf, recvbuf, d->count, d->dtype, d->op, 0, &rc, &small)) return rc;
    mapped = small ? 0 : mcoll_engine_map(e, d, bufs, 1, mcoll_direct_apart(in, total, recvbuf, block));
    if (mapped < 0) return MCOLL_SUCCESS; /* a persistent initialization: mapped, nothing to run */
    rc = finish(e, mcoll_comm_run_reduce_scatter(e, sendbuf, recvbuf, d->count, d->dtype, d->op,
                                                 stream_of(e)));
    return mcoll_engine_unmap(e, mapped, rc);
}

mcoll_result mcoll_engine_allgather(mcoll_comm_state *cs, const mcoll_decision *d, const void *sendbuf, void *recvbuf)
{
    mcoll_comm *e = engine_for(cs);
    /* Each rank stores its own block into every receive buffer: only those are mapped. */
    const mcoll_call_buffer bufs[1] = {{recvbuf, d->bytes * (size_t)cs->size, 0}};
    mcoll_result rc;
    int mapped, small;
    if (!e) return MCOLL_ERR_UNSUPPORTED;
    if (resident(e, MCOLL_LL_ALLGATHER, sendbuf, recvbuf, d->bytes, MCOLL_BYTE, MCOLL_SUM, 0, &rc, &small)) return rc;
    mapped = small ? 0 : mcoll_engine_map(e, d, bufs, 1, 1);
    if (mapped < 0) return MCOLL_SUCCESS; /* a persistent initialization: mapped, nothing to run */
    rc = finish(e, mcoll_comm_run_allgather(e, sendbuf, recvbuf, d->bytes, stream_of(e)));
    return mcoll_engine_unmap(e, mapped, rc);
}

/* The block collectives move bytes: one element of one byte for the native runs. */
mcoll_result mcoll_engine_alltoall(mcoll_comm_state *cs, const mcoll_decision *d, const void *sendbuf, void *recvbuf)
{
    mcoll_comm *e = engine_for(cs);
    if (!e) return MCOLL_ERR_UNSUPPORTED;
    return finish(e, mcoll_comm_run_alltoall(e, sendbuf, recvbuf, d->bytes, 1, stream_of(e)));
}

mcoll_result mcoll_engine_gather(mcoll_comm_state *cs, const mcoll_decision *d, const void *sendbuf, void *recvbuf,
                                 int root)
{
    mcoll_comm *e = engine_for(cs);
    if (!e) return MCOLL_ERR_UNSUPPORTED;
    return finish(e, mcoll_comm_run_gather(e, sendbuf, recvbuf, d->bytes, 1, root, stream_of(e)));
}

mcoll_result mcoll_engine_scatter(mcoll_comm_state *cs, const mcoll_decision *d, const void *sendbuf, void *recvbuf,
                                  int root)
{
    mcoll_comm *e = engine_for(cs);
    if (!e) return MCOLL_ERR_UNSUPPORTED;
    return finish(e, mcoll_comm_run_scatter(e, sendbuf, recvbuf, d->bytes, 1, root, stream_of(e)));
}

mcoll_result mcoll_engine_scan(mcoll_comm_state *cs, const mcoll_decision *d, const void *sendbuf, void *recvbuf)
{
    mcoll_comm *e = engine_for(cs);
    if (!e) return MCOLL_ERR_UNSUPPORTED;
    return finish(e, mcoll_comm_run_scan(e, sendbuf, recvbuf, d->count, d->dtype, d->op, stream_of(e)));
}

mcoll_result mcoll_engine_exscan(mcoll_comm_state *cs, const mcoll_decision *d, const void *sendbuf, void *recvbuf)
{
    mcoll_comm *e = engine_for(cs);
    if (!e) return MCOLL_ERR_UNSUPPORTED;
    return finish(e, mcoll_comm_run_exscan(e, sendbuf, recvbuf, d->count, d->dtype, d->op, stream_of(e)));
}

mcoll_result mcoll_engine_allgatherv(mcoll_comm_state *cs, const void *sendbuf, size_t sendbytes,
                                     const mcoll_engine_blocks *recv)
{
    mcoll_comm *e = engine_for(cs);
    if (!e) return MCOLL_ERR_UNSUPPORTED;
    return finish(e, mcoll_comm_run_allgatherv(e, sendbuf, sendbytes, recv->base, recv->bytes, recv->offs, 1,
                                               stream_of(e)));
}

mcoll_result mcoll_engine_alltoallv(mcoll_comm_state *cs, const mcoll_engine_blocks *send,
                                    const mcoll_engine_blocks *recv)
{
    mcoll_comm *e = engine_for(cs);
    if (!e) return MCOLL_ERR_UNSUPPORTED;
    return finish(e, mcoll_comm_run_alltoallv(e, send->base, send->bytes, send->offs, recv->base, recv->bytes,
                                              recv->offs, 1, stream_of(e)));
}

mcoll_result mcoll_engine_gatherv(mcoll_comm_state *cs, const void *sendbuf, size_t sendbytes,
                                  const mcoll_engine_blocks *recv, int root)
{
    mcoll_comm *e = engine_for(cs);
    if (!e) return MCOLL_ERR_UNSUPPORTED;
    return finish(e, mcoll_comm_run_gatherv(e, sendbuf, sendbytes, recv ? recv->base : NULL,
                                            recv ? recv->bytes : NULL, recv ? recv->offs : NULL, 1, root,
                                            stream_of(e)));
}

mcoll_result mcoll_engine_scatterv(mcoll_comm_state *cs, const mcoll_engine_blocks *send, void *recvbuf,
                                   size_t recvbytes, int root)
{
    mcoll_comm *e = engine_for(cs);
    if (!e) return MCOLL_ERR_UNSUPPORTED;
    return finish(e, mcoll_comm_run_scatterv(e, send ? send->base : NULL, send ? send->bytes : NULL,
                                             send ? send->offs : NULL, recvbuf, recvbytes, 1, root,
                                             stream_of(e)));
}
