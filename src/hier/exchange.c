/* More than two domains of equal size: a reduction between them with no reduction by the MPI.
 *
 * The D ranks holding one slice (one per domain, h->cross) cut it into D parts. Each sends part j
 * to the rank of domain j and receives its own part from every domain (MPI_Alltoallv: the MPI
 * only moves bytes), reduces the D copies of its part on the GPU in domain order (part of domain
 * 0 op (part of domain 1 op (...))), and the reduced parts are then shared: all-gathered
 * (allreduce), gathered to the root's domain (reduce), or kept (reduce-scatter, whose parts are
 * the pieces for each domain). Each part is reduced once, so every rank gets the same bits.
 * The bytes a rank sends and receives are those of the MPI's own reduce-scatter and all-gather
 * (2 (D - 1) / D of the slice); what goes is the host MPI's reduction on one core, in series
 * with the transfers (two domains: pair.c, whose swap is one step).
 *
 * Forms, as pair.c's: with a CUDA-aware MPI and an engine the MPI takes the device buffers;
 * staging with the engine's slots (hier_slots_begin) the input comes from its copy ahead, the
 * parts received go to the GPU and the reduced part back, and the shared result's copy to the
 * device is queued on the engine's stream from the slot; without an engine or slots the parts
 * are reduced on the host with PMPI_Reduce_local. Which MPI calls a rank makes depends only on
 * what every rank agrees on. */
#include "comm_internal.h"
#include "config.h"
#include "hier_op.h"
#include "launch.h"
#include "log.h"

/* One step: the input's parts (counts[j] elements at displs[j], for domain j) and where this
 * rank's part, reduced, ends up. */
typedef struct {
    hier_run *x;
    int d, me;
    int counts[HIER_EXCHANGE_MAX_DOMAINS], displs[HIER_EXCHANGE_MAX_DOMAINS];
    size_t in_bytes, part_bytes;
    const char *in;          /* device */
    char *dev;               /* device scratch: the D copies of this rank's part */
    int gpu;                 /* reduced on the GPU (else on the host) */
    int staged;              /* the MPI gets host memory */
    int from_slot;           /* the input (then the shared result) in the engine's slot */
    char *in_mpi;            /* the input as the MPI reads it: device, slot or host */
    char *parts_mpi;         /* the D copies as the MPI writes them: device or host */
    char *sum_mpi;           /* this rank's part reduced, where the MPI reads it */
} exchange;

int hier_exchange_reduces(const hier_run *x, size_t bytes)
{
    /* Recorded calls take it for two domains too (the swap has no recorded form). */
    return x->h->domains >= (x->rec ? 2 : 3) && x->h->domains <= HIER_EXCHANGE_MAX_DOMAINS &&
           bytes >= mcoll_settings_get()->stage_chunk / 4 && hier_reduces_between(x);
}

size_t hier_exchange_scratch(const hier_run *x, size_t q, size_t per_domain)
{
    size_t d = (size_t)x->h->domains;
    return HIER_BYTES(x, d * (per_domain ? per_domain : (q + d - 1) / d));
}

int hier_reduce_parts_gpu(const mcoll_hier_args *a, char *parts, int d, size_t n, CUstream stream)
{
    size_t bytes = n * a->esize;
    char *last = parts + (size_t)(d - 1) * bytes;
    int j, r;
    for (j = d - 2; j >= 0; j--) {
        r = mcoll_launch_reduce_local(parts + (size_t)j * bytes, last, n, a->dtype, a->kernel_op, stream);
        if (r != MCOLL_LAUNCH_OK) {
            MCOLL_WARN("hierarchical collective: reducing the domains' parts on the GPU failed (%s)",
                       r == MCOLL_LAUNCH_UNSUPPORTED ? "unsupported" : mcoll_launch_error());
            return 0;
        }
    }
    return 1;
}

int hier_reduce_parts_host(const mcoll_hier_args *a, char *parts, int d, size_t n)
{
    size_t bytes = n * a->esize;
    int j;
    for (j = d - 2; j >= 0; j--)
        if (PMPI_Reduce_local(parts + (size_t)j * bytes, parts + (size_t)(d - 1) * bytes, (int)n, a->type, a->op) !=
            MPI_SUCCESS)
            return 0;
    return 1;
}

/* Parts of equal size (reduce-scatter's pieces), or q cut as evenly as it goes. */
static void cut(exchange *e, hier_run *x, const char *in, size_t q, size_t per_domain, char *dev)
{
    int j, at = 0;
    e->x = x;
    e->d = x->h->domains;
    e->me = x->h->my_domain;
    for (j = 0; j < e->d; j++) {
        e->counts[j] = (int)(per_domain ? per_domain : q / (size_t)e->d + ((size_t)j < q % (size_t)e->d));
        e->displs[j] = at;
        at += e->counts[j];
    }
    e->in = in;
    e->dev = dev;
    e->in_mpi = e->parts_mpi = e->sum_mpi = NULL;
    e->in_bytes = HIER_BYTES(x, at);
    e->part_bytes = HIER_BYTES(x, e->counts[e->me]);
}

static int begin(exchange *e, hier_run *x, const char *in, size_t q, size_t per_domain, char *dev)
{
    const mcoll_hier_args *a = x->a;
    size_t room;
    char *host;
    cut(e, x, in, q, per_domain, dev);
    e->gpu = x->engine && (a->cuda_aware || x->slots);
    e->staged = !(a->cuda_aware && x->engine);
    hier_report_between(x, HIER_EXCHANGED, e->gpu);
    e->from_slot = 0;
    if (!e->staged) {
        e->in_mpi = (char *)in;
        e->parts_mpi = dev;
        return 1;
    }
    /* The input copied ahead into the slot, or a slot to copy it into; the parts in the host
     * area. */
    if (x->slots && hier_slots_take_ahead(x, in, e->in_bytes)) {
        e->in_mpi = hier_slots_memory(x, e->in_bytes);
        e->from_slot = e->in_mpi != NULL;
    }
    room = hier_stage_aligned(e->in_bytes);
    host = hier_host(x, room + (size_t)e->d * e->part_bytes);
    if (!host) return 0;
    if (!e->from_slot) {
        e->in_mpi = host;
        if (hier_stage(x, host, in, e->in_bytes, 1)) hier_stage_wait(x);
    }
    e->parts_mpi = host + room;
    return 1;
}

/* Domain j's copy of this rank's part in the D copies at `base`, one after the other. */
static char *part(const exchange *e, char *base, int j) { return base + (size_t)j * e->part_bytes; }

/* The MPI steps, in both forms. The exchange: part j of `in` to domain j, every domain's copy of
 * this rank's part into `parts` (the receive layout in rcounts and rdispls, the caller's). */
static hier_mpi_step scatter_step(const exchange *e, const void *in, void *parts, int *rcounts, int *rdispls)
{
    int j;
    for (j = 0; j < e->d; j++) {
        rcounts[j] = e->counts[e->me];
        rdispls[j] = j * e->counts[e->me];
    }
    return (hier_mpi_step){HIER_ALLTOALLV, e->x->h->cross, in, e->in_bytes, parts, (size_t)e->d * e->part_bytes,
                           0, 0, 0, e->counts, e->displs, rcounts, rdispls};
}

/* The reduced parts shared: all-gathered into `out`, or gathered there at the root's domain. */
static hier_mpi_step share_step(const exchange *e, int gather, int root_domain, const void *sum, void *out)
{
    int has_out = !gather || e->me == root_domain;
    return (hier_mpi_step){gather ? HIER_GATHERV : HIER_ALLGATHERV, e->x->h->cross, sum, e->part_bytes,
                           has_out ? out : NULL, has_out ? e->in_bytes : 0, 0, e->counts[e->me], root_domain,
                           e->counts, e->displs, NULL, NULL};
}

/* No memory on this rank: its MPI calls are still made, on no data, so the peers are not left
 * waiting (their calls then fail, or lack this rank's data, as after any failed staging). */
static const int no_counts[HIER_EXCHANGE_MAX_DOMAINS];

/* A step of the blocking form, on the buffers in `s` (those the MPI takes). */
static void blocking_mpi(exchange *e, hier_mpi_step s, int ok)
{
    double t0 = MPI_Wtime();
    if (!ok) {
        s.in = NULL;
        s.out = NULL;
        s.count = 0;
        s.counts = s.rcounts = no_counts;
    }
    if (hier_mpi_call(e->x->a, &s, s.in, s.out, NULL) != MPI_SUCCESS) hier_failed(e->x, MCOLL_ERR_MPI);
    e->x->mpi_s += MPI_Wtime() - t0;
}

/* A nonblocking or persistent call (recorded, hier_op.h): the exchange and the reduction as steps
 * that its completion calls make one after the other (the MPI step staged as any, the reduction
 * on the engine's stream or, without an engine, on the host). Returns where this rank's part,
 * reduced, will be (device), or NULL when its part is empty (a short last chunk): no device
 * pointer goes to an MPI that is not CUDA-aware. */
static char *recorded_scatter_reduce(exchange *e)
{
    hier_run *x = e->x;
    int rcounts[HIER_EXCHANGE_MAX_DOMAINS], rdispls[HIER_EXCHANGE_MAX_DOMAINS];
    char *parts = e->part_bytes ? e->dev : NULL;
    hier_mpi_step s = scatter_step(e, e->in, parts, rcounts, rdispls);
    hier_report_between(x, HIER_EXCHANGED, x->engine != NULL);
    hier_mpi(x, &s);
    if (!parts) return NULL;
    hier_record_reduce(x, parts, e->d, (size_t)e->counts[e->me]);
    return part(e, parts, e->d - 1);
}

/* The reduce-scatter between the domains: this rank's part reduced, in the last of e->dev's
 * copies when on_device (which it returns), else at e->sum_mpi for the MPI. */
static char *scatter_reduce(exchange *e, int ok, int on_device)
{
    hier_run *x = e->x;
    const mcoll_hier_args *a = x->a;
    int rcounts[HIER_EXCHANGE_MAX_DOMAINS], rdispls[HIER_EXCHANGE_MAX_DOMAINS];
    size_t n = (size_t)e->counts[e->me];
    char *sum_dev = part(e, e->dev, e->d - 1);
    blocking_mpi(e, scatter_step(e, e->in_mpi, e->parts_mpi, rcounts, rdispls), ok);
    if (!ok) return sum_dev;
    e->sum_mpi = part(e, e->parts_mpi, e->d - 1); /* shared even after a failure (peers wait for it) */
    if (x->rc != MCOLL_SUCCESS || !e->part_bytes) return sum_dev;
    if (!e->gpu) {
        if (!hier_reduce_parts_host(a, e->parts_mpi, e->d, n)) hier_failed(x, MCOLL_ERR_MPI);
        else if (on_device && hier_stage(x, sum_dev, e->sum_mpi, e->part_bytes, 0)) hier_stage_wait(x);
        return sum_dev;
    }
    if (e->staged) hier_stage(x, e->dev, e->parts_mpi, (size_t)e->d * e->part_bytes, 0);
    if (x->rc == MCOLL_SUCCESS && !hier_reduce_parts_gpu(a, e->dev, e->d, n, x->h->stream))
        hier_failed(x, MCOLL_ERR_CUDA);
    if (e->staged && !on_device) hier_stage(x, e->sum_mpi, sum_dev, e->part_bytes, 1);
    hier_stage_wait(x);
    return sum_dev;
}

/* The shared result, written by the MPI at `result` (host or device), into `out` on the device:
 * from the slot, queued on the engine's stream (the slot is kept until the engine has read it);
 * else copied and waited for. */
static void result_to_device(exchange *e, char *out, const char *result)
{
    hier_run *x = e->x;
    if (!e->staged || x->rc != MCOLL_SUCCESS) return;
    if (e->from_slot) {
        if (hier_stage_copy(mcoll_comm_stream(x->engine), out, result, e->in_bytes, 0) != CUDA_SUCCESS)
            hier_failed(x, MCOLL_ERR_CUDA);
        x->pending = 1;
    } else if (hier_stage(x, out, result, e->in_bytes, 0)) {
        hier_stage_wait(x);
    }
}

/* Allreduce (the reduced parts all-gathered into `slice`) and reduce (gathered there at the root's
 * domain). */
static void reduce_slice(hier_run *x, char *slice, size_t q, char *dev, int gather, int root_domain)
{
    exchange e;
    hier_mpi_step s;
    char *result;
    int ok;
    if (x->rec) {
        cut(&e, x, slice, q, 0, dev);
        s = share_step(&e, gather, root_domain, recorded_scatter_reduce(&e), slice);
        hier_mpi(x, &s);
        return;
    }
    ok = begin(&e, x, slice, q, 0, dev);
    result = e.staged ? e.in_mpi : slice; /* the input's place (the slot, or the host area) */
    scatter_reduce(&e, ok, 0);
    blocking_mpi(&e, share_step(&e, gather, root_domain, e.sum_mpi, result), ok);
    if (ok && (!gather || e.me == root_domain)) result_to_device(&e, slice, result);
}

void hier_exchange_allreduce(hier_run *x, char *slice, size_t q, char *dev) { reduce_slice(x, slice, q, dev, 0, 0); }

void hier_exchange_reduce(hier_run *x, char *slice, size_t q, char *dev, int root_domain)
{
    reduce_slice(x, slice, q, dev, 1, root_domain);
}

char *hier_exchange_reduce_scatter(hier_run *x, const char *bundle, size_t q, char *dev)
{
    exchange e;
    if (x->rec) {
        cut(&e, x, bundle, q * (size_t)x->h->domains, q, dev);
        return recorded_scatter_reduce(&e);
    }
    return scatter_reduce(&e, begin(&e, x, bundle, q * (size_t)x->h->domains, q, dev), 1);
}
