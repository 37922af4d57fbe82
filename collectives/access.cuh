/* The access layers. Every algorithm is written once against this interface:
 *   ld_reduce<K>(t, off)  load the 16-byte pack at data-area offset `off` from every rank, reduced
 *   ld_reduce_walk<K>(t, crew, np, off, store)   the same for packs [0, np) from `off`, the crew
 *                         keeping as many loads in flight as the layer wants; store(i, v)
 *   st(t, off, v)         store a 16-byte pack at data-area offset `off` on every rank
 *   st_except(t, off, v, skip)   the same where rank `skip` needs no copy: unicast leaves it out,
 *                         multimem cannot (the switch stores to every rank; nobody reads that copy)
 *   arrive(t, b)          add 1 to counter [b][rank] in every rank's signal pad (release)
 *   fence_before_arrive(), fence_after_wait()   what the layer needs around a barrier
 * Unicast spells them as loops over the peers' mapped buffers; Multimem as multimem
 * instructions on the multicast mapping; MultimemEmulated (tests only) as the same requests
 * over a second mapping of every rank's memory (multimem_port.cuh). */
#ifndef MCOLL_ACCESS_CUH
#define MCOLL_ACCESS_CUH

#include <type_traits>
#include "copy.cuh"
#include "launch.h"
#include "launch_common.cuh"
#include "multimem_instr.cuh"
#include "multimem_port.cuh"
#include "ptx.cuh"
#include "reduce_ops.cuh"

namespace mcoll {

template <class T> struct always_false : std::false_type {};

__device__ __forceinline__ size_t signal_slot(int block, int rank) {
    return (size_t)block * MCOLL_MAX_RANKS + rank;
}

struct Unicast {
    static constexpr bool kMultimem = false;
    /* Packs in flight per thread in the small kernels; each one already loads from every peer. */
    static constexpr int kUnroll = 1;
    static constexpr int kBatch = 8; /* peers loaded before their values are combined */

    /* Float sums and products combine in rank order, so every rank computes bitwise the same
     * result (MPI's advice for reductions); order-free ops start at this rank to spread reads. */
    template <class K>
    static __device__ __forceinline__ uint4 ld_reduce(const mcoll_dev_team &t, size_t off) {
        Acc<K> acc[1];
        reduce_ranks<K, 1, kBatch>(
            t, acc, [](int) { return true; },
            [&](int p, int) { return ld_global_v4((const char *)t.peer_data[p] + off); });
        return narrow<K>(acc[0]);
    }

    /* A large reduction's loads cross NVLink, and a thread that loads one pack from each peer
     * and then waits keeps too few bytes in flight to fill the links: a round of the walk
     * takes kWalkPacks packs a thread and loads them from kWalkPeers ranks at a time (8 loads
     * in flight). Every pack combines its ranks in the same order as ld_reduce's, so results
     * are the same bits. */
    static constexpr int kWalkPacks = 4, kWalkPeers = 2;

    /* The crew reduces packs [0, np): load(p, i) gives pack i of rank p (from the data area, or
     * from users' buffers wherever they lie in the zero-copy kernels), store(i, v) takes the
     * result. */
    template <class K, class Load, class Store>
    static __device__ __forceinline__ void reduce_walk(const mcoll_dev_team &t, Crew crew, unsigned np, Load load,
                                                       Store store) {
        constexpr int U = kWalkPacks;
        const unsigned step = crew.size;
        for (unsigned i = crew.lane; i < np; i += U * step) {
            const auto present = [&](int u) { return i + u * step < np; };
            Acc<K> acc[U];
            reduce_ranks<K, U, kWalkPeers>(t, acc, present, [&](int p, int u) { return load(p, i + u * step); });
#pragma unroll
            for (int u = 0; u < U; u++)
                if (present(u)) store(i + u * step, narrow<K>(acc[u]));
        }
    }

    template <class K, class Store>
    static __device__ __forceinline__ void ld_reduce_walk(const mcoll_dev_team &t, Crew crew, unsigned np, size_t off,
                                                          Store store) {
        reduce_walk<K>(
            t, crew, np, [&](int p, unsigned i) { return ld_global_v4((const char *)t.peer_data[p] + off + (size_t)i * 16); },
            store);
    }

    static __device__ __forceinline__ void st(const mcoll_dev_team &t, size_t off, uint4 v) { st_except(t, off, v, -1); }

    static __device__ __forceinline__ void st_except(const mcoll_dev_team &t, size_t off, uint4 v, int skip) {
        for (int i = 0; i < t.size; i++) {
            int p = t.rank + i;
            if (p >= t.size) p -= t.size;
            if (p != skip) st_global_v4((char *)t.peer_data[p] + off, v);
        }
    }

    /* acc[u], for every pack u < U that present(u) says exists, reduced over every rank in
     * the order ld_reduce documents: P ranks' packs loaded (load(p, u)) before they are
     * combined. */
    template <class K, int U, int P, class Present, class Load>
    static __device__ __forceinline__ void reduce_ranks(const mcoll_dev_team &t, Acc<K> (&acc)[U], Present present,
                                                        Load load) {
        const int n = t.size;
        const int first = K::order_free ? t.rank : 0;
#pragma unroll
        for (int u = 0; u < U; u++) acc[u] = identity<K>();
        for (int base = 0; base < n; base += P) {
            uint4 v[P][U];
#pragma unroll
            for (int j = 0; j < P; j++) {
                int p = first + base + j;
                if (p >= n) p -= n;
#pragma unroll
                for (int u = 0; u < U; u++)
                    if (base + j < n && present(u)) v[j][u] = load(p, u);
            }
#pragma unroll
            for (int j = 0; j < P; j++)
#pragma unroll
                for (int u = 0; u < U; u++)
                    if (base + j < n && present(u)) combine<K>(acc[u], widen<K>(v[j][u]));
        }
    }

    /* One thread per peer: each add is a release, ordered after the block's data accesses by
     * the __syncthreads the barrier runs first. */
    static __device__ __forceinline__ void arrive(const mcoll_dev_team &t, int block) {
        if ((int)threadIdx.x < t.size)
            red_release_sys_add_u64(t.peer_signal[threadIdx.x] + signal_slot(block, t.rank), 1);
    }

    static __device__ __forceinline__ void fence_before_arrive() {}
    static __device__ __forceinline__ void fence_after_wait() {}

};

/* The multimem.ld_reduce form (multimem_instr.cuh) that reduces kind K. */
template <class K> constexpr auto multimem_form() {
    using T = typename K::elem;
    constexpr int op = K::op;
    if constexpr (std::is_same<T, float>::value && op == MCOLL_SUM) return MmAddV4F32{};
    else if constexpr (std::is_same<T, double>::value && op == MCOLL_SUM) return MmAddF64{};
    else if constexpr (std::is_same<T, __half>::value && op == MCOLL_SUM) return MmAddAccF32V4F16x2{};
    else if constexpr (std::is_same<T, __half>::value && op == MCOLL_MIN) return MmMinV4F16x2{};
    else if constexpr (std::is_same<T, __half>::value && op == MCOLL_MAX) return MmMaxV4F16x2{};
    else if constexpr (std::is_same<T, __nv_bfloat16>::value && op == MCOLL_SUM) return MmAddAccF32V4BF16x2{};
    else if constexpr (std::is_same<T, __nv_bfloat16>::value && op == MCOLL_MIN) return MmMinV4BF16x2{};
    else if constexpr (std::is_same<T, __nv_bfloat16>::value && op == MCOLL_MAX) return MmMaxV4BF16x2{};
    else if constexpr (std::is_same<T, uint32_t>::value && op == MCOLL_SUM) return MmAddU32{};
    else if constexpr (std::is_same<T, uint32_t>::value && op == MCOLL_MIN) return MmMinU32{};
    else if constexpr (std::is_same<T, uint32_t>::value && op == MCOLL_MAX) return MmMaxU32{};
    else if constexpr (std::is_same<T, int32_t>::value && op == MCOLL_MIN) return MmMinS32{};
    else if constexpr (std::is_same<T, int32_t>::value && op == MCOLL_MAX) return MmMaxS32{};
    else if constexpr (std::is_same<T, uint64_t>::value && op == MCOLL_SUM) return MmAddU64{};
    else if constexpr (std::is_same<T, uint64_t>::value && op == MCOLL_MIN) return MmMinU64{};
    else if constexpr (std::is_same<T, uint64_t>::value && op == MCOLL_MAX) return MmMaxU64{};
    else if constexpr (std::is_same<T, int64_t>::value && op == MCOLL_MIN) return MmMinS64{};
    else if constexpr (std::is_same<T, int64_t>::value && op == MCOLL_MAX) return MmMaxS64{};
    else if constexpr (op == MCOLL_BAND) return MmAndB64{};
    else if constexpr (op == MCOLL_BOR) return MmOrB64{};
    else if constexpr (op == MCOLL_BXOR) return MmXorB64{};
    else {
        static_assert(always_false<K>::value,
                      "multimem.ld_reduce cannot do this kind; multimem_table.cuh must say 0");
        return MmAddV4F32{};
    }
}
template <class K> using MultimemForm = decltype(multimem_form<K>());

/* The multimem layer, written once over where its requests go (multimem_port.cuh): which
 * multimem.ld_reduce form serves each kind, how many requests a 16-byte pack takes, and the
 * fences, are the same for the switch and for the tests' emulation of it. */
template <class Port> struct MultimemLayer {
    static constexpr bool kMultimem = true;
    static constexpr int kUnroll = 4;

    template <class K>
    static __device__ __forceinline__ uint4 ld_reduce(const mcoll_dev_team &t, size_t off) {
        return pack<MultimemForm<K>>(t, off);
    }

    /* One request per pack reduces every rank in the switch: kUnroll requests in flight. */
    template <class K, class Store>
    static __device__ __forceinline__ void ld_reduce_walk(const mcoll_dev_team &t, Crew crew, unsigned np, size_t off,
                                                          Store store) {
        for_packs<kUnroll>(crew, np, [&](unsigned i) { return ld_reduce<K>(t, off + (size_t)i * 16); }, store);
    }

    static __device__ __forceinline__ void st(const mcoll_dev_team &t, size_t off, uint4 v) {
        Port::st(t, off, v);
    }

    static __device__ __forceinline__ void st_except(const mcoll_dev_team &t, size_t off, uint4 v, int) {
        Port::st(t, off, v);
    }

    /* Arrival goes through the unicast mappings, as on the unicast layer: the flags are then
     * released and acquired through one proxy, and only the data crosses proxies (the fences
     * below). A multimem.red would cost the same (one request per peer, in parallel threads,
     * against one the switch fans out) but would add a proxy crossing to every barrier
     * (collectives/README.md, "Memory model of the multimem layer"). */
    static __device__ __forceinline__ void arrive(const mcoll_dev_team &t, int block) { Unicast::arrive(t, block); }

    /* Data moves through one mapping (copies through unicast, ld_reduce/st through multicast)
     * and the flags through the other, so every thread orders its own accesses across the
     * aliases on both sides of the barrier. */
    static __device__ __forceinline__ void fence_before_arrive() { fence_proxy_alias(); }
    static __device__ __forceinline__ void fence_after_wait() { fence_proxy_alias(); }

private:
    /* A 16-byte pack as 16 / sizeof(word) requests of form I: four 32-bit integer requests,
     * two 64-bit ones (f64, 64-bit integers, every bitwise op on .b64 lanes), or one vector. */
    template <class I>
    static __device__ __forceinline__ uint4 pack(const mcoll_dev_team &t, size_t off) {
        using W = typename I::word;
        if constexpr (sizeof(W) == 16) {
            return Port::template ld_reduce<I>(t, off);
        } else if constexpr (sizeof(W) == 8) {
            const uint64_t a = Port::template ld_reduce<I>(t, off), b = Port::template ld_reduce<I>(t, off + 8);
            return make_uint4((uint32_t)a, (uint32_t)(a >> 32), (uint32_t)b, (uint32_t)(b >> 32));
        } else {
            return make_uint4(Port::template ld_reduce<I>(t, off), Port::template ld_reduce<I>(t, off + 4),
                              Port::template ld_reduce<I>(t, off + 8), Port::template ld_reduce<I>(t, off + 12));
        }
    }
};

using Multimem = MultimemLayer<SwitchPort>;
using MultimemEmulated = MultimemLayer<AliasPort>;

/* The layer a call runs on: unicast, unless the team has multicast mappings (or, in tests,
 * their emulation) and the call asked for multimem. */
enum class Layer { Unicast, Multimem, MultimemEmulated };

inline Layer pick_layer(const mcoll_dev_team *t, mcoll_access access) {
    if (!use_multimem(t, access)) return Layer::Unicast;
    return t->mc_stride ? Layer::MultimemEmulated : Layer::Multimem;
}

/* Whether a reduction's inputs should move by stores into their owners (ReduceCall::to_owner):
 * on the unicast layer the owner would load every peer's part over NVLink; on the multimem layer
 * one ld_reduce per pack reduces them in the switch, which stores cannot beat. */
inline bool stores_inputs_pay(Layer layer) { return layer == Layer::Unicast; }

/* launch(layer) with the layer's type; kernels without a multimem form (HasMultimem false)
 * are instantiated on the unicast layer only. */
template <bool HasMultimem, class F> int on_layer(Layer layer, F &&launch) {
    if constexpr (kMultimemBuilt && HasMultimem) {
        if (layer == Layer::Multimem) return launch(Multimem{});
        if (layer == Layer::MultimemEmulated) return launch(MultimemEmulated{});
    }
    (void)layer;
    return launch(Unicast{});
}

} // namespace mcoll
#endif /* MCOLL_ACCESS_CUH */
