/* Steps inside the domain (see hier_internal.h): on the domain's GPU engine when it has one,
 * else through MPI on the domain's communicator; a domain of one rank only copies. Each step
 * returns with its result in place (the engine's stream synchronized). */
#include "comm_internal.h"
#include "hier_op.h"

static void engine_done(hier_run *x, mcoll_result rc)
{
    if (rc == MCOLL_SUCCESS && !x->queued) rc = mcoll_comm_sync(x->engine);
    if (rc != MCOLL_SUCCESS && x->rc == MCOLL_SUCCESS) x->rc = rc;
}

static void cu_done(hier_run *x, CUresult r)
{
    if (r != CUDA_SUCCESS && x->rc == MCOLL_SUCCESS) x->rc = MCOLL_ERR_CUDA;
}

mcoll_result hier_engine_queue(mcoll_comm *engine, const mcoll_hier_args *a, const hier_engine_step *s)
{
    struct CUstream_st *stream = mcoll_comm_stream(engine);
    switch (s->kind) {
    case HIER_ENGINE_REDUCE_SCATTER:
        return mcoll_comm_run_reduce_scatter(engine, s->in, s->out, s->n, a->dtype, a->kernel_op, stream);
    case HIER_ENGINE_ALLREDUCE:
        return mcoll_comm_run_allreduce(engine, s->in, s->out, s->n, a->dtype, a->kernel_op, stream);
    case HIER_ENGINE_REDUCE:
        return mcoll_comm_run_reduce(engine, s->in, s->out, s->n, a->dtype, a->kernel_op, s->root, stream);
    case HIER_ENGINE_BCAST: return mcoll_comm_run_bcast(engine, s->out, s->n * a->esize, s->root, stream);
    case HIER_ENGINE_ALLGATHER: return mcoll_comm_run_allgather(engine, s->in, s->out, s->n * a->esize, stream);
    case HIER_ENGINE_GATHER: return mcoll_comm_run_gather(engine, s->in, s->out, s->n, a->esize, s->root, stream);
    }
    return MCOLL_ERR_INTERNAL;
}

/* A step on the domain's engine: queued (and, outside a pipeline, waited for), or recorded. */
static void engine_step(hier_run *x, hier_engine_kind kind, const void *in, void *out, size_t n, int root)
{
    hier_engine_step s = {kind, in, out, n, root};
    if (x->rec) hier_record_engine(x, &s);
    else engine_done(x, hier_engine_queue(x->engine, x->a, &s));
}

/* Recorded calls queue as blocking ones do: their marks, waits and finish become steps. */
int hier_can_queue(const hier_run *x) { return x->engine && x->h->marks[1]; }

void hier_intra_mark(hier_run *x, int slot)
{
    if (!x->engine) return;
    if (x->rec) hier_record_point(x, HIER_STEP_MARK, slot);
    else cu_done(x, mcoll_cu.cuEventRecord(x->h->marks[slot], mcoll_comm_stream(x->engine)));
}

void hier_intra_wait(hier_run *x, int slot)
{
    if (!x->engine) return;
    if (x->rec) hier_record_point(x, HIER_STEP_WAIT, slot);
    else cu_done(x, mcoll_cu.cuEventSynchronize(x->h->marks[slot]));
}

void hier_intra_finish(hier_run *x)
{
    if (!x->engine) return;
    if (x->rec) hier_record_point(x, HIER_STEP_FINISH, 0);
    else engine_done(x, mcoll_comm_sync(x->engine));
}

static const void *source(const void *in, const void *out) { return in == MPI_IN_PLACE ? out : in; }

void hier_intra_reduce_scatter(hier_run *x, const void *in, void *out, size_t n)
{
    mcoll_hier *h = x->h;
    hier_mpi_step s = {HIER_REDUCE_SCATTER_BLOCK, h->domain, in, 0, out, 0, in == MPI_IN_PLACE, (int)n, 0, NULL, NULL, NULL, NULL};
    if (h->local_size == 1) {
        hier_copy(x, out, source(in, out), HIER_BYTES(x, n));
    } else if (x->engine) {
        engine_step(x, HIER_ENGINE_REDUCE_SCATTER, in, out, n, 0);
    } else {
        s.in_bytes = HIER_BYTES(x, n * (size_t)h->local_size);
        s.out_bytes = in == MPI_IN_PLACE ? s.in_bytes : HIER_BYTES(x, n);
        hier_mpi(x, &s);
    }
}

void hier_intra_allreduce(hier_run *x, const void *in, void *out, size_t n)
{
    mcoll_hier *h = x->h;
    hier_mpi_step s;
    if (in == out) in = MPI_IN_PLACE; /* MPI refuses aliased buffers */
    s = (hier_mpi_step){HIER_ALLREDUCE, h->domain, in, HIER_BYTES(x, n), out, HIER_BYTES(x, n), in == MPI_IN_PLACE,
                       (int)n, 0, NULL, NULL, NULL, NULL};
    if (h->local_size == 1) hier_copy(x, out, source(in, out), HIER_BYTES(x, n));
    else if (x->engine)
        engine_step(x, HIER_ENGINE_ALLREDUCE, in, out, n, 0);
    else hier_mpi(x, &s);
}

void hier_intra_reduce(hier_run *x, const void *in, void *out, size_t n, int root)
{
    mcoll_hier *h = x->h;
    int at_root = h->local_rank == root;
    hier_mpi_step s;
    if (in == out && at_root) in = MPI_IN_PLACE; /* MPI refuses aliased buffers */
    s = (hier_mpi_step){HIER_REDUCE, h->domain, in, HIER_BYTES(x, n), at_root ? out : NULL,
                       at_root ? HIER_BYTES(x, n) : 0, in == MPI_IN_PLACE, (int)n, root, NULL, NULL, NULL, NULL};
    if (h->local_size == 1) hier_copy(x, out, source(in, out), HIER_BYTES(x, n));
    else if (x->engine)
        engine_step(x, HIER_ENGINE_REDUCE, in, out, n, root);
    else hier_mpi(x, &s);
}

void hier_intra_bcast(hier_run *x, void *buf, size_t n, int root)
{
    mcoll_hier *h = x->h;
    hier_mpi_step s = {HIER_BCAST, h->domain, NULL, 0, buf, HIER_BYTES(x, n), h->local_rank == root, (int)n, root,
                       NULL, NULL, NULL, NULL};
    if (h->local_size == 1) return;
    if (x->engine) engine_step(x, HIER_ENGINE_BCAST, NULL, buf, n, root);
    else hier_mpi(x, &s);
}

void hier_intra_allgather(hier_run *x, const void *in, void *out, size_t n)
{
    mcoll_hier *h = x->h;
    hier_mpi_step s = {HIER_ALLGATHER, h->domain, in, HIER_BYTES(x, n), out, HIER_BYTES(x, n * (size_t)h->local_size),
                       in == MPI_IN_PLACE, (int)n, 0, NULL, NULL, NULL, NULL};
    if (h->local_size == 1) {
        if (in != MPI_IN_PLACE) hier_copy(x, out, in, HIER_BYTES(x, n));
    } else if (x->engine) {
        engine_step(x, HIER_ENGINE_ALLGATHER, in, out, n, 0);
    } else {
        hier_mpi(x, &s);
    }
}

void hier_intra_gather(hier_run *x, const void *in, void *out, size_t n, int root)
{
    mcoll_hier *h = x->h;
    int at_root = h->local_rank == root;
    hier_mpi_step s = {HIER_GATHER, h->domain, in, HIER_BYTES(x, n), at_root ? out : NULL,
                       at_root ? HIER_BYTES(x, n * (size_t)h->local_size) : 0, 0, (int)n, root, NULL, NULL, NULL, NULL};
    if (h->local_size == 1) hier_copy(x, out, in, HIER_BYTES(x, n));
    else if (x->engine)
        engine_step(x, HIER_ENGINE_GATHER, in, out, n, root);
    else hier_mpi(x, &s);
}
