/*
 * mcoll: MPI collectives on NVIDIA GPU buffers inside an NVLink domain.
 *
 * Two ways to use it:
 *   - as a PMPI plug-in: link -lmcoll before -lmpi, or LD_PRELOAD=libmcoll.so; MPI_Allreduce,
 *     MPI_Bcast, ... on device buffers then run on the GPU engines, everything else is forwarded;
 *   - through the native, stream-ordered API below.
 *
 * Error convention: every function returns an mcoll_result; MCOLL_SUCCESS is 0 and every other
 * value is an error whose text mcoll_strerror() gives, together with the last warning logged.
 *
 * This header needs <mpi.h> only. Streams are passed as `struct CUstream_st *`, which is what
 * cudaStream_t and CUstream are, so no CUDA header is needed to include it.
 */
#ifndef MCOLL_H
#define MCOLL_H

#include <stddef.h>
#include <stdint.h>
#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

/* API version: changes only when the API does (the package's version, in the file VERSION, is
 * another number). mcoll_version() gives the API version of the library actually loaded. */
#define MCOLL_API_VERSION_MAJOR 0
#define MCOLL_API_VERSION_MINOR 8
#define MCOLL_API_VERSION (MCOLL_API_VERSION_MAJOR * 1000 + MCOLL_API_VERSION_MINOR)

/* ---------------------------------------------------------------------------------------------
 * Errors
 * ------------------------------------------------------------------------------------------- */
typedef enum {
    MCOLL_SUCCESS = 0,
    MCOLL_ERR_INVALID_ARG,  /* bad count, buffer, root, datatype or op */
    MCOLL_ERR_UNSUPPORTED,  /* the request is valid but mcoll cannot run it natively */
    MCOLL_ERR_NO_DEVICE,    /* no usable NVIDIA driver or GPU */
    MCOLL_ERR_CUDA,         /* a CUDA driver or runtime call failed */
    MCOLL_ERR_MPI,          /* an MPI call failed */
    MCOLL_ERR_NO_MEMORY,    /* host or device memory exhausted */
    MCOLL_ERR_SYSTEM,       /* an operating-system call failed (sockets, fds) */
    MCOLL_ERR_INTERNAL,
    MCOLL_ERR_ABORTED       /* API 0.2: a peer's process exited, or MCOLL_TIMEOUT passed: the
                               communicator's collectives fail from then on */
} mcoll_result;

/* Text for an error code; static storage. */
const char *mcoll_strerror(mcoll_result code);
/* The last warning this process logged (empty string if none); valid until the next warning. */
const char *mcoll_last_warning(void);

/* API version of the loaded library as MAJOR * 1000 + MINOR (compare with MCOLL_API_VERSION). */
int mcoll_version(void);

/* ---------------------------------------------------------------------------------------------
 * Configuration
 * ------------------------------------------------------------------------------------------- */
typedef enum { MCOLL_ENGINE_AUTO = 0, MCOLL_ENGINE_UNICAST, MCOLL_ENGINE_NVLS, MCOLL_ENGINE_STAGED } mcoll_engine;
typedef enum { MCOLL_TRISTATE_AUTO = -1, MCOLL_OFF = 0, MCOLL_ON = 1 } mcoll_tristate;

/* Per-communicator settings for mcoll_comm_create. Start from mcoll_config_init(), which copies
 * the process-wide values read from the environment (MCOLL_* variables, see the README). */
typedef struct {
    mcoll_engine engine;     /* AUTO: multicast when available, else unicast */
    mcoll_tristate nvls;     /* multicast: AUTO, OFF or ON; NCCL_NVLS_ENABLE=0 always wins */
    size_t buffer_size;      /* bytes of symmetric memory per GPU for this communicator */
    int max_blocks;          /* upper bound on thread blocks per collective kernel (0: library choice) */
} mcoll_config;

void mcoll_config_init(mcoll_config *config);

/* Print every setting, its value, default and help to stdout (what `mcoll_info` shows). */
void mcoll_config_print(void);

/* ---------------------------------------------------------------------------------------------
 * Communicators
 * ------------------------------------------------------------------------------------------- */
typedef struct mcoll_comm mcoll_comm;

/* Collective over `comm`: every rank must call it. Builds the team (a GPU per rank, the GPU
 * current in the calling thread's CUDA context, else local rank modulo GPU count), symmetric
 * memory and, when enabled and supported, the multicast object. `config` may be NULL.
 * All ranks of `comm` must share one node. Several ranks may share a GPU when it runs under
 * CUDA MPS; a GPU shared by ranks without MPS gives MCOLL_ERR_UNSUPPORTED (kernels that wait
 * for another process would each take a scheduler time slice). A `comm` that holds a process
 * this process has seen exit (a team's peer) gives MCOLL_ERR_ABORTED at once, where creation
 * would wait for it for ever. */
mcoll_result mcoll_comm_create(MPI_Comm comm, const mcoll_config *config, mcoll_comm **out);

/* Collective over the communicator it was created from. Waits for the team's work to end and
 * frees everything it holds. Must be called before MPI_Finalize. */
mcoll_result mcoll_comm_destroy(mcoll_comm *comm);

typedef struct {
    mcoll_engine engine;           /* the engine collectives run on (UNICAST or NVLS) */
    int team_size;                 /* ranks (= GPUs) in the team */
    int rank;                      /* this rank in the team */
    int device;                    /* CUDA device ordinal this rank uses */
    size_t symmetric_bytes;        /* symmetric memory held per GPU */
    size_t peer_mapped_bytes;      /* peer memory mapped into this process */
    char handle_type[16];          /* "fabric" or "posix-fd" */
    char nvls_reason[160];         /* why multicast is or is not in use */
    /* API 0.2 */
    int gpus;                      /* distinct GPUs in the team */
    int ranks_per_gpu;             /* most ranks of the team on one GPU (> 1: GPUs shared under MPS) */
    int gpu_sharers;               /* ranks on this rank's GPU, itself included */
    int mps;                       /* 1 when this rank's GPU shares its contexts through MPS */
    /* API 0.4 */
    unsigned long long zero_copy_calls; /* collectives that ran zero-copy on window memory so far
                                           (through MPI: on buffers mapped for the call) */
    /* API 0.6: the protocol limits the ranks agreed on (the smallest rank's setting) */
    size_t oneshot_max;            /* allreduce and reduce up to this many bytes run one-shot (MCOLL_ONESHOT_MAX) */
    size_t ll_max;                 /* calls up to this many payload bytes take the LL protocol (MCOLL_LL_MAX,
                                      at most what the team's LL slots hold) */
    /* API 0.7: the kernels' grids and waits */
    int max_blocks;                /* most thread blocks of a kernel (MCOLL_MAX_BLOCKS: agreed, cut where
                                      ranks share a GPU) */
    int zero_copy_blocks;          /* most thread blocks of the wide grid: the larger of max_blocks and
                                      MCOLL_ZERO_COPY_BLOCKS (agreed and cut likewise) */
    int store_inputs;              /* 1: two-shot reductions send their inputs by stores (MCOLL_STORE_INPUTS,
                                      agreed: 1 only when every rank asked) */
    unsigned poll_pause_ns;        /* this rank's pause before each barrier poll (MCOLL_POLL_PAUSE_NS) */
    /* API 0.8 */
    int pdl;                       /* 1: this rank launches its low-latency kernels with programmatic
                                      dependent launch (MCOLL_PDL, on a GPU and build that have it) */
} mcoll_comm_info_t;

mcoll_result mcoll_comm_info(const mcoll_comm *comm, mcoll_comm_info_t *info);
/* One line describing the communicator, for logs and benchmark headers. */
mcoll_result mcoll_comm_describe(const mcoll_comm *comm, char *buf, size_t len);

/* ---------------------------------------------------------------------------------------------
 * Collectives: stream-ordered. Each call enqueues its work on `stream` and returns at once; the
 * result is in recvbuf when the stream reaches that point. Calls may be captured in a CUDA
 * graph and replayed. Buffers are device memory of this rank's GPU. MPI_IN_PLACE is accepted
 * as sendbuf wherever MPI accepts it. Counts are in elements of `datatype`.
 * Reductions (allreduce, reduce, reduce_scatter; scan and exscan below), by datatype:
 *   MPI_FLOAT, MPI_DOUBLE, MCOLL_FLOAT16, MCOLL_BFLOAT16: MPI_SUM, MPI_PROD, MPI_MIN, MPI_MAX
 *     (16-bit floats accumulate in float);
 *   8-, 16-, 32- and 64-bit signed and unsigned integers (MPI_CHAR, MPI_SIGNED_CHAR,
 *     MPI_UNSIGNED_CHAR, MPI_SHORT, MPI_INT, MPI_LONG, MPI_LONG_LONG, their unsigned forms,
 *     MPI_INT8_T ... MPI_UINT64_T): those and MPI_BAND, MPI_BOR, MPI_BXOR, MPI_LAND, MPI_LOR,
 *     MPI_LXOR (sums and products wrap around; logical ops give 0 or 1, any nonzero is true;
 *     MPI_CHAR is signed where C's char is);
 *   MPI_BYTE: MPI_BAND, MPI_BOR, MPI_BXOR;  MPI_C_BOOL: MPI_LAND, MPI_LOR, MPI_LXOR;
 *   MPI_C_FLOAT_COMPLEX (MPI_C_COMPLEX), MPI_C_DOUBLE_COMPLEX: MPI_SUM, MPI_PROD;
 *   MPI_FLOAT_INT, MPI_DOUBLE_INT, MPI_LONG_INT, MPI_2INT, MPI_SHORT_INT: MPI_MINLOC,
 *     MPI_MAXLOC (the smaller index wins a tie). Buffers hold the C structs {value; int};
 *     the padding after the last element is neither read nor written, other padding bytes
 *     of recvbuf are written (as zeros).
 * The C++ and Fortran handles of the same types work too. Other datatypes and ops return
 * MCOLL_ERR_UNSUPPORTED. Call them from a thread whose current device is the communicator's
 * (as cudaSetDevice leaves it) or that has no CUDA context at all. Collectives on one
 * communicator must be issued in the same order on every rank and must not run concurrently
 * on two streams; use one communicator per stream for concurrency.
 * ------------------------------------------------------------------------------------------- */
struct CUstream_st;

mcoll_result mcoll_allreduce(const void *sendbuf, void *recvbuf, size_t count, MPI_Datatype datatype,
                             MPI_Op op, mcoll_comm *comm, struct CUstream_st *stream);
mcoll_result mcoll_bcast(void *buf, size_t count, MPI_Datatype datatype, int root, mcoll_comm *comm,
                         struct CUstream_st *stream);
mcoll_result mcoll_reduce(const void *sendbuf, void *recvbuf, size_t count, MPI_Datatype datatype,
                          MPI_Op op, int root, mcoll_comm *comm, struct CUstream_st *stream);
/* recvcount elements per rank; sendbuf holds team_size * recvcount elements. */
mcoll_result mcoll_reduce_scatter(const void *sendbuf, void *recvbuf, size_t recvcount,
                                  MPI_Datatype datatype, MPI_Op op, mcoll_comm *comm,
                                  struct CUstream_st *stream);
/* sendcount elements per rank; recvbuf holds team_size * sendcount elements. */
mcoll_result mcoll_allgather(const void *sendbuf, void *recvbuf, size_t sendcount, MPI_Datatype datatype,
                             mcoll_comm *comm, struct CUstream_st *stream);
mcoll_result mcoll_barrier(mcoll_comm *comm, struct CUstream_st *stream);

/* API 0.3: gathers, scatters, all-to-all and prefix reductions.
 * Like bcast and allgather, the calls that only move data take any contiguous datatype. Count
 * and displacement arrays have an entry per rank of the communicator, in elements of
 * `datatype`; they are read during the call (a captured graph replays the values it was
 * captured with) and may be freed when it returns. Blocks of a receive buffer must not
 * overlap. Every rank makes every call, whatever its own counts. Arguments that MPI reads on
 * the root only are read on the root only (and may be NULL elsewhere). */

/* recvcounts[q] elements from rank q at recvbuf + displs[q]; sendcount must be
 * recvcounts[rank]. sendbuf MPI_IN_PLACE: this rank's block is already at recvbuf +
 * displs[rank] (sendcount is ignored). */
mcoll_result mcoll_allgatherv(const void *sendbuf, size_t sendcount, void *recvbuf, const size_t recvcounts[],
                              const size_t displs[], MPI_Datatype datatype, mcoll_comm *comm,
                              struct CUstream_st *stream);
/* count elements between every pair of ranks: block q of sendbuf (at q * count) goes to rank q,
 * block q of recvbuf comes from rank q. sendbuf MPI_IN_PLACE: the blocks are sent from recvbuf
 * and replaced by those received. */
mcoll_result mcoll_alltoall(const void *sendbuf, void *recvbuf, size_t count, MPI_Datatype datatype,
                            mcoll_comm *comm, struct CUstream_st *stream);
/* sendcounts[p] elements at sendbuf + sdispls[p] go to rank p; recvcounts[q] elements from rank
 * q land at recvbuf + rdispls[q] (recvcounts[q] on this rank is sendcounts[rank] on rank q).
 * sendbuf MPI_IN_PLACE: sent from recvbuf with recvcounts and rdispls, which then must be
 * symmetric (this rank's recvcounts[q] is rank q's recvcounts[rank]); sendcounts and sdispls
 * are ignored and may be NULL. */
mcoll_result mcoll_alltoallv(const void *sendbuf, const size_t sendcounts[], const size_t sdispls[], void *recvbuf,
                             const size_t recvcounts[], const size_t rdispls[], MPI_Datatype datatype,
                             mcoll_comm *comm, struct CUstream_st *stream);
/* count elements from every rank to root, rank q's at recvbuf + q * count. sendbuf
 * MPI_IN_PLACE on root: root's block is already in place. recvbuf is read on root only. */
mcoll_result mcoll_gather(const void *sendbuf, void *recvbuf, size_t count, MPI_Datatype datatype, int root,
                          mcoll_comm *comm, struct CUstream_st *stream);
/* recvcounts[q] elements from rank q at recvbuf + displs[q] on root; sendcount must be root's
 * recvcounts[rank]. sendbuf MPI_IN_PLACE on root: root's block is already in place (its
 * sendcount is ignored). recvbuf, recvcounts and displs are read on root only. */
mcoll_result mcoll_gatherv(const void *sendbuf, size_t sendcount, void *recvbuf, const size_t recvcounts[],
                           const size_t displs[], MPI_Datatype datatype, int root, mcoll_comm *comm,
                           struct CUstream_st *stream);
/* Block q of root's sendbuf (count elements at q * count) to rank q. recvbuf MPI_IN_PLACE on
 * root: root's block stays where it is. sendbuf is read on root only. */
mcoll_result mcoll_scatter(const void *sendbuf, void *recvbuf, size_t count, MPI_Datatype datatype, int root,
                           mcoll_comm *comm, struct CUstream_st *stream);
/* sendcounts[q] elements at root's sendbuf + displs[q] to rank q, whose recvcount must be
 * that. recvbuf MPI_IN_PLACE on root: root's block stays where it is (its recvcount is
 * ignored). sendbuf, sendcounts and displs are read on root only. */
mcoll_result mcoll_scatterv(const void *sendbuf, const size_t sendcounts[], const size_t displs[], void *recvbuf,
                            size_t recvcount, MPI_Datatype datatype, int root, mcoll_comm *comm,
                            struct CUstream_st *stream);
/* Prefix reductions, on the datatypes and ops of the reductions above: rank r receives the
 * inputs of ranks 0..r combined in rank order (so float results are the same whoever computes
 * them). sendbuf MPI_IN_PLACE: the input is recvbuf. */
mcoll_result mcoll_scan(const void *sendbuf, void *recvbuf, size_t count, MPI_Datatype datatype, MPI_Op op,
                        mcoll_comm *comm, struct CUstream_st *stream);
/* The same over ranks 0..r-1. Rank 0's recvbuf is not written (MPI leaves it undefined). */
mcoll_result mcoll_exscan(const void *sendbuf, void *recvbuf, size_t count, MPI_Datatype datatype, MPI_Op op,
                          mcoll_comm *comm, struct CUstream_st *stream);

/* ---------------------------------------------------------------------------------------------
 * Memory (API 0.4)
 *
 * Collectives read and write user buffers through the communicator's symmetric staging memory.
 * Memory that every rank allocates with mcoll_mem_alloc, or registers with mcoll_mem_register,
 * forms a *window*: every rank maps every other rank's part. A collective of the native API whose
 * buffers lie in windows runs zero-copy: the kernels load from and store to the peers' buffers
 * directly (allreduce, reduce, bcast, reduce_scatter and allgather, on the unicast engine; the
 * other calls, and every call on a communicator whose engine is multicast, take the staged
 * path). Reduce decides on its input alone (at an in-place root: recvbuf, which must lie in the
 * window of the others' inputs); the others' recvbuf may be NULL, and root's may lie anywhere
 * (outside that window root reduces every slice itself, more slowly).
 *
 * The symmetric rule: when one rank passes window memory to a collective, every rank passes
 * memory of the same window (the same collective mcoll_mem_alloc or mcoll_mem_register call) at
 * the same offset from its start, as programs do when every rank passes its own copy of one
 * variable. Each rank then decides alone, and alike, to run zero-copy; breaking the rule gives
 * undefined results. Buffers outside windows have no such rule.
 *
 * The calls that take a communicator are collective over it (every rank calls them, in the same
 * order as its collectives); a refusal is agreed, so every rank returns the same result. Memory
 * must not be freed, deregistered or released while work on it may still run (including CUDA
 * graphs that captured collectives on it); the collective calls below wait for the
 * communicator's work before they unmap anything.
 * ------------------------------------------------------------------------------------------- */

/* Allocate `bytes` of device memory on every rank (the same size on every rank), in symmetric
 * cuMemCreate memory mapped by every peer. *ptr receives this rank's part. Collective.
 * MCOLL_ERR_INVALID_ARG: sizes differ between ranks; MCOLL_ERR_CUDA: allocation or mapping failed. */
mcoll_result mcoll_mem_alloc(mcoll_comm *comm, size_t bytes, void **ptr);
/* Free memory of mcoll_mem_alloc (the pointer it returned). Collective. MCOLL_ERR_INVALID_ARG on
 * every rank when some rank's pointer is not one (a second free included). */
mcoll_result mcoll_mem_free(mcoll_comm *comm, void *ptr);

/* A registration of this communicator: never 0, never reused. */
typedef uint64_t mcoll_mem_handle;

/* Register [ptr, ptr + bytes), device memory of the communicator's GPU, on every rank: each rank
 * maps its peers' buffers once. Collective; ranks may register buffers of different sizes (the
 * window is the smallest). Takes cudaMalloc/cuMemAlloc memory (shared through CUDA IPC) and
 * cuMemCreate memory created with the handle type the communicator shares (POSIX file
 * descriptor, or fabric where mcoll_comm_info says "fabric"). Peers' mappings stay in a
 * registration cache after deregistration (MCOLL_REG_CACHE entries not in use at most) and are
 * reused when the same buffer is registered again; memory freed and allocated again at the same
 * address is recognised by its buffer id and mapped afresh.
 * MCOLL_ERR_INVALID_ARG: host or managed memory, memory of another GPU, a range that does not lie
 * in one allocation; MCOLL_ERR_UNSUPPORTED: device memory peers cannot map (stream-ordered pool
 * memory, cuMemCreate memory without the shared handle type, cudaMalloc memory where the team
 * spans nodes: CUDA IPC stays on one node). Deregister before freeing. */
mcoll_result mcoll_mem_register(mcoll_comm *comm, void *ptr, size_t bytes, mcoll_mem_handle *handle);
/* Collective. MCOLL_ERR_INVALID_ARG on every rank when some rank's handle is not a live
 * registration of this communicator (a second deregistration included). */
mcoll_result mcoll_mem_deregister(mcoll_comm *comm, mcoll_mem_handle handle);

/* Import memory that another API or process exported as an opaque POSIX file descriptor `fd` of
 * an object of `size` bytes, and map `bytes` of it from `offset` as one device buffer of the
 * current thread's device (call cudaSetDevice first). offset and bytes must be aligned as the
 * exporter requires (cuMemCreate memory: its allocation granularity). The fd stays the caller's
 * (CUDA gets a duplicate): close it when convenient. Map one range covering every
 * buffer needed and derive the buffers from *ptr: overlapping imports alias without coherence
 * (the driver requires volatile accesses to them, which the kernels do not make). The buffer is
 * ordinary device memory: any collective takes it (staged). Not collective.
 * MCOLL_ERR_INVALID_ARG: bad range, an fd that is not exportable memory, or an object the
 * driver does not know (cudaErrorInvalidResourceHandle); MCOLL_ERR_NO_DEVICE: no driver or no
 * current context. */
mcoll_result mcoll_mem_import_external(int fd, size_t size, size_t offset, size_t bytes, void **ptr);
/* Unmap the buffer (cudaFree) and destroy the imported object. MCOLL_ERR_INVALID_ARG when `ptr`
 * is not a live import (a second release included). Not collective. */
mcoll_result mcoll_mem_release_external(void *ptr);

/* ---------------------------------------------------------------------------------------------
 * Hierarchical collectives (API 0.5): where their time goes. MPI_* collectives on device buffers
 * of a communicator whose ranks span NVLink domains run as steps inside the domains (the
 * domains' GPU engines) and steps between them (the MPI); see docs/hierarchical.md.
 * ------------------------------------------------------------------------------------------- */
typedef struct {
    long calls;                    /* hierarchical calls made on the communicator by this rank */
    double seconds;                /* their time, whole */
    double between_seconds;        /* of which in the steps between domains: the MPI calls, the
                                      staging of their buffers included; the rest is the steps
                                      inside the domains and the copies */
} mcoll_hier_times_t;

/* This rank's sums for `comm` since its first hierarchical call or the last reset (zeros for a
 * communicator that has made none, or when mcoll is not in front of MPI); then, when `reset` is
 * non-zero, the sums start again. Not collective. MCOLL_ERR_INVALID_ARG for MPI_COMM_NULL or a
 * NULL `times`. */
mcoll_result mcoll_hier_times(MPI_Comm comm, int reset, mcoll_hier_times_t *times);

/* ---------------------------------------------------------------------------------------------
 * 16-bit floating-point datatypes (MPI has none in MPI-3). Valid between MPI_Init and
 * MPI_Finalize when mcoll is in front of MPI; they also work with MPI_Allreduce etc. on host
 * buffers (mcoll supplies the reductions).
 * ------------------------------------------------------------------------------------------- */
extern MPI_Datatype MCOLL_FLOAT16;
extern MPI_Datatype MCOLL_BFLOAT16;

#ifdef __cplusplus
}
#endif
#endif /* MCOLL_H */
