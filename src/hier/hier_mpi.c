/* One MPI step of a hierarchical collective on buffers that may be device memory: handed to
 * the MPI as they are when they are host memory or the MPI is CUDA-aware, else copied through
 * pinned host memory around the call. A failed copy still makes the MPI call, so the other
 * ranks are not left waiting. */
#include <stdint.h>
#include "hier_op.h"
#include "log.h"

int hier_mpi_call(const mcoll_hier_args *a, const hier_mpi_step *s, const void *in, void *out, MPI_Request *req)
{
    MPI_Datatype t = a->type;
    MPI_Op op = a->op;
    switch (s->kind) {
    case HIER_ALLREDUCE:
        return req ? PMPI_Iallreduce(in, out, s->count, t, op, s->comm, req)
                   : PMPI_Allreduce(in, out, s->count, t, op, s->comm);
    case HIER_REDUCE:
        return req ? PMPI_Ireduce(in, out, s->count, t, op, s->root, s->comm, req)
                   : PMPI_Reduce(in, out, s->count, t, op, s->root, s->comm);
    case HIER_BCAST:
        return req ? PMPI_Ibcast(out, s->count, t, s->root, s->comm, req) : PMPI_Bcast(out, s->count, t, s->root, s->comm);
    case HIER_ALLGATHER:
        return req ? PMPI_Iallgather(in, s->count, t, out, s->count, t, s->comm, req)
                   : PMPI_Allgather(in, s->count, t, out, s->count, t, s->comm);
    case HIER_GATHER:
        return req ? PMPI_Igather(in, s->count, t, out, s->count, t, s->root, s->comm, req)
                   : PMPI_Gather(in, s->count, t, out, s->count, t, s->root, s->comm);
    case HIER_ALLGATHERV:
        return req ? PMPI_Iallgatherv(in, s->count, t, out, s->counts, s->displs, t, s->comm, req)
                   : PMPI_Allgatherv(in, s->count, t, out, s->counts, s->displs, t, s->comm);
    case HIER_REDUCE_SCATTER_BLOCK:
        return req ? PMPI_Ireduce_scatter_block(in, out, s->count, t, op, s->comm, req)
                   : PMPI_Reduce_scatter_block(in, out, s->count, t, op, s->comm);
    case HIER_REDUCE_SCATTER:
        return req ? PMPI_Ireduce_scatter(in, out, s->counts, t, op, s->comm, req)
                   : PMPI_Reduce_scatter(in, out, s->counts, t, op, s->comm);
    case HIER_ALLTOALLV:
        return req ? PMPI_Ialltoallv(in, s->counts, s->displs, t, out, s->rcounts, s->rdispls, t, s->comm, req)
                   : PMPI_Alltoallv(in, s->counts, s->displs, t, out, s->rcounts, s->rdispls, t, s->comm);
    case HIER_GATHERV:
        return req ? PMPI_Igatherv(in, s->count, t, out, s->counts, s->displs, t, s->root, s->comm, req)
                   : PMPI_Gatherv(in, s->count, t, out, s->counts, s->displs, t, s->root, s->comm);
    }
    return MPI_ERR_INTERN;
}

size_t hier_mpi_in_room(const hier_mpi_step *s) { return hier_stage_aligned(s->in_bytes); }

size_t hier_mpi_staging_bytes(const hier_mpi_step *s) { return hier_mpi_in_room(s) + s->out_bytes + 1; }

CUresult hier_stage_copy(CUstream stream, void *dst, const void *src, size_t bytes, int to_host)
{
    CUresult r;
    if (!bytes) return CUDA_SUCCESS;
    r = to_host ? mcoll_cu.cuMemcpyDtoHAsync(dst, (CUdeviceptr)(uintptr_t)src, bytes, stream)
                : mcoll_cu.cuMemcpyHtoDAsync((CUdeviceptr)(uintptr_t)dst, src, bytes, stream);
    if (r != CUDA_SUCCESS)
        MCOLL_WARN("hierarchical collective: staging copy of %zu bytes failed (%s)", bytes, mcoll_cu_errname(r));
    return r;
}

int hier_stage(hier_run *x, void *dst, const void *src, size_t bytes, int to_host)
{
    if (x->rc != MCOLL_SUCCESS) return 0;
    if (hier_stage_copy(x->h->stream, dst, src, bytes, to_host) == CUDA_SUCCESS) return 1;
    hier_failed(x, MCOLL_ERR_CUDA);
    return 0;
}

int hier_stage_wait(hier_run *x)
{
    if (x->rc != MCOLL_SUCCESS) return 0;
    if (mcoll_cu.cuStreamSynchronize(x->h->stream) == CUDA_SUCCESS) return 1;
    hier_failed(x, MCOLL_ERR_CUDA);
    return 0;
}

void hier_mpi(hier_run *x, const hier_mpi_step *s)
{
    const void *in = s->in;
    void *out = s->out;
    int has_in = in && in != MPI_IN_PLACE && s->in_bytes;
    size_t in_room = hier_mpi_in_room(s);
    char *host = NULL;
    double t0 = MPI_Wtime();

    if (x->rec) {
        hier_record_mpi(x, s);
        return;
    }
    if (hier_slots_mpi(x, s)) {
        if (s->comm == x->h->cross) x->mpi_s += MPI_Wtime() - t0;
        return;
    }
    if (x->a->device && !x->a->cuda_aware) host = hier_host(x, hier_mpi_staging_bytes(s));
    if (host) {
        if (has_in) {
            hier_stage(x, host, s->in, s->in_bytes, 1);
            in = host;
        }
        if (s->out && s->out_bytes) {
            if (s->out_read) hier_stage(x, host + in_room, s->out, s->out_bytes, 1);
            out = host + in_room;
        }
        hier_stage_wait(x);
    } else if (x->a->device && !x->a->cuda_aware) {
        /* No staging memory: the call is still made, on no data of this rank's. */
        in = has_in ? NULL : in;
        out = NULL;
    }
    if (hier_mpi_call(x->a, s, in, out, NULL) != MPI_SUCCESS) hier_failed(x, MCOLL_ERR_MPI);
    if (host && s->out && s->out_bytes) {
        hier_stage(x, s->out, host + in_room, s->out_bytes, 0);
        hier_stage_wait(x);
    }
    if (s->comm == x->h->cross) x->mpi_s += MPI_Wtime() - t0; /* for the time split (hier_execute) */
}
