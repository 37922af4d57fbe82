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
 * empty). Per chunk, every rank copies its slots into its data area, then after a barrier:
 *   two_shot == 0: reduces slot `red_slot` from every rank into recvbuf;
 *   two_shot == 1: reduces slot `rank`, stores the result on every rank (on root only when
 *                  root >= 0), and after a second barrier copies all slots to recvbuf.
 * root >= 0: only root writes recvbuf. The last `tail` bytes of every slot are padding after
 * its last element (reduce_scatter of pairs such as MPI_DOUBLE_INT): never read or written.
 * scan != 0 (unicast layer only): rank r's result combines ranks 0..r (kScanInclusive) or
 * 0..r-1 (kScanExclusive: rank 0 writes nothing), in rank order. One-shot reduces those ranks'
 * slots into recvbuf; two-shot computes every rank's prefix of its slice and stores prefix p
 * into rank p alone, then all copy out. */
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
};

enum { kScanInclusive = 1, kScanExclusive = 2 };

/* Everything a reduction kernel gets, by value. */
struct ReduceParams {
    mcoll_dev_team team;
    ReduceCall call;
    Sched sched;
};

/* Launch by datatype: floating point and complex (reduce_float.cu), 32- and 64-bit integers
 * (reduce_int.cu), 8- and 16-bit integers, bytes and bools (reduce_small.cu), MINLOC/MAXLOC
 * pairs (reduce_pair.cu). Each answers MCOLL_LAUNCH_UNSUPPORTED for datatypes not its own. */
int run_reduce_float(mcoll_dtype dtype, mcoll_op op, const ReduceParams &p, Layer layer, void *stream);
int run_reduce_int(mcoll_dtype dtype, mcoll_op op, const ReduceParams &p, Layer layer, void *stream);
int run_reduce_small(mcoll_dtype dtype, mcoll_op op, const ReduceParams &p, Layer layer, void *stream);
int run_reduce_pair(mcoll_dtype dtype, mcoll_op op, const ReduceParams &p, Layer layer, void *stream);

/* The call for `bytes` of data reduced to every rank (root < 0) or to root: one-shot up to the
 * team's oneshot_max, two-shot (one 16-byte aligned slice per rank) above. */
inline ReduceCall reduce_call(const mcoll_dev_team *t, const void *send, void *recv, size_t bytes,
                              int root) {
    ReduceCall c;
    c.send = send;
    c.recv = recv;
    c.total = bytes;
    c.tail = 0;
    c.root = root;
    c.scan = 0;
    if (bytes <= t->oneshot_max || t->size == 1) {
        c.slot_bytes = bytes;
        c.nslots = 1;
        c.two_shot = 0;
        c.red_slot = 0;
    } else {
        const size_t n = (size_t)t->size;
        c.slot_bytes = ((bytes + n - 1) / n + 15) & ~(size_t)15;
        c.nslots = t->size;
        c.two_shot = 1;
        c.red_slot = t->rank;
    }
    return c;
}

/* Validates dtype and op, picks the access layer and launches. */
int run_reduce(const mcoll_dev_team *team, mcoll_access access, const ReduceCall &call,
               mcoll_dtype dtype, mcoll_op op, void *stream);

} // namespace mcoll
#endif /* MCOLL_REDUCE_RUN_CUH */
