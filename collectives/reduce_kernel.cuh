/* The reduction kernel (one-shot, two-shot, reduce-scatter; the prefixes of scan and exscan),
 * written once over the access layer, and the templates that launch it for one datatype. Included by reduce_float.cu,
 * reduce_int.cu, reduce_small.cu and reduce_pair.cu, which split the datatypes so that they
 * build in parallel. */
#ifndef MCOLL_REDUCE_KERNEL_CUH
#define MCOLL_REDUCE_KERNEL_CUH

#include <type_traits>
#include "access.cuh"
#include "barrier.cuh"
#include "copy.cuh"
#include "launch_common.cuh"
#include "multimem_table.cuh"
#include "reduce_ops.cuh"
#include "reduce_run.cuh"
#include "schedule.cuh"

namespace mcoll {

/* Bytes of slot q inside [off, off + len), without the padding at the end of the slot. */
__device__ __forceinline__ size_t slot_part(const ReduceCall &c, int q, size_t off, size_t len) {
    const size_t n = slot_part(c.total, c.slot_bytes, q, off, len), data = c.slot_bytes - c.tail;
    if (off >= data) return 0;
    return n < data - off ? n : data - off;
}

/* Peers a scan loads before combining them: fewer than the unicast layer's kBatch, because a
 * scan also narrows after every peer; with 8, kernels of the 8-bit, complex and pair kinds
 * spill registers. */
constexpr int kScanBatch = 4;

/* A scan's step between its barriers (unicast loads and stores; see ReduceCall). One-shot:
 * this rank's prefix of `n` bytes at data-area offset `src` into `user`. Two-shot: every rank's
 * prefix of this rank's slice at `src`, prefix p stored at `shared` in rank p. */
template <class K>
__device__ __forceinline__ void scan_step(const mcoll_dev_team &t, const ReduceCall &c, size_t src, size_t shared,
                                          char *user, size_t n, bool receives) {
    const bool exclusive = c.scan == kScanExclusive;
    if (!c.two_shot) {
        if (!receives) return;
        const int count = exclusive ? t.rank : t.rank + 1;
        for_packs<Unicast::kUnroll>(
            packs_of(n),
            [&](unsigned i) {
                return reduce_first<K, kScanBatch>(count, [&](int p) {
                    return ld_global_v4((const char *)t.peer_data[p] + src + (size_t)i * 16);
                });
            },
            [&](unsigned i, uint4 v) { st_user(user, n, i, v); });
        return;
    }
    for (unsigned i = threadIdx.x; i < packs_of(n); i += kThreads)
        scan_ranks<K, kScanBatch>(
            t.size, exclusive,
            [&](int p) { return ld_global_v4((const char *)t.peer_data[p] + src + (size_t)i * 16); },
            [&](int p, uint4 v) { st_global_v4((char *)t.peer_data[p] + shared + (size_t)i * 16, v); });
}

/* Scan: the scan kernels (unicast only), instantiated apart so that the other reductions keep
 * their registers. */
template <class A, class K, bool Scan>
__global__ void __launch_bounds__(kThreads, 1) reduce_kernel(const __grid_constant__ ReduceParams p) {
    static_assert(!Scan || !A::kMultimem, "prefixes have no multimem form");
    const mcoll_dev_team &t = p.team;
    const ReduceCall &c = p.call;
    const Sched &s = p.sched;
    const int b = blockIdx.x;
    char *own = (char *)t.peer_data[t.rank];
    const size_t region = (size_t)b * s.region;
    const size_t lo = (size_t)b * s.span;
    const size_t hi = lo + s.span < s.slot_bytes ? lo + s.span : s.slot_bytes;
    const bool receives = Scan ? !(c.scan == kScanExclusive && t.rank == 0) : (c.root < 0 || c.root == t.rank);
    uint64_t epoch = t.epochs[b];

    for (size_t off = lo; off < hi; off += s.chunk) {
        const size_t len = hi - off < s.chunk ? hi - off : s.chunk;
        const size_t in = region + ((epoch + 1) & 1) * s.half;
        for (int q = 0; q < s.nslots; q++)
            copy_in(own + in + q * s.chunk, (const char *)c.send + q * c.slot_bytes + off,
                    slot_part(c, q, off, len));
        block_barrier<A>(t, epoch);

        /* One-shot and reduce-scatter: reduce slot red_slot into recvbuf. Two-shot: reduce my
         * slice and share it through the other half (with every rank, or with root only). */
        const int slot = c.two_shot ? t.rank : c.red_slot;
        const size_t src = in + slot * s.chunk;
        const size_t n = slot_part(c, slot, off, len);
        const size_t out = region + ((epoch + 1) & 1) * s.half;
        const size_t shared = out + slot * s.chunk;
        char *user = (char *)c.recv + off;
        char *root_area = c.root >= 0 ? (char *)t.peer_data[c.root] : nullptr;
        if constexpr (Scan) {
            scan_step<K>(t, c, src, shared, user, n, receives);
        } else if (c.two_shot || receives)
            for_packs<A::kUnroll>(
                packs_of(n),
                [&](unsigned i) { return A::template ld_reduce<K>(t, src + (size_t)i * 16); },
                [&](unsigned i, uint4 v) {
                    if (!c.two_shot) st_user(user, n, i, v);
                    else if (root_area) st_global_v4(root_area + shared + (size_t)i * 16, v);
                    else A::st(t, shared + (size_t)i * 16, v);
                });
        if (!c.two_shot) continue;

        block_barrier<A>(t, epoch);
        if (receives)
            for (int q = 0; q < s.nslots; q++)
                copy_out((char *)c.recv + q * c.slot_bytes + off, own + out + q * s.chunk,
                         slot_part(c, q, off, len));
    }
    if (threadIdx.x == 0) t.epochs[b] = epoch;
}

/* Zero-copy (ReduceCall::direct): this rank's slot, reduced from every rank's sendbuf, stored
 * into every rank's recvbuf (two_shot) or into its own, between two barriers. No data area is
 * used, so the halves' rule of the staged kernels is untouched (the barriers only advance the
 * epochs). Block b takes bytes [b * span, (b + 1) * span) of the slot. */
template <class K>
__global__ void __launch_bounds__(kThreads, 1) direct_reduce_kernel(const __grid_constant__ ReduceParams p) {
    const mcoll_dev_team &t = p.team;
    const ReduceCall &c = p.call;
    between_barriers(t, [&] {
        const size_t data = slot_part(c, c.red_slot, 0, c.slot_bytes);
        const size_t lo = (size_t)blockIdx.x * p.sched.span;
        if (lo >= data) return;
        const size_t n = data - lo < p.sched.span ? data - lo : p.sched.span;
        const size_t at = (size_t)c.red_slot * c.slot_bytes + lo; /* in every sendbuf */
        for_packs<Unicast::kUnroll>(
            packs_of(n), [&](unsigned i) { return Unicast::ld_reduce<K>(t, at + (size_t)i * 16); },
            [&](unsigned i, uint4 v) {
                if (!c.two_shot) {
                    st_user((char *)p.recv_view.peer_data[t.rank] + lo, n, i, v);
                    return;
                }
                for (int k = 0; k < t.size; k++) {
                    const int q = (t.rank + k) % t.size;
                    st_user((char *)p.recv_view.peer_data[q] + at, n, i, v);
                }
            });
    });
}

template <class K> int launch_direct(const ReduceParams &p, void *stream) {
    direct_reduce_kernel<K><<<p.sched.blocks, kThreads, 0, (cudaStream_t)stream>>>(p);
    return check_launch();
}

template <class A, class K, bool Scan = false> int launch(const ReduceParams &p, void *stream) {
    reduce_kernel<A, K, Scan><<<p.sched.blocks, kThreads, 0, (cudaStream_t)stream>>>(p);
    return check_launch();
}

template <mcoll_dtype D, mcoll_op O> int run(const ReduceParams &p, Layer layer, void *stream) {
    using K = typename KindOf<D, O>::type;
    if constexpr (multimem_width(D, O) != 0)
        static_assert(sizeof(typename MultimemForm<K>::word) == multimem_width(D, O),
                      "the multimem layer's request for this pair is not as wide as multimem_table.cuh says");
    if (p.call.direct) return launch_direct<K>(p, stream);
    if (p.call.scan) return launch<Unicast, K, true>(p, stream);
    return on_layer<multimem_width(D, O) != 0>(layer, [&](auto a) { return launch<decltype(a), K>(p, stream); });
}

/* Only the pairs dtype_table.cuh lists are instantiated. */
template <mcoll_dtype D, mcoll_op O> int run_if(const ReduceParams &p, Layer layer, void *stream) {
    if constexpr (reduce_supported(D, O)) {
        return run<D, O>(p, layer, stream);
    } else {
        (void)p, (void)layer, (void)stream;
        return MCOLL_LAUNCH_UNSUPPORTED;
    }
}

template <mcoll_dtype D> int run_op(mcoll_op op, const ReduceParams &p, Layer layer, void *stream) {
    switch (op) {
    case MCOLL_SUM: return run_if<D, MCOLL_SUM>(p, layer, stream);
    case MCOLL_PROD: return run_if<D, MCOLL_PROD>(p, layer, stream);
    case MCOLL_MIN: return run_if<D, MCOLL_MIN>(p, layer, stream);
    case MCOLL_MAX: return run_if<D, MCOLL_MAX>(p, layer, stream);
    case MCOLL_BAND: return run_if<D, MCOLL_BAND>(p, layer, stream);
    case MCOLL_BOR: return run_if<D, MCOLL_BOR>(p, layer, stream);
    case MCOLL_BXOR: return run_if<D, MCOLL_BXOR>(p, layer, stream);
    case MCOLL_LAND: return run_if<D, MCOLL_LAND>(p, layer, stream);
    case MCOLL_LOR: return run_if<D, MCOLL_LOR>(p, layer, stream);
    case MCOLL_LXOR: return run_if<D, MCOLL_LXOR>(p, layer, stream);
    case MCOLL_MINLOC: return run_if<D, MCOLL_MINLOC>(p, layer, stream);
    case MCOLL_MAXLOC: return run_if<D, MCOLL_MAXLOC>(p, layer, stream);
    default: return MCOLL_LAUNCH_UNSUPPORTED;
    }
}

} // namespace mcoll
#endif /* MCOLL_REDUCE_KERNEL_CUH */
