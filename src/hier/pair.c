/* Two domains of equal size: a reduction between them needs no reduction by the MPI.
 *
 * Allreduce: each rank swaps its slice with its counterpart (the rank of its local rank) in the
 * other domain (MPI_Sendrecv: the MPI only moves bytes) and the two slices are reduced on this
 * rank's GPU, on the engine's stream, behind the copy that brings the other slice in. Reduce: the
 * other domain's ranks send, the root's domain receives and reduces. Reduce-scatter: each rank
 * sends the piece the other domain keeps and reduces the one it receives with its own. A host MPI
 * reduces on one core, in series with the transfer (from 256 KiB to 32 MiB an in-place 2-rank
 * allreduce ran at 1.3-4.2 GB/s, a swap of the same bytes at 3.0-5.9 GB/s:
 * benchmarks/results/2026-11-29-h200x1-y); moving bytes is what the network does anyway. Both
 * ranks reduce the same two operands in domain order (domain 0's part op domain 1's,
 * MPI_Reduce_local's order), so they get the same bits.
 *
 * Which MPI call a rank makes must not depend on anything its peer may see otherwise: the pair
 * form is taken on what every rank of the call agrees on (two domains of one size, a predefined
 * reduction, the engines allowed by MCOLL_HIER, a blocking call: nonblocking ones take
 * exchange.c's recorded form), not on what a rank may see alone: with a CUDA-aware MPI the swap takes the device buffers; where this rank has no engine
 * (its domain's team could not be built) or, staging, its copies are not on the engine's stream
 * (MCOLL_HIER_OVERLAP_COPIES=0), it reduces the two slices staged to the host with
 * PMPI_Reduce_local (host buffers suit any MPI). */
#include "comm_internal.h"
#include "hier_internal.h"
#include "launch.h"
#include "log.h"

#define PAIR_TAG 0x6d63 /* point-to-point on the cross communicator carries nothing else */

int hier_reduces_between(const hier_run *x)
{
    const mcoll_hier_args *a = x->a;
    return x->h->equal && x->h->gpu_reduce && a->op != MPI_OP_NULL && a->engines && a->device &&
           mcoll_reduce_supported(a->dtype, a->kernel_op);
}

int hier_pair_reduces(const hier_run *x) { return x->h->domains == 2 && !x->rec && hier_reduces_between(x); }

void hier_report_between(hier_run *x, int form, int on_gpu)
{
    mcoll_hier *h = x->h;
    unsigned bit = 1u << (4 * form + 2 * (x->rec != NULL) + (on_gpu != 0));
    if (h->gpu_reduce_reported & bit) return;
    h->gpu_reduce_reported |= bit;
    if (h->rank == 0)
        MCOLL_INFO("communicator of %d ranks: reductions between its %d domains %s%s through the MPI and reduced on "
                   "the %s (rank 0%s)", h->size, h->domains, form == HIER_SWAPPED ? "swapped" : "exchanged in parts",
                   x->rec ? " (nonblocking)" : "", on_gpu ? "GPU" : "host",
                   x->a->cuda_aware && x->engine ? ", device buffers" : ", staged");
}

/* The MPI step: this rank's part (at mine, or nothing) for the other's (into theirs, or nothing);
 * made even after a failure, with no data when there is no memory, so the peer is not left
 * waiting. */
static void swap(hier_run *x, const char *send, char *recv, size_t bytes, int sends, int receives)
{
    int peer = 1 - x->h->my_domain;
    int ns = send ? (int)(bytes / x->a->esize) : 0, nr = recv ? (int)(bytes / x->a->esize) : 0, rc;
    double t0 = MPI_Wtime();
    MPI_Comm c = x->h->cross;
    MPI_Datatype t = x->a->type;
    if (sends && receives)
        rc = PMPI_Sendrecv(send, ns, t, peer, PAIR_TAG, recv, nr, t, peer, PAIR_TAG, c, MPI_STATUS_IGNORE);
    else if (sends)
        rc = PMPI_Send(send, ns, t, peer, PAIR_TAG, c);
    else
        rc = PMPI_Recv(recv, nr, t, peer, PAIR_TAG, c, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) hier_failed(x, MCOLL_ERR_MPI);
    x->mpi_s += MPI_Wtime() - t0;
}

static int copy_ok(hier_run *x, CUresult r)
{
    if (r != CUDA_SUCCESS) hier_failed(x, MCOLL_ERR_CUDA);
    return r == CUDA_SUCCESS;
}

/* The slot's room before the other's part: what was copied ahead, or the part sent. */
static size_t ahead_room(const hier_pair_step *p, size_t bytes)
{
    return hier_stage_aligned(p->ahead_bytes > bytes ? p->ahead_bytes : bytes);
}

static char *reduce_on_gpu(hier_run *x, const hier_pair_step *p, CUstream stream)
{
    const mcoll_hier_args *a = x->a;
    int first = x->h->my_domain == 0;
    /* Domain 0's part op domain 1's, into the second operand's buffer. */
    int r = mcoll_launch_reduce_local(first ? p->mine : p->theirs, first ? p->theirs : p->mine, p->q, a->dtype,
                                      a->kernel_op, stream);
    if (r != MCOLL_LAUNCH_OK) {
        MCOLL_WARN("hierarchical collective: reducing the other domain's part on the GPU failed (%s)",
                   r == MCOLL_LAUNCH_UNSUPPORTED ? "unsupported" : mcoll_launch_error());
        hier_failed(x, MCOLL_ERR_CUDA);
    }
    return first ? p->theirs : p->mine;
}

/* A CUDA-aware MPI: the swap on the device buffers (the engine's steps that made them are done:
 * the pipeline waited for them), the reduction on the engine's stream. */
static char *on_device(hier_run *x, const hier_pair_step *p)
{
    CUstream engine = mcoll_comm_stream(x->engine);
    char *sum;
    swap(x, p->send, p->mine ? p->theirs : NULL, p->q * x->a->esize, p->send != NULL, p->mine != NULL);
    if (!p->mine || x->rc != MCOLL_SUCCESS) return p->mine;
    sum = reduce_on_gpu(x, p, engine);
    if (!x->queued && x->rc == MCOLL_SUCCESS) copy_ok(x, mcoll_cu.cuStreamSynchronize(engine));
    return sum;
}

/* Through the slots: the copy in and the reduction queued on the engine's stream. The slot holds
 * what was copied ahead (or this step's part to send), then the other's part. */
static char *on_gpu(hier_run *x, const hier_pair_step *p, char *host)
{
    const mcoll_hier_args *a = x->a;
    size_t bytes = p->q * a->esize, room = ahead_room(p, bytes);
    CUstream engine = mcoll_comm_stream(x->engine);
    char *send = NULL, *theirs = host + room;
    if (p->send) {
        if (hier_slots_take_ahead(x, p->ahead_dev, p->ahead_bytes)) {
            send = host + (p->send - p->ahead_dev);
        } else {
            send = host;
            if (hier_stage(x, send, p->send, bytes, 1)) hier_stage_wait(x);
        }
    }
    swap(x, send, theirs, bytes, p->send != NULL, p->mine != NULL);
    if (!p->mine || x->rc != MCOLL_SUCCESS) return p->mine;
    x->pending = 1;
    if (!copy_ok(x, hier_stage_copy(engine, p->theirs, theirs, bytes, 0))) return p->mine;
    return reduce_on_gpu(x, p, engine);
}

/* Staged on its own: copy in, swap, PMPI_Reduce_local on the host, the result copied back into
 * this rank's part. */
static char *on_host(hier_run *x, const hier_pair_step *p)
{
    const mcoll_hier_args *a = x->a;
    size_t bytes = p->q * a->esize, room = hier_stage_aligned(bytes);
    char *host = hier_host(x, 3 * room), *send = NULL, *mine = NULL, *theirs = NULL;
    int first = x->h->my_domain == 0, ok = host != NULL;
    if (host) {
        send = p->send ? host : NULL;
        mine = p->mine ? host + room : NULL;
        theirs = p->mine ? host + 2 * room : NULL;
        if (send) ok = hier_stage(x, send, p->send, bytes, 1);
        if (mine && ok) ok = hier_stage(x, mine, p->mine, bytes, 1);
        if (ok) hier_stage_wait(x);
    }
    swap(x, send, theirs, bytes, p->send != NULL, p->mine != NULL);
    if (!p->mine || !host || x->rc != MCOLL_SUCCESS) return p->mine;
    /* Domain 0's part op domain 1's, into the second operand (MPI_Reduce_local's inoutbuf). */
    if (PMPI_Reduce_local(first ? mine : theirs, first ? theirs : mine, (int)p->q, a->type, a->op) != MPI_SUCCESS) {
        hier_failed(x, MCOLL_ERR_MPI);
        return p->mine;
    }
    if (hier_stage(x, p->mine, first ? theirs : mine, bytes, 0)) hier_stage_wait(x);
    return p->mine;
}

char *hier_pair(hier_run *x, const hier_pair_step *p)
{
    size_t bytes = p->q * x->a->esize;
    char *host;
    if (!p->q) return p->mine;
    if (x->a->cuda_aware && x->engine) {
        hier_report_between(x, HIER_SWAPPED, 1);
        return on_device(x, p);
    }
    host = x->slots && x->engine ? hier_slots_memory(x, ahead_room(p, bytes) + bytes) : NULL;
    hier_report_between(x, HIER_SWAPPED, host != NULL);
    return host ? on_gpu(x, p, host) : on_host(x, p);
}
