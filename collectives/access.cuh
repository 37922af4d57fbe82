/* The two access layers. Every algorithm is written once against this interface:
 *   ld_reduce<K>(t, off)  load the 16-byte pack at data-area offset `off` from every rank, reduced
 *   st(t, off, v)         store a 16-byte pack at data-area offset `off` on every rank
 *   arrive(t, b)          add 1 to counter [b][rank] in every rank's signal pad (release)
 *   fence_before_arrive(), fence_after_wait()   what the layer needs around a barrier
 * Unicast spells them as loops over the peers' mapped buffers; Multimem as one multimem
 * instruction on the multicast mapping. */
#ifndef MCOLL_ACCESS_CUH
#define MCOLL_ACCESS_CUH

#include <type_traits>
#include "launch.h"
#include "ptx.cuh"
#include "reduce_ops.cuh"

namespace mcoll {

template <class T> struct always_false : std::false_type {};

__device__ __forceinline__ size_t signal_slot(int block, int rank) {
    return (size_t)block * MCOLL_MAX_RANKS + rank;
}

struct Unicast {
    static constexpr bool kMultimem = false;
    /* Packs in flight per thread; each one already loads from every peer. */
    static constexpr int kUnroll = 1;
    static constexpr int kBatch = 8; /* peers loaded before their values are combined */

    /* Float sums and products combine in rank order, so every rank computes bitwise the same
     * result (MPI's advice for reductions); order-free ops start at this rank to spread reads. */
    template <class K>
    static __device__ __forceinline__ uint4 ld_reduce(const mcoll_dev_team &t, size_t off) {
        const int n = t.size;
        const int first = K::order_free ? t.rank : 0;
        Acc<K> acc = identity<K>();
        for (int base = 0; base < n; base += kBatch) {
            uint4 v[kBatch];
#pragma unroll
            for (int j = 0; j < kBatch; j++) {
                if (base + j < n) {
                    int p = first + base + j;
                    if (p >= n) p -= n;
                    v[j] = ld_global_v4((const char *)t.peer_data[p] + off);
                }
            }
#pragma unroll
            for (int j = 0; j < kBatch; j++)
                if (base + j < n) combine<K>(acc, widen<K>(v[j]));
        }
        return narrow<K>(acc);
    }

    static __device__ __forceinline__ void st(const mcoll_dev_team &t, size_t off, uint4 v) {
        for (int i = 0; i < t.size; i++) {
            int p = t.rank + i;
            if (p >= t.size) p -= t.size;
            st_global_v4((char *)t.peer_data[p] + off, v);
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

struct Multimem {
    static constexpr bool kMultimem = true;
    static constexpr int kUnroll = 4;

    template <class K>
    static __device__ __forceinline__ uint4 ld_reduce(const mcoll_dev_team &t, size_t off) {
        using T = typename K::elem;
        constexpr int op = K::op;
        const char *p = (const char *)t.mc_data + off;
        if constexpr (std::is_same<T, float>::value && op == MCOLL_SUM) {
            return multimem_ld_reduce_add_v4f32(p);
        } else if constexpr (std::is_same<T, double>::value && op == MCOLL_SUM) {
            return pack64(multimem_ld_reduce_add_f64(p), multimem_ld_reduce_add_f64(p + 8));
        } else if constexpr (std::is_same<T, __half>::value && op == MCOLL_SUM) {
            return multimem_ld_reduce_add_acc_f32_v4f16x2(p);
        } else if constexpr (std::is_same<T, __half>::value && op == MCOLL_MIN) {
            return multimem_ld_reduce_min_v4f16x2(p);
        } else if constexpr (std::is_same<T, __half>::value && op == MCOLL_MAX) {
            return multimem_ld_reduce_max_v4f16x2(p);
        } else if constexpr (std::is_same<T, __nv_bfloat16>::value && op == MCOLL_SUM) {
            return multimem_ld_reduce_add_acc_f32_v4bf16x2(p);
        } else if constexpr (std::is_same<T, __nv_bfloat16>::value && op == MCOLL_MIN) {
            return multimem_ld_reduce_min_v4bf16x2(p);
        } else if constexpr (std::is_same<T, __nv_bfloat16>::value && op == MCOLL_MAX) {
            return multimem_ld_reduce_max_v4bf16x2(p);
        } else if constexpr (std::is_same<T, uint32_t>::value && op == MCOLL_SUM) {
            return pack32(multimem_ld_reduce_add_u32(p), multimem_ld_reduce_add_u32(p + 4),
                          multimem_ld_reduce_add_u32(p + 8), multimem_ld_reduce_add_u32(p + 12));
        } else if constexpr (std::is_same<T, uint32_t>::value && op == MCOLL_MIN) {
            return pack32(multimem_ld_reduce_min_u32(p), multimem_ld_reduce_min_u32(p + 4),
                          multimem_ld_reduce_min_u32(p + 8), multimem_ld_reduce_min_u32(p + 12));
        } else if constexpr (std::is_same<T, uint32_t>::value && op == MCOLL_MAX) {
            return pack32(multimem_ld_reduce_max_u32(p), multimem_ld_reduce_max_u32(p + 4),
                          multimem_ld_reduce_max_u32(p + 8), multimem_ld_reduce_max_u32(p + 12));
        } else if constexpr (std::is_same<T, int32_t>::value && op == MCOLL_MIN) {
            return pack32(multimem_ld_reduce_min_s32(p), multimem_ld_reduce_min_s32(p + 4),
                          multimem_ld_reduce_min_s32(p + 8), multimem_ld_reduce_min_s32(p + 12));
        } else if constexpr (std::is_same<T, int32_t>::value && op == MCOLL_MAX) {
            return pack32(multimem_ld_reduce_max_s32(p), multimem_ld_reduce_max_s32(p + 4),
                          multimem_ld_reduce_max_s32(p + 8), multimem_ld_reduce_max_s32(p + 12));
        } else if constexpr (std::is_same<T, uint64_t>::value && op == MCOLL_SUM) {
            return pack64(multimem_ld_reduce_add_u64(p), multimem_ld_reduce_add_u64(p + 8));
        } else if constexpr (std::is_same<T, uint64_t>::value && op == MCOLL_MIN) {
            return pack64(multimem_ld_reduce_min_u64(p), multimem_ld_reduce_min_u64(p + 8));
        } else if constexpr (std::is_same<T, uint64_t>::value && op == MCOLL_MAX) {
            return pack64(multimem_ld_reduce_max_u64(p), multimem_ld_reduce_max_u64(p + 8));
        } else if constexpr (std::is_same<T, int64_t>::value && op == MCOLL_MIN) {
            return pack64(multimem_ld_reduce_min_s64(p), multimem_ld_reduce_min_s64(p + 8));
        } else if constexpr (std::is_same<T, int64_t>::value && op == MCOLL_MAX) {
            return pack64(multimem_ld_reduce_max_s64(p), multimem_ld_reduce_max_s64(p + 8));
        } else if constexpr (op == MCOLL_BAND) {
            return pack64(multimem_ld_reduce_and_b64(p), multimem_ld_reduce_and_b64(p + 8));
        } else if constexpr (op == MCOLL_BOR) {
            return pack64(multimem_ld_reduce_or_b64(p), multimem_ld_reduce_or_b64(p + 8));
        } else if constexpr (op == MCOLL_BXOR) {
            return pack64(multimem_ld_reduce_xor_b64(p), multimem_ld_reduce_xor_b64(p + 8));
        } else {
            static_assert(always_false<K>::value,
                          "multimem.ld_reduce cannot do this kind; multimem_table.cuh must say 0");
            return uint4{};
        }
    }

    static __device__ __forceinline__ void st(const mcoll_dev_team &t, size_t off, uint4 v) {
        multimem_st_v4f32((char *)t.mc_data + off, v);
    }

    /* The add reaches every rank's pad; the proxy fence after it orders it before this
     * thread's spin on the unicast mapping of its own pad. */
    static __device__ __forceinline__ void arrive(const mcoll_dev_team &t, int block) {
        if (threadIdx.x == 0) {
            multimem_red_release_sys_add_u64(t.mc_signal + signal_slot(block, t.rank), 1);
            fence_proxy_alias();
        }
    }

    /* Data moves through one mapping (copies through unicast, ld_reduce/st through multicast)
     * and the flags through the other, so every thread orders its own accesses across the
     * aliases on both sides of the barrier. */
    static __device__ __forceinline__ void fence_before_arrive() { fence_proxy_alias(); }
    static __device__ __forceinline__ void fence_after_wait() { fence_proxy_alias(); }

private:
    static __device__ __forceinline__ uint4 pack32(uint32_t a, uint32_t b, uint32_t c, uint32_t d) {
        return make_uint4(a, b, c, d);
    }
    static __device__ __forceinline__ uint4 pack64(uint64_t a, uint64_t b) {
        return make_uint4((uint32_t)a, (uint32_t)(a >> 32), (uint32_t)b, (uint32_t)(b >> 32));
    }
};

} // namespace mcoll
#endif /* MCOLL_ACCESS_CUH */
