/* Plain-C interface between the host library and the collective kernels.
 *
 * The host builds one mcoll_dev_team per communicator (pointers into symmetric memory) and
 * calls one launcher per collective. Templates and the datatype x op switch stay inside the .cu
 * files. Every launcher enqueues on `stream`, returns at once, and is safe to capture in a CUDA
 * graph: nothing it passes to the kernel changes between calls (barrier epochs live in device
 * memory). */
#ifndef MCOLL_LAUNCH_H
#define MCOLL_LAUNCH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MCOLL_MAX_RANKS 32     /* team size limit (one NVLink domain node) */
#define MCOLL_MAX_BLOCKS 64    /* grid size limit; one signal slot row per block */

/* The kernels' datatypes. CF32/CF64: float and double complex. The pairs of MINLOC and MAXLOC
 * are named value_index and laid out as the C structs {value; int index;}, padding included:
 * F32_I32 (MPI_FLOAT_INT), F64_I32 (MPI_DOUBLE_INT), I64_I32 (MPI_LONG_INT with 64-bit long),
 * I32_I32 (MPI_2INT), I16_I32 (MPI_SHORT_INT). BYTE takes only bitwise ops, BOOL only logical
 * ones. collectives/dtype_table.cuh says which ops each one takes. */
typedef enum {
    MCOLL_F32 = 0, MCOLL_F64, MCOLL_F16, MCOLL_BF16, MCOLL_I32, MCOLL_U32, MCOLL_I64, MCOLL_U64,
    MCOLL_I8, MCOLL_U8, MCOLL_I16, MCOLL_U16, MCOLL_BYTE, MCOLL_BOOL, MCOLL_CF32, MCOLL_CF64,
    MCOLL_F32_I32, MCOLL_F64_I32, MCOLL_I64_I32, MCOLL_I32_I32, MCOLL_I16_I32,
    MCOLL_NUM_DTYPES
} mcoll_dtype;

typedef enum {
    MCOLL_SUM = 0, MCOLL_PROD, MCOLL_MIN, MCOLL_MAX, MCOLL_BAND, MCOLL_BOR, MCOLL_BXOR,
    MCOLL_LAND, MCOLL_LOR, MCOLL_LXOR, MCOLL_MINLOC, MCOLL_MAXLOC,
    MCOLL_NUM_OPS
} mcoll_op;

/* Which access layer the kernels use for the operations on symmetric memory. */
typedef enum { MCOLL_ACCESS_UNICAST = 0, MCOLL_ACCESS_MULTIMEM = 1 } mcoll_access;

/* Signal pad layout, identical on every rank, at the start of each rank's symmetric buffer:
 * uint64 counters [MCOLL_MAX_BLOCKS][MCOLL_MAX_RANKS]; counter [b][src] counts arrivals of
 * block b of rank src. Counters only grow. */
#define MCOLL_SIGNAL_BYTES ((size_t)MCOLL_MAX_BLOCKS * MCOLL_MAX_RANKS * sizeof(uint64_t))
/* The low-latency area (collectives/ll.cuh) sits between the signal pad and the data area: a
 * control block, then [2 parities][team size] slots, one per sending rank. It is written by the
 * LL protocol only, so a flag found there was written by it. */
#define MCOLL_LL_OFFSET ((size_t)64 << 10)
#define MCOLL_LL_CTRL_BYTES ((size_t)4096)
/* After the counters, a word per block in which a zero-copy reduce's root tells the others where
 * its input and recvbuf are (reduce_kernel.cuh): written by root's block b before its first
 * barrier of the call, read by the others' block b before their second, so never rewritten
 * while someone may still read it. */
#define MCOLL_ROOT_WORDS_OFFSET MCOLL_SIGNAL_BYTES
/* The data area starts here, aligned so that 16-byte vectors and multicast granules fit. */
#define MCOLL_DATA_OFFSET ((size_t)1 << 20)

/* Bytes of one LL slot, and the payload it carries (each 16-byte store carries 8 bytes of
 * data and two flags), for a team of `size` ranks. */
#ifdef __CUDACC__
#define MCOLL_LL_HD __host__ __device__
#else
#define MCOLL_LL_HD
#endif
static inline MCOLL_LL_HD size_t mcoll_ll_slot_bytes(int size) {
    return size > 0 ? ((MCOLL_DATA_OFFSET - MCOLL_LL_OFFSET - MCOLL_LL_CTRL_BYTES) / (2 * (size_t)size)) & ~(size_t)31
                    : 0;
}
static inline MCOLL_LL_HD size_t mcoll_ll_capacity(int size) { return mcoll_ll_slot_bytes(size) / 2; }

typedef struct mcoll_dev_team {
    int rank;                                  /* this rank in the team */
    int size;                                  /* ranks in the team */
    size_t data_bytes;                         /* bytes of each rank's data area */
    void *peer_data[MCOLL_MAX_RANKS];          /* unicast view of each rank's data area */
    uint64_t *peer_signal[MCOLL_MAX_RANKS];    /* unicast view of each rank's signal pad */
    void *mc_data;                             /* multicast view of the data area, or NULL */
    uint64_t *mc_signal;                       /* multicast view of the signal pads, or NULL */
    size_t mc_stride;                          /* 0 with multicast. Tests' emulation of it: rank p's
                                                  aliased memory at mc_data/mc_signal + p * mc_stride */
    unsigned mc_turn;                          /* emulation: moves the rank it starts combining at */
    uint64_t *epochs;                          /* local device memory: [MCOLL_MAX_BLOCKS] epochs */
    int num_sms;                               /* multiprocessors of this GPU */
    int max_blocks;                            /* grid limit chosen by the host (<= MCOLL_MAX_BLOCKS) */
    int direct_blocks;                         /* the wide grid's limit (zero-copy kernels, reductions
                                                  by stores; <= MCOLL_MAX_BLOCKS; 0: max_blocks); the
                                                  data area is cut for the larger of the two */
    unsigned poll_pause_ns;                    /* MCOLL_POLL_PAUSE_NS: a barrier wait's pause before each
                                                  poll after the first (collectives/barrier.cuh) */
    int store_inputs;                          /* agreed MCOLL_STORE_INPUTS: two-shot allreduce and
                                                  reduce_scatter store each slot's inputs into its
                                                  owner's data area (collectives/pipeline.cuh) */
    size_t oneshot_max;                        /* allreduce/reduce bytes up to which one-shot runs,
                                                  bcast bytes up to which root pushes to all */
    const volatile uint32_t *abort_flag;       /* host-mapped; nonzero: every wait gives up (the host
                                                  saw a peer die or MCOLL_TIMEOUT pass) */
    size_t ll_max;                             /* bytes up to which calls take the LL protocol
                                                  (agreed; at most mcoll_ll_capacity(size)) */
    int pdl;                                   /* launch LL kernels with programmatic dependent
                                                  launch (MCOLL_PDL, where mcoll_launch_pdl_available) */
    uint32_t *done_count;                      /* local device memory, 0 between launches: blocks of
                                                  the launch that have passed their end (completion.cuh) */
    uint64_t *done_word;                       /* the launch's completion word: mapped pinned host
                                                  memory, or NULL (no word: native calls, graphs) */
    uint64_t done_value;                       /* what the launch's last block stores there */
} mcoll_dev_team;

/* Launch status codes (0 = launched). */
enum { MCOLL_LAUNCH_OK = 0, MCOLL_LAUNCH_UNSUPPORTED = 1, MCOLL_LAUNCH_CUDA_ERROR = 2 };

/* 1 when the kernels reduce `dtype` with `op` (collectives/dtype_table.cuh), else 0. */
int mcoll_reduce_supported(mcoll_dtype dtype, mcoll_op op);
/* 1 when multimem.ld_reduce can do `op` on `dtype`; 0 means that call runs on the unicast layer. */
int mcoll_multimem_supports(mcoll_dtype dtype, mcoll_op op);

/* Element size in bytes: the MPI extent (pairs include their padding); 0 for no datatype. */
size_t mcoll_dtype_size(mcoll_dtype dtype);
/* Bytes that `count` elements span: count * size less the padding after the last element's
 * data (MPI's (count - 1) * extent + true extent). The kernels read and write no more. */
size_t mcoll_dtype_span(mcoll_dtype dtype, size_t count);

/* inout = in op inout, element by element, on one GPU (no team; MPI_Reduce_local's order). count
 * in elements; in and inout may have any alignment. */
int mcoll_launch_reduce_local(const void *in, void *inout, size_t count, mcoll_dtype dtype, mcoll_op op,
                              void *stream);

/* sendbuf may equal recvbuf (in place). count in elements. */
int mcoll_launch_allreduce(const mcoll_dev_team *team, mcoll_access access, const void *sendbuf,
                           void *recvbuf, size_t count, mcoll_dtype dtype, mcoll_op op, void *stream);
int mcoll_launch_reduce(const mcoll_dev_team *team, mcoll_access access, const void *sendbuf,
                        void *recvbuf, size_t count, mcoll_dtype dtype, mcoll_op op, int root,
                        void *stream);
/* Bytes are bytes: broadcast and allgather need no datatype. */
int mcoll_launch_bcast(const mcoll_dev_team *team, mcoll_access access, void *buf, size_t bytes,
                       int root, void *stream);
/* recvcount elements per rank; sendbuf holds size * recvcount. */
int mcoll_launch_reduce_scatter(const mcoll_dev_team *team, mcoll_access access, const void *sendbuf,
                                void *recvbuf, size_t recvcount, mcoll_dtype dtype, mcoll_op op,
                                void *stream);
/* sendbytes per rank; recvbuf holds size * sendbytes. sendbuf may be recvbuf + rank * sendbytes. */
int mcoll_launch_allgather(const mcoll_dev_team *team, mcoll_access access, const void *sendbuf,
                           void *recvbuf, size_t sendbytes, void *stream);
int mcoll_launch_barrier(const mcoll_dev_team *team, mcoll_access access, void *stream);

/* The low-latency protocol (collectives/ll.cuh): one block, flags carried with the data, no
 * barrier and no copy through the data area. A call's payload (`bytes`: the whole vector for
 * allreduce, reduce and bcast, one rank's block for reduce_scatter and allgather) is at most
 * team->ll_max. Every rank of a call uses the LL protocol or none does; whether a rank runs it
 * in a launched kernel or in its resident kernel does not matter to the others. */
typedef enum {
    MCOLL_LL_ALLREDUCE = 0, MCOLL_LL_REDUCE, MCOLL_LL_REDUCE_SCATTER, MCOLL_LL_ALLGATHER, MCOLL_LL_BCAST,
    MCOLL_LL_BARRIER,
    MCOLL_LL_EXIT /* resident kernel only: end after the calls before this one */
} mcoll_ll_kind;

typedef struct mcoll_ll_call {
    int32_t kind;        /* mcoll_ll_kind */
    int32_t dtype, op;   /* reductions: the kernels' datatype and op */
    int32_t root;        /* reduce, bcast */
    const void *send;    /* allgather in place: recv + rank * bytes; bcast: the buffer */
    void *recv;
    uint64_t bytes;      /* payload bytes (for reductions the span: padding after the last
                            element not included) */
    uint64_t reserved;   /* EXIT: the kernel generation it is meant for (resident.h); 48 bytes: the
                            resident kernel reads a call in three 16-byte loads */
} mcoll_ll_call;

/* 1 when the LL protocol can run `call` on this team (kind, size, datatype and op). */
int mcoll_ll_supported(const mcoll_dev_team *team, const mcoll_ll_call *call);
int mcoll_launch_ll(const mcoll_dev_team *team, const mcoll_ll_call *call, void *stream);
/* 1 when the current device runs this build's LL kernel as sm_90 code or newer, whose first
 * instructions wait for the kernels before it (collectives/ptx.cuh, griddep_wait): only then may
 * it be launched with programmatic dependent launch. */
int mcoll_launch_pdl_available(void);

/* The resident kernel's command ring, in pinned host memory mapped into the device: the host
 * writes calls and `posted`; the kernel runs them in order, writes `done` after each (its
 * results visible to the host and the device by then) and `exited` = its generation when it
 * ends, which it does after an EXIT call, after `idle_ns` without a call, or on the abort flag.
 * Before an idle end it writes `closing` = its generation and looks at `posted` once more; the
 * host, after each post, looks at `closing` and `exited` (both sides with a full fence between):
 * either the kernel sees the call and runs it, or the host sees the kernel end and starts
 * another, never neither (ring.c, settle). `closing` goes back to 0 when the kernel goes on.
 * `posted` is the count of calls posted times 2, plus 1 when the newest call is the same as the
 * one before it: a kernel that ran that one still holds it and need not read the slot (each
 * read of host memory is a PCIe round trip; mcoll-floors, ring echo and echo+read). */
#define MCOLL_RING_SLOTS 64
#define MCOLL_RING_SAME 1u
typedef struct mcoll_ring {
    volatile uint64_t posted;    /* host: calls posted so far x 2 (+ MCOLL_RING_SAME) */
    volatile uint64_t pad0[7];
    volatile uint64_t done;      /* device: calls finished so far */
    volatile uint64_t exited;    /* device: generation of the kernel that ended last */
    volatile uint64_t closing;   /* device: generation of a kernel deciding to end idle, else 0 */
    volatile uint64_t pad1[5];
    mcoll_ll_call call[MCOLL_RING_SLOTS];
} mcoll_ring;

/* `ring` is the device's address of the ring. */
int mcoll_launch_resident(const mcoll_dev_team *team, mcoll_ring *ring, uint64_t generation, uint64_t idle_ns,
                          void *stream);

/* Byte collectives with a block per rank (collectives/exchange_run.cuh). Lengths and
 * displacements are bytes, one entry per rank of the team; the arrays are read during the call
 * (a captured graph replays the values it was captured with). Blocks of the receive buffer must
 * not overlap. Calls whose block sizes every rank knows (the fixed-count ones, allgatherv)
 * launch nothing when all blocks are empty; gatherv, scatterv and alltoallv, whose sizes only
 * some ranks know, always launch: every rank makes the call, whatever its own counts. */

/* recvbytes[q] of rank q at recvbuf + displs[q]; in place when sendbuf is recvbuf + displs[rank]. */
int mcoll_launch_allgatherv(const mcoll_dev_team *team, mcoll_access access, const void *sendbuf,
                            size_t sendbytes, void *recvbuf, const size_t recvbytes[], const size_t displs[],
                            void *stream);
/* Block q of `bytes` at recvbuf + q * bytes on root; in place when sendbuf is that block on root.
 * recvbuf is not touched on the other ranks. */
int mcoll_launch_gather(const mcoll_dev_team *team, mcoll_access access, const void *sendbuf, void *recvbuf,
                        size_t bytes, int root, void *stream);
/* recvbytes, displs and recvbuf are read on root only. */
int mcoll_launch_gatherv(const mcoll_dev_team *team, mcoll_access access, const void *sendbuf, size_t sendbytes,
                         void *recvbuf, const size_t recvbytes[], const size_t displs[], int root, void *stream);
/* Block q of `bytes` at sendbuf + q * bytes on root to rank q; root's recvbuf may be its own
 * block of sendbuf (in place). */
int mcoll_launch_scatter(const mcoll_dev_team *team, mcoll_access access, const void *sendbuf, void *recvbuf,
                         size_t bytes, int root, void *stream);
/* sendbytes, displs and sendbuf are read on root only. */
int mcoll_launch_scatterv(const mcoll_dev_team *team, mcoll_access access, const void *sendbuf,
                          const size_t sendbytes[], const size_t displs[], void *recvbuf, size_t recvbytes, int root,
                          void *stream);
/* Block q of `bytes` of sendbuf to rank q, block q of recvbuf from rank q. In place when
 * sendbuf is recvbuf. */
int mcoll_launch_alltoall(const mcoll_dev_team *team, mcoll_access access, const void *sendbuf, void *recvbuf,
                          size_t bytes, void *stream);
/* In place when sendbuf is recvbuf and the send lengths and displacements are the receive ones
 * (which MPI then requires to match between each pair of ranks). */
int mcoll_launch_alltoallv(const mcoll_dev_team *team, mcoll_access access, const void *sendbuf,
                           const size_t sendbytes[], const size_t sdispls[], void *recvbuf, const size_t recvbytes[],
                           const size_t rdispls[], void *stream);

/* Inclusive (exclusive = 0) or exclusive prefix reduction: rank r receives the reduction of the
 * inputs of ranks 0..r (0..r-1; rank 0's recvbuf is not touched). count in elements; sendbuf
 * may equal recvbuf. Always on the unicast layer: multimem.ld_reduce reduces every rank. */
int mcoll_launch_scan(const mcoll_dev_team *team, mcoll_access access, const void *sendbuf, void *recvbuf,
                      size_t count, mcoll_dtype dtype, mcoll_op op, int exclusive, void *stream);

/* Zero-copy (the buffers lie in memory every rank maps, src/mem/): `send`, `recv` and `buf` are
 * the team with peer_data[q] replaced by rank q's buffer of the call as mapped here, so the
 * kernels load from and store to the user's buffers directly, with no staging area. Unicast
 * layer only. Per block: a barrier (every rank's buffers are ready), the transfer, a barrier
 * (no rank touches another's buffers after its kernel ends). The host guarantees what the
 * kernels need: every rank decides alike to call these; buffers read with 16-byte loads
 * (allreduce's and reduce_scatter's send buffers; not reduce's) are 16-byte aligned on every
 * rank and mapped up to their size rounded up to 16; reduce_scatter's recvcount * element size is a multiple
 * of 16 and its recvbuf does not overlap its sendbuf. Other buffers: any alignment. */

/* Rank r reduces slice r of every sendbuf and stores it into every recvbuf (in place allowed). */
int mcoll_launch_allreduce_direct(const mcoll_dev_team *send, const mcoll_dev_team *recv, size_t count,
                                  mcoll_dtype dtype, mcoll_op op, void *stream);
/* Rank r reduces block r of every sendbuf into its own recvbuf (recv->peer_data[rank]; the
 * other entries are not used). */
int mcoll_launch_reduce_scatter_direct(const mcoll_dev_team *send, const mcoll_dev_team *recv, size_t recvcount,
                                       mcoll_dtype dtype, mcoll_op op, void *stream);
/* Reduce to root. send->peer_data[q]: rank q's input (sendbuf) at the same offset of one window
 * on every rank, except that an in-place root's input is its recvbuf, which the others learn in
 * the kernel. recv->peer_data[root]: on root its recvbuf, elsewhere the start of root's part of
 * that window (the others' recvbufs are never touched). On root: in_place says its recvbuf is
 * its input, root_recv_at is recvbuf's offset in the inputs' window, or (size_t)-1 when it lies
 * elsewhere (root then reduces every slice itself); other ranks' values are not read. A slice
 * per non-root rank (two ranks: one for each), reduced by its owner from every rank's input
 * and stored into root's recvbuf alone, so root's port carries each byte once. Any alignment. */
int mcoll_launch_reduce_direct(const mcoll_dev_team *send, const mcoll_dev_team *recv, size_t count,
                               mcoll_dtype dtype, mcoll_op op, int root, int in_place, size_t root_recv_at,
                               void *stream);
/* A slice per non-root rank (two ranks: one for each, root storing its half): each loads its
 * slice of root's buffer and stores it into every non-root rank's, so root's port carries the
 * message once and nothing is stored back to root. */
int mcoll_launch_bcast_direct(const mcoll_dev_team *buf, size_t bytes, int root, void *stream);
/* Each rank stores its sendbuf (local, any memory) into block `rank` of every rank's recvbuf;
 * in place when sendbuf is its own block. */
int mcoll_launch_allgather_direct(const mcoll_dev_team *recv, const void *sendbuf, size_t sendbytes, void *stream);

/* Text of the last CUDA error a launcher saw (static storage). */
const char *mcoll_launch_error(void);

/* The completion word (collectives/completion.cuh): every launched kernel but the resident one
 * ends by storing team->done_value into team->done_word, where that is set, once all its blocks
 * are done. A launcher that enqueued a kernel carrying a word calls mcoll_launch_word_sent (so
 * do tests' stand-ins for launchers); mcoll_launch_word_taken gives the value the calling
 * thread's latest such launch carries, 0 for none since the last time it was asked. */
void mcoll_launch_word_sent(const mcoll_dev_team *team);
uint64_t mcoll_launch_word_taken(void);

/* The library's kernel modules (one per .cu file that defines kernels), each named by one of its
 * kernels: *anchors gets the list, the count is returned. mcoll_kernel_function gives an anchor's
 * CUfunction in the current context (1), or 0 where the runtime has none (no GPU). The team
 * loads every function of every module with them before its first call (src/team/kernels.c). */
int mcoll_kernel_modules(const void *const **anchors);
int mcoll_kernel_function(const void *anchor, void **function);

#ifdef __cplusplus
}
#endif
#endif /* MCOLL_LAUNCH_H */
