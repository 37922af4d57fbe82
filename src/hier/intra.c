/* Steps inside the domain (see hier_internal.h): on the domain's GPU engine when it has one,
 * else through MPI on the domain's communicator; a domain of one rank only copies. Each step
 * returns with its result in place (the engine's stream synchronized). */
#include "comm_internal.h"
#include "hier_internal.h"

static void engine_done(hier_run *x, mcoll_result rc)
{
    if (rc == MCOLL_SUCCESS && !x->queued) rc = mcoll_comm_sync(x->engine);
    if (rc != MCOLL_SUCCESS && x->rc == MCOLL_SUCCESS) x->rc = rc;
}

static void cu_done(hier_run *x, CUresult r)
{
    if (r != CUDA_SUCCESS && x->rc == MCOLL_SUCCESS) x->rc = MCOLL_ERR_CUDA;
}

int hier_can_queue(const hier_run *x) { return x->engine && x->h->marks[1]; }

void hier_intra_mark(hier_run *x, int slot)
{
    if (x->engine) cu_done(x, mcoll_cu.cuEventRecord(x->h->marks[slot], mcoll_comm_stream(x->engine)));
}

void hier_intra_wait(hier_run *x, int slot)
{
    if (x->engine) cu_done(x, mcoll_cu.cuEventSynchronize(x->h->marks[slot]));
}

void hier_intra_finish(hier_run *x)
{
    if (x->engine) engine_done(x, mcoll_comm_sync(x->engine));
}

static const void *source(const void *in, const void *out) { return in == MPI_IN_PLACE ? out : in; }

void hier_intra_reduce_scatter(hier_run *x, const void *in, void *out, size_t n)
{
    mcoll_hier *h = x->h;
    const mcoll_hier_args *a = x->a;
    hier_mpi_step s = {HIER_REDUCE_SCATTER_BLOCK, h->domain, in, 0, out, 0, in == MPI_IN_PLACE, (int)n, 0, NULL, NULL};
    if (h->local_size == 1) {
        hier_copy(x, out, source(in, out), HIER_BYTES(x, n));
    } else if (x->engine) {
        engine_done(x, mcoll_comm_run_reduce_scatter(x->engine, in, out, n, a->dtype, a->kernel_op,
                                                     mcoll_comm_stream(x->engine)));
    } else {
        s.in_bytes = HIER_BYTES(x, n * (size_t)h->local_size);
        s.out_bytes = in == MPI_IN_PLACE ? s.in_bytes : HIER_BYTES(x, n);
        hier_mpi(x, &s);
    }
}

void hier_intra_allreduce(hier_run *x, const void *in, void *out, size_t n)
{
    mcoll_hier *h = x->h;
    const mcoll_hier_args *a = x->a;
    hier_mpi_step s;
    if (in == out) in = MPI_IN_PLACE; /* MPI refuses aliased buffers */
    s = (hier_mpi_step){HIER_ALLREDUCE, h->domain, in, HIER_BYTES(x, n), out, HIER_BYTES(x, n), in == MPI_IN_PLACE,
                       (int)n, 0, NULL, NULL};
    if (h->local_size == 1) hier_copy(x, out, source(in, out), HIER_BYTES(x, n));
    else if (x->engine)
        engine_done(x, mcoll_comm_run_allreduce(x->engine, in, out, n, a->dtype, a->kernel_op, mcoll_comm_stream(x->engine)));
    else hier_mpi(x, &s);
}

void hier_intra_reduce(hier_run *x, const void *in, void *out, size_t n, int root)
{
    mcoll_hier *h = x->h;
    const mcoll_hier_args *a = x->a;
    int at_root = h->local_rank == root;
    hier_mpi_step s;
    if (in == out && at_root) in = MPI_IN_PLACE; /* MPI refuses aliased buffers */
    s = (hier_mpi_step){HIER_REDUCE, h->domain, in, HIER_BYTES(x, n), at_root ? out : NULL,
                       at_root ? HIER_BYTES(x, n) : 0, in == MPI_IN_PLACE, (int)n, root, NULL, NULL};
    if (h->local_size == 1) hier_copy(x, out, source(in, out), HIER_BYTES(x, n));
    else if (x->engine)
        engine_done(x, mcoll_comm_run_reduce(x->engine, in, out, n, a->dtype, a->kernel_op, root,
                                             mcoll_comm_stream(x->engine)));
    else hier_mpi(x, &s);
}

void hier_intra_bcast(hier_run *x, void *buf, size_t n, int root)
{
    mcoll_hier *h = x->h;
    hier_mpi_step s = {HIER_BCAST, h->domain, NULL, 0, buf, HIER_BYTES(x, n), h->local_rank == root, (int)n, root,
                       NULL, NULL};
    if (h->local_size == 1) return;
    if (x->engine) engine_done(x, mcoll_comm_run_bcast(x->engine, buf, HIER_BYTES(x, n), root, mcoll_comm_stream(x->engine)));
    else hier_mpi(x, &s);
}

void hier_intra_allgather(hier_run *x, const void *in, void *out, size_t n)
{
    mcoll_hier *h = x->h;
    hier_mpi_step s = {HIER_ALLGATHER, h->domain, in, HIER_BYTES(x, n), out, HIER_BYTES(x, n * (size_t)h->local_size),
                       in == MPI_IN_PLACE, (int)n, 0, NULL, NULL};
    if (h->local_size == 1) {
        if (in != MPI_IN_PLACE) hier_copy(x, out, in, HIER_BYTES(x, n));
    } else if (x->engine) {
        engine_done(x, mcoll_comm_run_allgather(x->engine, in, out, HIER_BYTES(x, n), mcoll_comm_stream(x->engine)));
    } else {
        hier_mpi(x, &s);
    }
}

void hier_intra_gather(hier_run *x, const void *in, void *out, size_t n, int root)
{
    mcoll_hier *h = x->h;
    int at_root = h->local_rank == root;
    hier_mpi_step s = {HIER_GATHER, h->domain, in, HIER_BYTES(x, n), at_root ? out : NULL,
                       at_root ? HIER_BYTES(x, n * (size_t)h->local_size) : 0, 0, (int)n, root, NULL, NULL};
    if (h->local_size == 1) hier_copy(x, out, in, HIER_BYTES(x, n));
    else if (x->engine)
        engine_done(x, mcoll_comm_run_gather(x->engine, in, out, n, x->a->esize, root, mcoll_comm_stream(x->engine)));
    else hier_mpi(x, &s);
}
