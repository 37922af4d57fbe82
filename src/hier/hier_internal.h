/* The record of a communicator that spans domains, and the steps the hierarchical algorithms
 * are written in: steps inside the domain (intra.c: the GPU engine, or MPI on the domain's
 * communicator), steps between domains (inter.c: MPI on the cross communicator, staged through
 * pinned host memory when needed), copies and scratch memory (hier_mem.c). */
#ifndef MCOLL_HIER_INTERNAL_H
#define MCOLL_HIER_INTERNAL_H

#include <stdatomic.h>
#include "driver.h"
#include "domains.h"
#include "hier.h"

struct mcoll_hier {
    int rank, size;          /* in the communicator */
    int domains;             /* how many; numbered by their lowest rank */
    int my_domain;
    int local_rank, local_size;
    int equal;               /* every domain has local_size ranks */
    int smallest, largest;   /* domain sizes */
    int *domain_of;          /* [rank]: its domain */
    int *local_of;           /* [rank]: its rank in its domain */
    int *domain_size;        /* [domain] */
    int *domain_first;       /* [domain]: where its ranks start in rank_at */
    int *rank_at;            /* the ranks, domain after domain, each in rank order */
    int *local_major;        /* equal domains: [rank] = local rank * domains + domain, its place
                                when blocks are ordered by local rank first */
    MPI_Comm domain;         /* the ranks of this rank's domain, in rank order */
    MPI_Comm cross;          /* equal domains: the ranks of this local rank in every domain;
                                else the first rank of every domain (MPI_COMM_NULL elsewhere);
                                both in domain order */
    int nonblocking;         /* every rank has MCOLL_HIER_NONBLOCKING on */
    int gpu_reduce;          /* every rank has MCOLL_HIER_GPU_REDUCE on (pair.c, exchange.c) */
    unsigned gpu_reduce_reported; /* the forms hier_report_between has said (a bit each) */
    mcoll_domain_kind kind;
    char text[96];           /* mcoll_hier_describe */
    mcoll_hier_times_t times; /* the calls' time split (mcoll_hier_times), summed by hier_execute */
    mcoll_comm *engine;      /* the domain's GPU engine; NULL: MPI inside the domain */
    int engine_tried;
    int engine_reported;     /* mcoll_hier_engine_built said so */
    /* Memory of the steps, grown to the largest call: */
    CUstream stream;         /* copies (created in the context of the first call) */
    CUevent marks[2];        /* points on the engine's stream, for pipelined steps */
    char *host;              /* pinned staging memory */
    size_t host_bytes;
    int host_registered;
    char *slots;             /* pinned memory of the two slots (stage_slots.c), slot_bytes each */
    size_t slots_bytes, slot_bytes;
    int slots_registered;
    char *scratch;           /* device (or host, for host calls) scratch */
    size_t scratch_bytes;
    int scratch_on_device;
    /* Nonblocking and persistent calls (hier_op.h): started and not finished, oldest first; and
     * the call being recorded, while mcoll_hier_op_record runs. */
    struct mcoll_hier_op *ops_head, *ops_tail;
    atomic_int ops_lock;     /* 1 while a thread changes that queue (hier_op.c) */
    struct mcoll_hier_op *recording;
};

/* One call on its way through the steps. */
typedef struct {
    mcoll_hier *h;
    const mcoll_hier_args *a;
    mcoll_comm *engine;      /* the domain's engine for this call, or NULL */
    mcoll_result rc;         /* the first failure; later MPI steps are still made */
    int queued;              /* engine steps return once queued (hier_intra_mark/wait order them) */
    double start, mpi_s;     /* MPI_Wtime at the start; seconds in steps between domains (MPI,
                                staging included) */
    struct mcoll_hier_op *rec; /* recording a nonblocking call: steps are kept, not made */
    int slots;               /* staging through two slots (hier_slots_begin) */
    int parity;              /* the slot of the chunk finished next */
    int pending;             /* a copy is queued on a slot: the slots must not move */
    struct {                 /* a slot's input copied ahead (hier_stage_ahead) */
        const char *dev;     /* NULL: none */
        size_t bytes;
    } ahead[2];
} hier_run;

/* The call's first failure is kept; later steps still run (hier_run.rc). */
static inline void hier_failed(hier_run *x, mcoll_result rc)
{
    if (x->rc == MCOLL_SUCCESS) x->rc = rc;
}

/* Staging memory is laid out in pieces of this alignment. */
#define HIER_STAGE_ALIGN 256
static inline size_t hier_stage_aligned(size_t bytes)
{
    return (bytes + HIER_STAGE_ALIGN - 1) / HIER_STAGE_ALIGN * HIER_STAGE_ALIGN;
}

/* A step on the domain's engine; counts in elements of the call (bcast and allgather: bytes). */
typedef enum {
    HIER_ENGINE_REDUCE_SCATTER, HIER_ENGINE_ALLREDUCE, HIER_ENGINE_REDUCE, HIER_ENGINE_BCAST, HIER_ENGINE_ALLGATHER,
    HIER_ENGINE_GATHER
} hier_engine_kind;

typedef struct {
    hier_engine_kind kind;
    const void *in;
    void *out;               /* bcast: the buffer */
    size_t n;                /* per rank for reduce-scatter, allgather and gather */
    int root;
} hier_engine_step;

/* Queue the step on `engine`'s stream (intra.c); the call's types from `a`. */
mcoll_result hier_engine_queue(mcoll_comm *engine, const mcoll_hier_args *a, const hier_engine_step *s);

/* k blocks of `bytes`: src block (from ? from[i] : i) to dst block (to ? to[i] : i), blocks
 * dst_stride and src_stride bytes apart (hier_permute; hier_copy is one block). */
typedef struct {
    char *dst;
    size_t dst_stride;
    const int *to;
    const char *src;
    size_t src_stride;
    const int *from;
    int k;
    size_t bytes;
} hier_copy_step;

/* Queue the copies on `stream` (device buffers) or make them (host buffers); CUDA_SUCCESS or the
 * first failure (hier_mem.c). */
CUresult hier_copy_queue(const hier_copy_step *s, int device, CUstream stream);

/* Run one call: `equal` when the domains have one size, else `unequal`; returns the first
 * failure, after one TRACE line splitting its time: steps between domains (MPI, staging
 * included), and the rest (steps inside the domains, copies). */
typedef void (*hier_algorithm)(hier_run *x);
mcoll_result hier_execute(mcoll_hier *h, const mcoll_hier_args *a, const char *name, hier_algorithm equal,
                          hier_algorithm unequal);

/* Inside the domain; counts in elements of the call (a->esize bytes). Each returns once the
 * result is in place. in may be MPI_IN_PLACE where MPI allows it. */
void hier_intra_reduce_scatter(hier_run *x, const void *in, void *out, size_t n);   /* n per rank */
void hier_intra_allreduce(hier_run *x, const void *in, void *out, size_t n);
void hier_intra_reduce(hier_run *x, const void *in, void *out, size_t n, int root);
void hier_intra_bcast(hier_run *x, void *buf, size_t n, int root);
void hier_intra_allgather(hier_run *x, const void *in, void *out, size_t n);        /* n per rank */
void hier_intra_gather(hier_run *x, const void *in, void *out, size_t n, int root);  /* n per rank */

/* Pipelining with the engine: while x->queued is set, the steps above return once queued on the
 * engine's stream; mark records point `slot` (0 or 1) after what is queued, wait returns when
 * the engine has reached it, finish when it has run everything. Without an engine (steps made
 * through MPI or copies) they return at once: those steps are done when they return. */
int hier_can_queue(const hier_run *x);   /* the domain's engine runs the steps, events at hand */
void hier_intra_mark(hier_run *x, int slot);
void hier_intra_wait(hier_run *x, int slot);
void hier_intra_finish(hier_run *x);

/* Pipelined calls on equal domains of d ranks: the first `body` elements (n / d * d) are cut
 * into `chunks` chunks of `chunk` elements, d slices of `slice` elements each (MCOLL_STAGE_CHUNK
 * bytes, or fewer when the vector is short); the last chunk may be shorter, still d slices. The
 * n - body elements after them are the remainder, which each algorithm handles whole. */
typedef struct {
    size_t body, slice, chunk, chunks;
} hier_chunks;

hier_chunks hier_chunking(const hier_run *x, size_t n);
/* Elements of chunk k (a multiple of d). */
size_t hier_chunk_elements(const hier_chunks *c, size_t k);

/* n elements cut into `chunks` pieces of `chunk` elements (the last may be shorter; body = n,
 * slice = chunk) of MCOLL_STAGE_CHUNK / ways bytes: ways = D for each rank's block of allgather
 * and reduce-scatter on equal domains (a step between domains then moves about MCOLL_STAGE_CHUNK
 * bytes per rank, one piece from every domain), 1 for the vector of the calls through the
 * domains' first ranks (unequal domains). */
hier_chunks hier_pieces(const hier_run *x, size_t n, size_t ways);

/* The two-slot pipeline: for every chunk k, queue(k) (steps queued on the engine), a mark in
 * slot k % 2, and then, while chunk k runs, a wait for chunk k - 1's mark and finish(k - 1)
 * (steps between domains, which must be done with chunk k - 1's slot when they return):
 *     Q(0) mark0 | Q(1) mark1, wait0, F(0) | Q(2) mark0, wait1, F(1) | ... | wait, F(last)
 * x->queued is set while it runs. */
typedef void (*hier_chunk_step)(hier_run *x, size_t k, void *ctx);
void hier_pipeline(hier_run *x, size_t chunks, hier_chunk_step queue, hier_chunk_step finish, void *ctx);

/* The pipeline of allreduce and reduce: chunk k of `in` is reduce-scattered inside the domain
 * into one of the two `slot`s (queued on the engine), and while it runs chunk k - 1 is finished
 * by `finish` (its q-element slice in its slot, which `finish` must be done with when it
 * returns: the engine reuses the slot two chunks on). On the engine's one stream:
 *     RS(0) | RS(1) mark1, wait0, finish(0) | RS(2) mark0, wait1, finish(1) | ... */
typedef void (*hier_chunk_finish)(hier_run *x, char *slot, size_t k, size_t q, void *ctx);
void hier_pipeline_reduce_scatter(hier_run *x, const hier_chunks *c, const char *in, char *slot[2],
                                  hier_chunk_finish finish, void *ctx);

/* Between domains, on h->cross (ranks numbered by domain); same conventions. */
void hier_inter_allreduce(hier_run *x, const void *in, void *out, size_t n);
void hier_inter_reduce(hier_run *x, const void *in, void *out, size_t n, int root);
void hier_inter_bcast(hier_run *x, void *buf, size_t n, int root);
void hier_inter_allgather(hier_run *x, const void *in, void *out, size_t n);         /* equal domains */
void hier_inter_reduce_scatter_block(hier_run *x, const void *in, void *out, size_t n);
void hier_inter_allgatherv(hier_run *x, const void *in, size_t n, void *out, const int *counts, const int *displs);
void hier_inter_reduce_scatter(hier_run *x, const void *in, void *out, const int *counts);

/* One MPI call of a step, on buffers that may be device memory (hier_mpi.c): counts in
 * elements of the call's type; in is read (MPI_IN_PLACE or NULL: nothing), out written, and
 * read too when out_read (in place, the root of a broadcast). */
typedef enum {
    HIER_ALLREDUCE, HIER_REDUCE, HIER_BCAST, HIER_ALLGATHER, HIER_GATHER, HIER_ALLGATHERV, HIER_REDUCE_SCATTER_BLOCK,
    HIER_REDUCE_SCATTER, HIER_ALLTOALLV, HIER_GATHERV
} hier_mpi_kind;

typedef struct {
    hier_mpi_kind kind;
    MPI_Comm comm;
    const void *in;
    size_t in_bytes;
    void *out;
    size_t out_bytes;
    int out_read;
    int count, root;
    const int *counts, *displs;  /* per domain; alltoallv: what this rank sends */
    const int *rcounts, *rdispls; /* alltoallv: what it receives */
} hier_mpi_step;

void hier_mpi(hier_run *x, const hier_mpi_step *s);
/* The MPI call of a step on the given buffers: blocking, or nonblocking when req is not NULL
 * (hier_mpi.c). */
int hier_mpi_call(const mcoll_hier_args *a, const hier_mpi_step *s, const void *in, void *out, MPI_Request *req);
/* Staging a step through pinned host memory: its input at the start, its output in_room bytes
 * on (aligned), staging_bytes in all; and one asynchronous staging copy on `stream` (said at WARN
 * when it fails). */
size_t hier_mpi_in_room(const hier_mpi_step *s);
/* Staging through two slots of pinned memory inside a pipeline whose engine steps are queued
 * (stage_slots.c; device buffers, an MPI that is not CUDA-aware, blocking calls):
 *   - the MPI step of chunk k stages through slot k % 2 and queues its result's copy back on
 *     the engine's stream, before the engine steps that read it, instead of waiting for it; a
 *     later MPI step of the same pipeline must not read that result (none does);
 *   - hier_stage_ahead, in the queue step of chunk k, copies the `bytes` at `dev` (which the
 *     steps queued so far produce) into slot k % 2 on the engine's stream, so that they cross
 *     to the host while chunk k - 1 crosses the MPI; chunk k's MPI step on `dev` (in place, or
 *     reading it with no other output) then uses that copy.
 * A slot is reused two chunks on, after the pipeline has waited for the engine's mark that
 * follows its copy back. hier_slots_begin starts (when the call qualifies), hier_slots_chunk
 * says which chunk is finished next, hier_slots_end stops (after the engine has finished). */
void hier_slots_begin(hier_run *x);
void hier_slots_chunk(hier_run *x, size_t k);
void hier_slots_end(hier_run *x);
void hier_stage_ahead(hier_run *x, size_t k, const void *dev, size_t bytes);
/* hier_mpi's step through the slots; 0 when it does not apply (then staged as usual). */
int hier_slots_mpi(hier_run *x, const hier_mpi_step *s);
/* The current slot with room for `bytes` (NULL: no slots, or no room); and whether `dev`'s
 * `bytes` were copied ahead into it (then taken: they lie at its start). */
char *hier_slots_memory(hier_run *x, size_t bytes);
int hier_slots_take_ahead(hier_run *x, const void *dev, size_t bytes);

/* Two domains of equal size (pair.c): a reduction between them as a swap through the MPI and a
 * reduction on this GPU. hier_pair_reduces says whether the call takes that form (alike on every
 * rank). A step: this rank sends the q elements at `send` (device; NULL: sends nothing) to its
 * counterpart in the other domain and, when `mine` is set, receives the counterpart's q elements
 * into `theirs` (device scratch, reused two chunks on) and reduces them with those at `mine`, in
 * domain order; hier_pair returns where the sum is (mine or theirs; NULL when it only sends).
 * `ahead_dev` is the buffer of `ahead_bytes` the pipeline copied ahead (hier_stage_ahead) that
 * holds `send`, or NULL. */
typedef struct {
    const char *ahead_dev;
    size_t ahead_bytes;
    const char *send;
    char *mine, *theirs;
    size_t q;
} hier_pair_step;
int hier_pair_reduces(const hier_run *x);
char *hier_pair(hier_run *x, const hier_pair_step *p);
/* What both forms ask of a call (alike on every rank): equal domains, MCOLL_HIER_GPU_REDUCE on
 * everywhere, a reduction the GPU kernels have, device buffers, the engines allowed. The swap is
 * for blocking calls; nonblocking and persistent ones (recorded) take the exchange. */
int hier_reduces_between(const hier_run *x);
/* Once per communicator and form, at INFO on its rank 0: how its domains reduce between them
 * (HIER_SWAPPED, HIER_EXCHANGED; of a nonblocking or persistent call when x->rec), on the GPU or
 * (no engine, or copies not on the engine's stream) on the host. */
enum { HIER_SWAPPED, HIER_EXCHANGED };
void hier_report_between(hier_run *x, int form, int on_gpu);

/* More than two domains of equal size, up to HIER_EXCHANGE_MAX_DOMAINS (exchange.c): the slice
 * cut into a part per domain, the parts exchanged through the MPI (MPI_Alltoallv), each rank's
 * part reduced on this GPU in domain order, then shared through the MPI. Beyond that many domains
 * the exchange's D - 1 messages and D - 1 reductions per step are left to the MPI's own
 * algorithms, whose steps grow as log D. hier_exchange_reduces says whether the call takes that
 * form (alike on every rank), given the bytes this rank hands the exchange per step (a slice, or
 * a reduce-scatter's bundle): a quarter of MCOLL_STAGE_CHUNK at least, since on smaller ones
 * its fixed costs (three MPI and copy steps, D - 1 launches, in series) outweigh the MPI's
 * reduction (8 ranks in domains of 2 on one H200, 1 MiB calls, slices of 512 KiB: 0.82-0.94x of
 * the MPI reducing; benchmarks/results/2026-11-29-h200x1-z). `dev` is device scratch of hier_exchange_scratch bytes, of which
 * the pipelines keep two, used by turns (a step's copy of its result may still be queued on the
 * engine's stream when the next begins). Allreduce and reduce: the q elements at `slice` (device;
 * its copy ahead taken when there is one) are replaced by the sum over the domains (reduce: at
 * the root's domain only). Reduce-scatter: `bundle` holds D pieces of q elements, piece j for
 * domain j; returns where this domain's piece, reduced, lies (in `dev`). */
#define HIER_EXCHANGE_MAX_DOMAINS 16
int hier_exchange_reduces(const hier_run *x, size_t bytes);
size_t hier_exchange_scratch(const hier_run *x, size_t q, size_t per_domain);
/* The exchange's D copies of a part, n elements each, one after the other at `parts`: domain 0's
 * copy op (domain 1's op (...)), into the last copy; on the GPU (queued on `stream`) or on the
 * host. 1 when done (or queued). */
int hier_reduce_parts_gpu(const mcoll_hier_args *a, char *parts, int d, size_t n, CUstream stream);
int hier_reduce_parts_host(const mcoll_hier_args *a, char *parts, int d, size_t n);
void hier_exchange_allreduce(hier_run *x, char *slice, size_t q, char *dev);
void hier_exchange_reduce(hier_run *x, char *slice, size_t q, char *dev, int root_domain);
char *hier_exchange_reduce_scatter(hier_run *x, const char *bundle, size_t q, char *dev);
size_t hier_mpi_staging_bytes(const hier_mpi_step *s);
CUresult hier_stage_copy(CUstream stream, void *dst, const void *src, size_t bytes, int to_host);
/* The same on the call's copy stream, skipped after a failure and failing the call; and the wait
 * for that stream. Each returns 1 when done. */
int hier_stage(hier_run *x, void *dst, const void *src, size_t bytes, int to_host);
int hier_stage_wait(hier_run *x);

/* Memory: scratch of the buffers' kind (valid until the next call), and a copy that has
 * finished when it returns. */
char *hier_scratch(hier_run *x, size_t bytes);
void hier_copy(hier_run *x, void *dst, const void *src, size_t bytes);
/* k blocks of `bytes`: block i of src to block to[i] of dst, or block from[i] of src to block i
 * of dst (the other array NULL), blocks `dst_stride` and `src_stride` bytes apart; waited for at
 * the end, or queued on the engine's stream (not waited for) while x->queued is set. */
void hier_permute(hier_run *x, char *dst, size_t dst_stride, const int *to, const char *src, size_t src_stride,
                  const int *from, int k, size_t bytes);
/* Carve scratch: the next `bytes` of a region, aligned. */
char *hier_carve(char **next, size_t bytes);
/* A pipeline's two slots of `bytes` each, used by turns (none, both NULL, when bytes is 0). */
void hier_carve_two(char **next, size_t bytes, char *two[2]);
/* Pinned host memory for staging, and the copy stream (hier_mem.c). */
char *hier_host(hier_run *x, size_t bytes);
char *hier_host_slots(hier_run *x, size_t bytes); /* the slots' memory; NULL (no failure) without */
/* Pinned host memory near the GPU, or (pageable_ok) pageable memory where pinning fails; freed with
 * hier_host_free and the same `registered`. */
char *hier_host_alloc(size_t bytes, int *registered, int pageable_ok);
void hier_host_free(char *p, size_t bytes, int registered);
void hier_free_memory(mcoll_hier *h);

/* Bytes of n elements, and the element at index i of a buffer. */
#define HIER_BYTES(x, n) ((size_t)(n) * (x)->a->esize)
#define HIER_AT(x, buf, i) ((char *)(buf) + HIER_BYTES(x, i))

#endif /* MCOLL_HIER_INTERNAL_H */
