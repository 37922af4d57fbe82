/* Two domains of equal size: the allreduce of a slice between them needs no reduction by the MPI.
 *
 * Each rank swaps its slice with the rank of its local rank in the other domain (MPI_Sendrecv:
 * the MPI only moves bytes) and the two slices are reduced on this rank's GPU, on the engine's
 * stream, behind the copy that brings the other slice in. A host MPI reduces on one core (about
 * 2 GB/s on the machines measured, benchmarks/results/2026-11-29-h200x1-y), in series with the
 * transfer; an exchange is what the network does anyway. Both ranks reduce the same two operands
 * in domain order (domain 0's slice op domain 1's, MPI_Reduce_local's order), so they get the same
 * bits.
 *
 * Which MPI call a rank makes must not depend on anything its peer may see otherwise: the pair
 * form is taken on what every rank of the call agrees on (two domains of one size, a predefined
 * reduction, the engines allowed by MCOLL_HIER, an MPI that is not CUDA-aware, a blocking call).
 * Where this rank has no engine (its domain's team could not be built) or its copies are not on
 * the engine's stream (MCOLL_HIER_OVERLAP_COPIES=0), it reduces the two staged slices on the host
 * with PMPI_Reduce_local instead. */
#include "comm_internal.h"
#include "hier_internal.h"
#include "launch.h"
#include "log.h"

#define PAIR_TAG 0x6d63 /* point-to-point on the cross communicator carries nothing else */

int hier_pair_reduces(const hier_run *x)
{
    const mcoll_hier_args *a = x->a;
    return x->h->domains == 2 && x->h->equal && a->op != MPI_OP_NULL && a->engines && a->device && !a->cuda_aware &&
           !x->rec && mcoll_reduce_supported(a->dtype, a->kernel_op);
}

/* The MPI step: this rank's slice (at mine) for the other's (into theirs); made even after a
 * failure, with no data when there is no memory, so the peer is not left waiting. */
static void swap(hier_run *x, const char *mine, char *theirs, size_t bytes)
{
    int peer = 1 - x->h->my_domain;
    int n = mine && theirs ? (int)(bytes / x->a->esize) : 0;
    double t0 = MPI_Wtime();
    if (PMPI_Sendrecv(mine, n, x->a->type, peer, PAIR_TAG, theirs, n, x->a->type, peer, PAIR_TAG, x->h->cross,
                      MPI_STATUS_IGNORE) != MPI_SUCCESS)
        hier_failed(x, MCOLL_ERR_MPI);
    x->mpi_s += MPI_Wtime() - t0;
}

static int copy_ok(hier_run *x, CUresult r)
{
    if (r != CUDA_SUCCESS) hier_failed(x, MCOLL_ERR_CUDA);
    return r == CUDA_SUCCESS;
}

/* Through the slots: the copies and the reduction queued on the engine's stream. */
static char *on_gpu(hier_run *x, char *slot_dev, char *other_dev, size_t q, char *host)
{
    const mcoll_hier_args *a = x->a;
    size_t bytes = q * a->esize;
    CUstream engine = mcoll_comm_stream(x->engine);
    int first = x->h->my_domain == 0, ok = x->rc == MCOLL_SUCCESS, r;
    if (!hier_slots_take_ahead(x, slot_dev, bytes) && ok)
        ok = copy_ok(x, hier_stage_copy(x->h->stream, host, slot_dev, bytes, 1)) &&
             copy_ok(x, mcoll_cu.cuStreamSynchronize(x->h->stream));
    swap(x, host, host + hier_stage_aligned(bytes), bytes);
    if (x->rc != MCOLL_SUCCESS) return slot_dev;
    x->pending = 1;
    if (!copy_ok(x, hier_stage_copy(engine, other_dev, host + hier_stage_aligned(bytes), bytes, 0))) return slot_dev;
    /* Domain 0's slice op domain 1's, into the second operand's buffer. */
    r = mcoll_launch_reduce_local(first ? slot_dev : other_dev, first ? other_dev : slot_dev, q, a->dtype, a->kernel_op,
                                  engine);
    if (r != MCOLL_LAUNCH_OK) {
        MCOLL_WARN("hierarchical allreduce: reducing the other domain's slice on the GPU failed (%s)",
                   r == MCOLL_LAUNCH_UNSUPPORTED ? "unsupported" : mcoll_launch_error());
        hier_failed(x, MCOLL_ERR_CUDA);
    }
    return first ? other_dev : slot_dev;
}

/* Staged on its own: copy in, swap, PMPI_Reduce_local on the host, copy the result back. */
static char *on_host(hier_run *x, char *slot_dev, size_t q)
{
    const mcoll_hier_args *a = x->a;
    size_t bytes = q * a->esize;
    char *host = hier_host(x, 2 * hier_stage_aligned(bytes)), *theirs;
    int first = x->h->my_domain == 0, ok = x->rc == MCOLL_SUCCESS && host;
    if (ok)
        ok = copy_ok(x, hier_stage_copy(x->h->stream, host, slot_dev, bytes, 1)) &&
             copy_ok(x, mcoll_cu.cuStreamSynchronize(x->h->stream));
    theirs = host ? host + hier_stage_aligned(bytes) : NULL;
    swap(x, host, theirs, bytes);
    if (!host || x->rc != MCOLL_SUCCESS) return slot_dev;
    /* Domain 0's slice op domain 1's, into the second operand (MPI_Reduce_local's inoutbuf). */
    if (PMPI_Reduce_local(first ? host : theirs, first ? theirs : host, (int)q, a->type, a->op) != MPI_SUCCESS) {
        hier_failed(x, MCOLL_ERR_MPI);
        return slot_dev;
    }
    if (copy_ok(x, hier_stage_copy(x->h->stream, slot_dev, first ? theirs : host, bytes, 0)))
        copy_ok(x, mcoll_cu.cuStreamSynchronize(x->h->stream));
    return slot_dev;
}

char *hier_inter_allreduce_pair(hier_run *x, char *slot_dev, char *other_dev, size_t q)
{
    char *host = x->slots && x->engine ? hier_slots_memory(x, 2 * hier_stage_aligned(q * x->a->esize)) : NULL;
    if (!q) return slot_dev;
    return host ? on_gpu(x, slot_dev, other_dev, q, host) : on_host(x, slot_dev, q);
}
