/* Where the multimem layer's requests go (access.cuh: MultimemLayer<Port>).
 *   SwitchPort: the multicast mapping; each request is one multimem instruction (production).
 *   AliasPort:  tests only. The host mapped every rank's symmetric memory a second time (a
 *               second cuMemMap of the same handles, no multicast object) and set mc_stride;
 *               each request is spelled over those aliases, rank by rank, with the Kind the
 *               switch would compute. Ranks are combined starting at a rank that moves with
 *               the rank, the pack and the call (mc_turn), so results that silently depend on
 *               the switch's unspecified combine order differ between ranks and calls here.
 * The aliases are other virtual addresses of the same memory, so they are other proxies in
 * the PTX memory model exactly as the multicast mapping is: the layer's fences are needed,
 * and exercised, in both. */
#ifndef MCOLL_MULTIMEM_PORT_CUH
#define MCOLL_MULTIMEM_PORT_CUH

#include "launch.h"
#include "multimem_instr.cuh"
#include "ptx.cuh"
#include "reduce_ops.cuh"

namespace mcoll {

struct SwitchPort {
    template <class I>
    static __device__ __forceinline__ typename I::word ld_reduce(const mcoll_dev_team &t, size_t off) {
        return I::on_switch((const char *)t.mc_data + off);
    }
    static __device__ __forceinline__ void st(const mcoll_dev_team &t, size_t off, uint4 v) {
        multimem_st_v4f32((char *)t.mc_data + off, v);
    }
};

struct AliasPort {
    template <class I>
    static __device__ __forceinline__ typename I::word ld_reduce(const mcoll_dev_team &t, size_t off) {
        using K = typename I::kind;
        using W = typename I::word;
        const int n = t.size;
        int p = (int)((t.rank + t.mc_turn + (off >> 4)) % (size_t)n);
        Acc<K> acc = identity<K>();
        for (int i = 0; i < n; i++) {
            combine<K>(acc, widen<K>(as_pack(ld_word<W>((const char *)t.mc_data + alias(t, p) + off))));
            if (++p == n) p = 0;
        }
        return from_pack<W>(narrow<K>(acc));
    }
    static __device__ __forceinline__ void st(const mcoll_dev_team &t, size_t off, uint4 v) {
        for (int i = 0, p = t.rank; i < t.size; i++, p = p + 1 == t.size ? 0 : p + 1)
            st_global_v4((char *)t.mc_data + alias(t, p) + off, v);
    }

private:
    static __device__ __forceinline__ size_t alias(const mcoll_dev_team &t, int p) {
        return (size_t)p * t.mc_stride;
    }
    template <class W> static __device__ __forceinline__ W ld_word(const void *p) {
        if constexpr (sizeof(W) == 4) return ld_global_u32(p);
        else if constexpr (sizeof(W) == 8) return ld_global_u64(p);
        else return ld_global_v4(p);
    }
    /* A request's bytes at the start of a 16-byte pack (the Kind's other lanes are unused). */
    static __device__ __forceinline__ uint4 as_pack(uint32_t w) { return make_uint4(w, 0, 0, 0); }
    static __device__ __forceinline__ uint4 as_pack(uint64_t w) {
        return make_uint4((uint32_t)w, (uint32_t)(w >> 32), 0, 0);
    }
    static __device__ __forceinline__ uint4 as_pack(uint4 w) { return w; }
    template <class W> static __device__ __forceinline__ W from_pack(uint4 v) {
        if constexpr (sizeof(W) == 4) return v.x;
        else if constexpr (sizeof(W) == 8) return (uint64_t)v.x | ((uint64_t)v.y << 32);
        else return v;
    }
};

} // namespace mcoll
#endif /* MCOLL_MULTIMEM_PORT_CUH */
