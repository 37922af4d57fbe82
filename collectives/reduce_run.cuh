/* The reductions behind allreduce, reduce, reduce_scatter, scan and exscan: what a call asks
 * for, and the entry points that launch it (reduce_run.cu; reduce_float.cu, reduce_int.cu,
 * reduce_small.cu, reduce_pair.cu by datatype). */
#ifndef MCOLL_REDUCE_RUN_CUH
#define MCOLL_REDUCE_RUN_CUH

#include <stddef.h>
#include "access.cuh"
#include "dtype_table.cuh"
#include "launch.h"
#include "schedule.cuh"

namespace mcoll {

/* sendbuf holds `total` bytes as `nslots` slots of `slot_bytes` (the last ones may be short or
 * empty). Per chunk, every rank copies its slots into its data area, then after a barrier
 * (pipeline.cuh runs these steps of consecutive chunks side by side):
 *   two_shot == 0: reduces slot `red_slot` from every rank into recvbuf;
 *   two_shot == 1: the rank owning slot `red_slot` (none: -1) reduces it and stores the result on
 *                  every rank (on root only when root >= 0), and after a second barrier the
 *                  receiving ranks copy all slots to recvbuf.
 * root >= 0: only root writes recvbuf. The last `tail` bytes of every slot are padding after
 * its last element (reduce_scatter of pairs such as MPI_DOUBLE_INT): never read or written.
 * scan != 0 (unicast layer only): rank r's result combines ranks 0..r (kScanInclusive) or
 * 0..r-1 (kScanExclusive: rank 0 writes nothing), in rank order. One-shot reduces those ranks'
 * slots into recvbuf; two-shot computes every rank's prefix of its slice and stores prefix p
 * into rank p alone, then all copy out.
 * direct != 0 (zero-copy, unicast layer only): no data area; ReduceParams::team's peer_data are
 * every rank's sendbuf and recv_view's every rank's recvbuf. After a barrier, slot red_slot is
 * reduced straight from every rank's sendbuf into every rank's recvbuf (two_shot: allreduce's
 * slices) or into this rank's (reduce_scatter's blocks, recvbuf holding this rank's block only),
 * then a barrier. Direct with root >= 0 (reduce): each slot is reduced by its owner (root_owner)
 * into root's recvbuf alone; root_says is root's word for the others (kRootInPlace,
 * kRootInWindow, and recvbuf's offset in the inputs' window shifted left by 2).
 * to_owner != 0 (unicast layer; allreduce two-shot and reduce_scatter, inputs_by_stores): the
 * inputs move by stores, not loads: each rank stores its part of slot q into input position
 * `rank` of owner q's data area, and the owner reduces its slot from its own memory, so every
 * byte crosses NVLink as a write (pipeline.cuh).
 * results_to_recv != 0 (with to_owner and two_shot; the zero-copy allreduce): the owner stores
 * the reduced slot straight into every rank's recvbuf (ReduceParams::recv_view) instead of every
 * rank's results, and nobody copies out.
 * root_reads_send != 0 (set on root alone; one-shot reduce, root_reads_send()): root copies
 * nothing in and its reduction loads its own input from sendbuf (recvbuf when in place), the
 * peers' from their data areas; kernels that cannot (kReadsInPlace in reduce_kernel.cuh: the
 * multimem layer, 8- and 16-bit integers) ignore it and copy. */
struct ReduceCall {
    const void *send;
    void *recv;
    size_t total;
    size_t slot_bytes;
    size_t tail;
    int nslots;
    int two_shot;
    int red_slot;
    int root;
    int scan;
    int direct;
    int to_owner;
    int results_to_recv;
    int root_reads_send;
    uint64_t root_says;
};

enum { kScanInclusive = 1, kScanExclusive = 2 };

/* A zero-copy reduce's root: its input is its recvbuf; its recvbuf lies in the window of the
 * inputs (else the others cannot store there, and root reduces every slot itself). */
enum : uint64_t { kRootInPlace = 1, kRootInWindow = 2 };

/* The rank that reduces slot k of a zero-copy reduce: slot k < size - 1 is rank
 * (root + 1 + k) % size's; on two ranks the second slot is root's, or the other rank's when
 * root is in place (root does not know where the others' inputs are then). When root's recvbuf
 * lies outside the window, root reduces every slot. */
MCOLL_HD int root_owner(int k, int size, int root, uint64_t says) {
    if (!(says & kRootInWindow)) return root;
    if (k < size - 1) return (root + 1 + k) % size;
    return says & kRootInPlace ? (root + 1) % size : root;
}

/* Everything a reduction kernel gets, by value. */
struct ReduceParams {
    mcoll_dev_team team;
    ReduceCall call;
    Sched sched;
    mcoll_dev_team recv_view; /* direct calls only */
};

/* Launch by datatype: floating point and complex (reduce_float.cu), 32- and 64-bit integers
 * (reduce_int.cu), 8- and 16-bit integers, bytes and bools (reduce_small.cu), MINLOC/MAXLOC
 * pairs (reduce_pair.cu). Each answers MCOLL_LAUNCH_UNSUPPORTED for datatypes not its own. */
int run_reduce_float(mcoll_dtype dtype, mcoll_op op, const ReduceParams &p, Layer layer, void *stream);
int run_reduce_int(mcoll_dtype dtype, mcoll_op op, const ReduceParams &p, Layer layer, void *stream);
int run_reduce_small(mcoll_dtype dtype, mcoll_op op, const ReduceParams &p, Layer layer, void *stream);
int run_reduce_pair(mcoll_dtype dtype, mcoll_op op, const ReduceParams &p, Layer layer, void *stream);

/* The call for `bytes` of data reduced to every rank (root < 0) or to root: one-shot up to the
 * team's oneshot_max, two-shot above. Allreduce: one 16-byte aligned slice per rank. Reduce:
 * one per non-root rank, slice q reduced by rank (root + 1 + q) % size, so that root's port
 * carries the message once each way (its inputs out, the reduced slices in) and root reduces
 * nothing. A reduce on two ranks is one-shot at every size: root's port takes the message in
 * once either way, and root reducing it itself spares its inputs' trip out and the copy of
 * the results (root's memory moves 2S instead of 6S: it reads its input in place,
 * root_reads_send). */
MCOLL_HD bool reduce_one_shot(const mcoll_dev_team *t, size_t bytes, int root) {
    return bytes <= t->oneshot_max || t->size == 1 || (root >= 0 && t->size == 2);
}

inline ReduceCall reduce_call(const mcoll_dev_team *t, const void *send, void *recv, size_t bytes,
                              int root) {
    ReduceCall c;
    c.send = send;
    c.recv = recv;
    c.total = bytes;
    c.tail = 0;
    c.root = root;
    c.scan = 0;
    c.direct = 0;
    c.to_owner = 0;
    c.results_to_recv = 0;
    c.root_reads_send = 0;
    c.root_says = 0;
    if (reduce_one_shot(t, bytes, root)) {
        c.slot_bytes = bytes;
        c.nslots = 1;
        c.two_shot = 0;
        c.red_slot = 0;
    } else {
        const int slices = root >= 0 ? t->size - 1 : t->size;
        c.slot_bytes = slice16(bytes, (size_t)slices);
        c.nslots = slices;
        c.two_shot = 1;
        c.red_slot = root < 0 ? t->rank : t->rank == root ? -1 : (t->rank - root - 1 + t->size) % t->size;
    }
    return c;
}

/* Reduce-scatter: recvcount elements of dtype per rank, rank r reducing block r. */
inline ReduceCall reduce_scatter_call(const mcoll_dev_team *t, const void *send, void *recv, size_t recvcount,
                                      mcoll_dtype dtype) {
    ReduceCall c;
    c.send = send;
    c.recv = recv;
    /* Each rank's block starts at a multiple of the element size; the padding after the last
     * element of a block (pairs such as MPI_DOUBLE_INT) is not part of it. */
    c.slot_bytes = recvcount * dtype_size(dtype);
    c.tail = c.slot_bytes - dtype_span(dtype, recvcount);
    c.nslots = t->size;
    c.total = c.slot_bytes * (size_t)t->size - c.tail;
    c.two_shot = 0;
    c.red_slot = t->rank;
    c.root = -1;
    c.scan = 0;
    c.direct = 0;
    c.to_owner = 0;
    c.results_to_recv = 0;
    c.root_reads_send = 0;
    c.root_says = 0;
    return c;
}

/* Inputs by stores (ReduceCall::to_owner) fit `c` where the team agreed to them
 * (MCOLL_STORE_INPUTS) and the call has one slot per rank, owned by the rank of its index:
 * two-shot allreduce and reduce_scatter. Callers also ask the access layer (stores_inputs_pay). */
MCOLL_HD bool inputs_by_stores(const mcoll_dev_team *t, const ReduceCall &c) {
    return t->store_inputs && !c.scan && c.root < 0 && c.nslots == t->size && c.red_slot == t->rank;
}

/* Root of a one-shot reduce can read its own input where it lies (ReduceCall::root_reads_send):
 * only root reduces, so no rank ever reads root's data area in that call, and root's memory moves
 * 2S instead of 4S. A sendbuf that is not 16-byte aligned keeps the copy: its loads would take
 * ld_user's out-of-line path, a call per pack among the reduction's batches of loads, around
 * which ptxas spilled the accumulators. */
MCOLL_HD bool root_reads_send(const mcoll_dev_team *t, const ReduceCall &c) {
    return c.root >= 0 && c.root == t->rank && !c.two_shot && !c.scan && !c.direct && !c.to_owner &&
           ((uintptr_t)c.send & 15) == 0;
}

/* Validates dtype and op, picks the access layer and launches. */
int run_reduce(const mcoll_dev_team *team, mcoll_access access, const ReduceCall &call,
               mcoll_dtype dtype, mcoll_op op, void *stream);
/* The same for a direct call (call.direct set): `send` and `recv` as ReduceCall describes. */
int run_reduce_direct(const mcoll_dev_team *send, const mcoll_dev_team *recv, const ReduceCall &call,
                      mcoll_dtype dtype, mcoll_op op, void *stream);

} // namespace mcoll
#endif /* MCOLL_REDUCE_RUN_CUH */
