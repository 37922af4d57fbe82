/* The reduction kernel (one-shot, two-shot, reduce-scatter; the prefixes of scan and exscan),
 * written once over the access layer as the pipelined loop of pipeline.cuh, and the templates
 * that launch it for one datatype. Included by reduce_float.cu, reduce_int.cu, reduce_small.cu
 * and reduce_pair.cu, which split the datatypes so that they build in parallel. */
#ifndef MCOLL_REDUCE_KERNEL_CUH
#define MCOLL_REDUCE_KERNEL_CUH

#include <type_traits>
#include "access.cuh"
#include "barrier.cuh"
#include "completion.cuh"
#include "copy.cuh"
#include "launch_common.cuh"
#include "multimem_table.cuh"
#include "pipeline.cuh"
#include "reduce_ops.cuh"
#include "reduce_run.cuh"
#include "schedule.cuh"

namespace mcoll {

/* Peers a scan loads before combining them: fewer than the unicast layer's kBatch, because a
 * scan also narrows after every peer; with 8, kernels of the 8-bit, complex and pair kinds
 * spill registers. */
constexpr int kScanBatch = 4;

/* A scan's reduction job (unicast loads and stores; see ReduceCall). One-shot: this rank's
 * prefix of `n` bytes at data-area offset `src` into `user`. Two-shot: every rank's prefix of
 * this rank's slice at `src`, prefix p stored at `shared` in rank p. */
template <class K>
__device__ __forceinline__ void scan_step(const mcoll_dev_team &t, const ReduceCall &c, size_t src, size_t shared,
                                          char *user, size_t n, Crew crew) {
    const bool exclusive = c.scan == kScanExclusive;
    if (!c.two_shot) {
        const int count = exclusive ? t.rank : t.rank + 1;
        for_packs<Unicast::kUnroll>(
            crew, packs_of(n),
            [&](unsigned i) {
                return reduce_first<K, kScanBatch>(count, [&](int p) {
                    return ld_global_v4((const char *)t.peer_data[p] + src + (size_t)i * 16);
                });
            },
            [&](unsigned i, uint4 v) { st_user(user, n, i, v); });
        return;
    }
    for (unsigned i = crew.lane; i < packs_of(n); i += crew.size)
        scan_ranks<K, kScanBatch>(
            t.size, exclusive,
            [&](int p) { return ld_global_v4((const char *)t.peer_data[p] + src + (size_t)i * 16); },
            [&](int p, uint4 v) { st_global_v4((char *)t.peer_data[p] + shared + (size_t)i * 16, v); });
}

/* Pack i of a reduced slot (n bytes from `at` in every rank's recvbuf) into every rank's recvbuf,
 * starting at this rank's port-neighbour: the zero-copy allreduces' last step. */
__device__ __forceinline__ void st_every_recv(const mcoll_dev_team &recv_view, size_t at, size_t n, unsigned i,
                                              uint4 v) {
    for (int k = 0; k < recv_view.size; k++)
        st_user((char *)recv_view.peer_data[(recv_view.rank + k) % recv_view.size] + at, n, i, v);
}

/* Whether this kernel lets a reduce's root read its input in place (ReduceCall::root_reads_send;
 * elsewhere root copies it in and the flag is ignored): not on the multimem layer, whose
 * ld_reduce reads every rank's data area, not the scans, and not the 8- and 16-bit integer kinds
 * (16 and 8 lanes a pack), whose kernels spill already and spilled more with root's walk beside
 * the other. */
template <class A, class K, bool Scan>
constexpr bool kReadsInPlace =
    !A::kMultimem && !Scan && !(std::is_integral<typename K::elem>::value && sizeof(typename K::elem) < 4);

/* Root's one-shot reduction of bytes [off, off + n) of its slot (the only one, slot 0), its own
 * input read from sendbuf (16-byte aligned: ReduceCall::root_reads_send) and the peers' from
 * data-area offset `src`. The whole packs take the walk with plain loads; the last partial pack,
 * if any, one thread alone: an out-of-line load among the walk's batches would make ptxas spill
 * their accumulators around the call. The ranks combine in the walk's order, so the bits are
 * those of the staged reduction. */
template <class K, class Store>
__device__ __forceinline__ void root_reduce_in_place(const mcoll_dev_team &t, const ReduceCall &c, Crew crew,
                                                     size_t off, size_t src, size_t n, Store store) {
    /* c.send read from the parameters at each use, not kept in a register: the 16-bit float
     * kernels are at ptxas's 128 registers */
    const auto from = [&](int q) { return q == t.rank ? (const char *)c.send + off : (const char *)t.peer_data[q] + src; };
    const unsigned whole = (unsigned)(n / 16);
    Unicast::reduce_walk<K>(
        t, crew, whole, [&](int q, unsigned i) { return ld_global_v4(from(q) + (size_t)i * 16); }, store);
    if (n % 16 == 0 || crew.lane != 0) return;
    Acc<K> acc[1];
    Unicast::reduce_ranks<K, 1, 1>(t, acc, [](int) { return true; }, [&](int q, int) {
        return q == t.rank ? ld_user(from(q), n, whole) : ld_global_v4(from(q) + (size_t)whole * 16);
    });
    store(whole, narrow<K>(acc[0]));
}

/* The reduction's job of a phase: slot red_slot of the chunk [off, off + len), from the inputs
 * every rank wrote into half `read` (its own, or with to_owner this rank's positions; with
 * root_reads_send this rank's input from sendbuf), into
 * recvbuf (one-shot, reduce-scatter), into every rank's recvbuf (results_to_recv) or into the
 * results of half `write` (two-shot: every rank's, or root's alone). */
template <class A, class K, bool Scan>
__device__ __forceinline__ void reduce_job(const ReduceParams &p, const Step &st, Crew crew) {
    const mcoll_dev_team &t = p.team;
    const ReduceCall &c = p.call;
    const Sched &s = p.sched;
    const size_t off = st.off[kJobRed];
    const size_t src = red_from(st, s, c.red_slot);
    const size_t dst = red_to(st, s, c.red_slot);
    const size_t n = slot_part(c, c.red_slot, off, st.len[kJobRed]);
    char *user = (char *)c.recv + off;
    if constexpr (Scan) {
        scan_step<K>(t, c, src, dst, user, n, crew);
    } else {
        char *root_area = c.root >= 0 ? (char *)t.peer_data[c.root] : nullptr;
        const auto store = [&](unsigned i, uint4 v) {
            if (!c.two_shot) st_user(user, n, i, v);
            else if (c.results_to_recv) st_every_recv(p.recv_view, (size_t)c.red_slot * c.slot_bytes + off, n, i, v);
            else if (root_area) st_global_v4(root_area + dst + (size_t)i * 16, v);
            else A::st(t, dst + (size_t)i * 16, v);
        };
        if (c.to_owner) { /* every rank's part is in this rank's memory: plain local loads */
            const char *own = (const char *)t.peer_data[t.rank];
            Unicast::reduce_walk<K>(
                t, crew, packs_of(n),
                [&](int q, unsigned i) { return ld_global_v4(own + red_from(st, s, q) + (size_t)i * 16); }, store);
            return;
        }
        if constexpr (kReadsInPlace<A, K, Scan>) {
            if (c.root_reads_send) {
                root_reduce_in_place<K>(t, c, crew, off, src, n, store);
                return;
            }
        }
        A::template ld_reduce_walk<K>(t, crew, packs_of(n), src, store);
    }
}

/* One-shot, two-shot, reduce-scatter and the scans, pipelined (pipeline.cuh): in each phase
 * the block's warps copy one chunk in, reduce the one before and copy the one before that out,
 * then meet the other ranks at one barrier. Scan: the scan kernels (unicast only), instantiated
 * apart so that the other reductions keep their registers. */
template <class A, class K, bool Scan>
__global__ void __launch_bounds__(kThreads, 1) reduce_kernel(const __grid_constant__ ReduceParams p) {
    static_assert(!Scan || !A::kMultimem, "prefixes have no multimem form");
    const mcoll_dev_team &t = p.team;
    const ReduceCall &c = p.call;
    const Sched &s = p.sched;
    char *own = (char *)t.peer_data[t.rank];
    Plan plan = plan_of(s, c, blockIdx.x, t.rank);
    if constexpr (!kReadsInPlace<A, K, Scan>) plan.in = true; /* a constant: registers as before */
    uint64_t epoch = t.epochs[blockIdx.x];

    /* Where root may read in place, a 32-bit count (phases_fit): a 64-bit one made ptxas spill
     * the 16-bit float reductions; the other kernels keep theirs (a 32-bit one made the 16-bit
     * integer min and max spill more). */
    using Phase = typename std::conditional<kReadsInPlace<A, K, Scan>, unsigned, size_t>::type;
    for (Phase ph = 0; ph < (Phase)plan.phases; ph++) {
        if (ph) block_barrier<A>(t, epoch);
        const Step st = step_of(plan, s, ph, epoch);
        Crew crew;
        switch (job_of(st, &crew)) {
        case kJobIn:
            for (int k = 0; k < s.nslots; k++) {
                /* to_owner: into owner q's position of this rank, the owners in turn from this
                 * rank's neighbour, so that the ranks' stores spread over the ports. */
                const int q = c.to_owner ? (t.rank + 1 + k) % s.nslots : k;
                char *to = c.to_owner ? (char *)t.peer_data[q] + in_to(st, s, t.rank) : own + in_to(st, s, q);
                copy_in(to, (const char *)c.send + q * c.slot_bytes + st.off[kJobIn],
                        slot_part(c, q, st.off[kJobIn], st.len[kJobIn]), crew);
            }
            break;
        case kJobRed:
            reduce_job<A, K, Scan>(p, st, crew);
            break;
        case kJobOut:
            for (int q = 0; q < s.nslots; q++)
                copy_out((char *)c.recv + q * c.slot_bytes + st.off[kJobOut], own + out_from(st, s, q),
                         slot_part(c, q, st.off[kJobOut], st.len[kJobOut]), crew);
            break;
        default:
            break;
        }
    }
    if (threadIdx.x == 0) t.epochs[blockIdx.x] = epoch;
    signal_done(t);
}

/* Zero-copy (ReduceCall::direct): no data area is used, so the halves' rule of the staged kernels
 * is untouched (the barriers only advance the epochs). Block b takes bytes [b * span,
 * (b + 1) * span) of each slot it reduces. */
static_assert(MCOLL_ROOT_WORDS_OFFSET + MCOLL_MAX_BLOCKS * sizeof(uint64_t) <= MCOLL_LL_OFFSET,
              "root's words must fit between the counters and the LL area");

__device__ __forceinline__ uint64_t *root_word(const mcoll_dev_team &t, int root) {
    return (uint64_t *)((char *)t.peer_signal[root] + MCOLL_ROOT_WORDS_OFFSET) + blockIdx.x;
}

/* This block's part of slot k: `load(p, at, n, i)` gives pack i of rank p's n bytes from `at`,
 * `store(at, n, i, v)` puts the reduced pack. */
template <class K, class Load, class Store>
__device__ __forceinline__ void direct_slot(const mcoll_dev_team &t, const ReduceParams &p, int k, Load load,
                                            Store store) {
    const ReduceCall &c = p.call;
    const size_t data = slot_part(c, k, 0, c.slot_bytes);
    const size_t lo = (size_t)blockIdx.x * p.sched.span;
    if (lo >= data) return;
    const size_t n = data - lo < p.sched.span ? data - lo : p.sched.span;
    const size_t at = (size_t)k * c.slot_bytes + lo; /* in every sendbuf */
    Unicast::reduce_walk<K>(
        t, whole_block(), packs_of(n), [&](int q, unsigned i) { return load(q, at, n, i); },
        [&](unsigned i, uint4 v) { store(at, n, i, v); });
}

/* Allreduce and reduce_scatter: this rank's slot, reduced from every rank's sendbuf (16-byte
 * aligned, mapped up to a multiple of 16), stored into every rank's recvbuf (two_shot) or into
 * its own. Reduce: the slots root_owner gives this rank, from every rank's input at any
 * alignment, into root's recvbuf; root says before the first barrier where its input and
 * recvbuf are, and the others read it after. */
template <class K>
__global__ void __launch_bounds__(kThreads, 1) direct_reduce_kernel(const __grid_constant__ ReduceParams p) {
    const mcoll_dev_team &t = p.team;
    const ReduceCall &c = p.call;
    if (c.root >= 0 && t.rank == c.root && threadIdx.x == 0) *root_word(t, c.root) = c.root_says;
    between_barriers(t, [&] {
        if (c.root < 0) {
            direct_slot<K>(
                t, p, c.red_slot,
                [&](int q, size_t at, size_t, unsigned i) {
                    return ld_global_v4((const char *)t.peer_data[q] + at + (size_t)i * 16);
                },
                [&](size_t at, size_t n, unsigned i, uint4 v) {
                    if (!c.two_shot) {
                        st_user((char *)p.recv_view.peer_data[t.rank] + at - (size_t)c.red_slot * c.slot_bytes, n, i, v);
                        return;
                    }
                    st_every_recv(p.recv_view, at, n, i, v);
                });
            return;
        }
        const uint64_t says = t.rank == c.root ? c.root_says : ld_global_u64(root_word(t, c.root));
        /* Root's recvbuf: its own on root, else where root says in its part of the window. */
        char *root_recv = (char *)p.recv_view.peer_data[c.root] + (t.rank == c.root ? 0 : (size_t)(says >> 2));
        const char *root_in = says & kRootInPlace ? root_recv : (const char *)t.peer_data[c.root];
        for (int k = 0; k < c.nslots; k++) {
            if (root_owner(k, t.size, c.root, says) != t.rank) continue;
            direct_slot<K>(
                t, p, k,
                [&](int q, size_t at, size_t n, unsigned i) {
                    return ld_user((q == c.root ? root_in : (const char *)t.peer_data[q]) + at, n, i);
                },
                [&](size_t at, size_t n, unsigned i, uint4 v) { st_user(root_recv + at, n, i, v); });
        }
    });
    signal_done(t);
}

template <class K> int launch_direct(const ReduceParams &p, void *stream) {
    direct_reduce_kernel<K><<<p.sched.blocks, kThreads, 0, (cudaStream_t)stream>>>(p);
    return check_launch(p.team);
}

template <class A, class K, bool Scan = false> int launch(const ReduceParams &p, void *stream) {
    reduce_kernel<A, K, Scan><<<p.sched.blocks, kThreads, 0, (cudaStream_t)stream>>>(p);
    return check_launch(p.team);
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
template <mcoll_dtype D> int run_op(mcoll_op op, const ReduceParams &p, Layer layer, void *stream) {
    return visit_op<D>(op, (int)MCOLL_LAUNCH_UNSUPPORTED,
                       [&](auto o) { return run<D, decltype(o)::value>(p, layer, stream); });
}

} // namespace mcoll
#endif /* MCOLL_REDUCE_KERNEL_CUH */
