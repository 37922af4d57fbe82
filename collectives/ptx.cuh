/* Single-instruction PTX helpers: one instruction each, named for what it does.
 *
 * Multimem helpers need sm_90 and an assembler that knows multimem. Built with
 * MCOLL_NO_MULTIMEM (configure: nvcc too old) or for a target below sm_90 (no multicast there)
 * they compile to a trap; with MCOLL_NO_MULTIMEM the launchers never pick the multimem layer.
 * Symmetric-memory data accesses are volatile asm so that they stay between the barriers that
 * order them. */
#ifndef MCOLL_PTX_CUH
#define MCOLL_PTX_CUH

#include <stdint.h>
#include <cuda_runtime.h>

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 700
#error "mcoll kernels need sm_70 or newer (system-scope acquire/release)"
#endif

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 && !defined(MCOLL_NO_MULTIMEM)
#define MCOLL_MULTIMEM_ISA 1
#else
#define MCOLL_MULTIMEM_ISA 0
#endif

namespace mcoll {

__device__ __forceinline__ size_t gaddr(const void *p) { return __cvta_generic_to_global(p); }

/* ---- synchronization ------------------------------------------------------------------- */

__device__ __forceinline__ uint64_t ld_acquire_sys_u64(const uint64_t *p) {
    uint64_t v;
    asm volatile("ld.acquire.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(gaddr(p)) : "memory");
    return v;
}

__device__ __forceinline__ void red_release_sys_add_u64(uint64_t *p, uint64_t v) {
    asm volatile("red.release.sys.global.add.u64 [%0], %1;" ::"l"(gaddr(p)), "l"(v) : "memory");
}

__device__ __forceinline__ void st_release_sys_u64(uint64_t *p, uint64_t v) {
    asm volatile("st.release.sys.global.u64 [%0], %1;" ::"l"(gaddr(p)), "l"(v) : "memory");
}

/* Every access of this thread before it, at system scope, is ordered before every one after it
 * for every observer, the host included (a store then a load of another word: Dekker's order). */
__device__ __forceinline__ void fence_sc_sys() { asm volatile("fence.sc.sys;" ::: "memory"); }

/* The LL protocol's lines: one 16-byte access each, never cached (a peer writes them). */
__device__ __forceinline__ void st_volatile_v4(void *p, uint4 v) {
    asm volatile("st.volatile.global.v4.u32 [%0], {%1,%2,%3,%4};"
                 ::"l"(gaddr(p)), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w) : "memory");
}

__device__ __forceinline__ uint4 ld_volatile_v4(const void *p) {
    uint4 v;
    asm volatile("ld.volatile.global.v4.u32 {%0,%1,%2,%3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(gaddr(p)) : "memory");
    return v;
}

/* Orders this thread's accesses made through the multicast and unicast mappings of the same
 * memory (virtual aliases are different proxies in the PTX memory model). */
__device__ __forceinline__ void fence_proxy_alias() {
    asm volatile("fence.proxy.alias;" ::: "memory");
}

/* A flag the host writes into mapped pinned memory: read past every cache. */
__device__ __forceinline__ uint32_t ld_volatile_sys_u32(const volatile uint32_t *p) {
    uint32_t v;
    asm volatile("ld.volatile.global.u32 %0, [%1];" : "=r"(v) : "l"(gaddr((const void *)p)) : "memory");
    return v;
}

__device__ __forceinline__ void nanosleep_ns(uint32_t ns) { __nanosleep(ns); }

/* Programmatic dependent launch (sm_90 and up; no-ops below, and in a kernel not launched with
 * programmatic stream serialization). The first lets the next kernel on the stream launch now
 * (it still waits in its own griddep_wait); the second waits until the kernels before this one
 * have completed and their memory is visible. A kernel launched with the attribute must call
 * griddep_wait before it touches anything an earlier kernel wrote: the host sets the attribute
 * only for kernels built for sm_90 or newer (mcoll_launch_pdl_available). */
__device__ __forceinline__ void griddep_launch_dependents() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

__device__ __forceinline__ void griddep_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

__device__ __forceinline__ uint64_t globaltimer_ns() {
    uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/* ---- 16-byte accesses to symmetric memory (unicast mappings) ----------------------------- */

__device__ __forceinline__ uint4 ld_global_v4(const void *p) {
    uint4 v;
    asm volatile("ld.global.v4.b32 {%0,%1,%2,%3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(gaddr(p)) : "memory");
    return v;
}

/* Narrower loads, for the emulated multimem layer's 4- and 8-byte requests. */
__device__ __forceinline__ uint32_t ld_global_u32(const void *p) {
    uint32_t v;
    asm volatile("ld.global.u32 %0, [%1];" : "=r"(v) : "l"(gaddr(p)) : "memory");
    return v;
}

__device__ __forceinline__ uint64_t ld_global_u64(const void *p) {
    uint64_t v;
    asm volatile("ld.global.u64 %0, [%1];" : "=l"(v) : "l"(gaddr(p)) : "memory");
    return v;
}

__device__ __forceinline__ void st_global_v4(void *p, uint4 v) {
    asm volatile("st.global.v4.b32 [%0], {%1,%2,%3,%4};"
                 ::"l"(gaddr(p)), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w) : "memory");
}

/* ---- multimem: store to every GPU ------------------------------------------------------- */

/* .f32 is only the vector's bit layout here: a store moves the bits unchanged. */
__device__ __forceinline__ void multimem_st_v4f32(void *mc, uint4 v) {
#if MCOLL_MULTIMEM_ISA
    asm volatile("multimem.st.global.v4.f32 [%0], {%1,%2,%3,%4};"
                 ::"l"(gaddr(mc)), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w) : "memory");
#else
    (void)mc; (void)v;
    __trap();
#endif
}

/* ---- multimem: load from every GPU, reduced in the switch -------------------------------- */

#if MCOLL_MULTIMEM_ISA
#define MCOLL_MM_V4(name, instr)                                                              \
    __device__ __forceinline__ uint4 name(const void *mc) {                                   \
        uint4 v;                                                                              \
        asm volatile(instr " {%0,%1,%2,%3}, [%4];"                                            \
                     : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(gaddr(mc)) : "memory"); \
        return v;                                                                             \
    }
#define MCOLL_MM_32(name, instr)                                                              \
    __device__ __forceinline__ uint32_t name(const void *mc) {                                \
        uint32_t v;                                                                           \
        asm volatile(instr " %0, [%1];" : "=r"(v) : "l"(gaddr(mc)) : "memory");               \
        return v;                                                                             \
    }
#define MCOLL_MM_64(name, instr)                                                              \
    __device__ __forceinline__ uint64_t name(const void *mc) {                                \
        uint64_t v;                                                                           \
        asm volatile(instr " %0, [%1];" : "=l"(v) : "l"(gaddr(mc)) : "memory");               \
        return v;                                                                             \
    }
#else
#define MCOLL_MM_V4(name, instr) \
    __device__ __forceinline__ uint4 name(const void *) { __trap(); return uint4{}; }
#define MCOLL_MM_32(name, instr) \
    __device__ __forceinline__ uint32_t name(const void *) { __trap(); return 0; }
#define MCOLL_MM_64(name, instr) \
    __device__ __forceinline__ uint64_t name(const void *) { __trap(); return 0; }
#endif

/* Half types sum with .acc::f32 (f32 accumulation in the switch); min/max are exact without. */
MCOLL_MM_V4(multimem_ld_reduce_add_v4f32, "multimem.ld_reduce.global.add.v4.f32")
MCOLL_MM_V4(multimem_ld_reduce_add_acc_f32_v4f16x2, "multimem.ld_reduce.global.add.acc::f32.v4.f16x2")
MCOLL_MM_V4(multimem_ld_reduce_min_v4f16x2, "multimem.ld_reduce.global.min.v4.f16x2")
MCOLL_MM_V4(multimem_ld_reduce_max_v4f16x2, "multimem.ld_reduce.global.max.v4.f16x2")
MCOLL_MM_V4(multimem_ld_reduce_add_acc_f32_v4bf16x2, "multimem.ld_reduce.global.add.acc::f32.v4.bf16x2")
MCOLL_MM_V4(multimem_ld_reduce_min_v4bf16x2, "multimem.ld_reduce.global.min.v4.bf16x2")
MCOLL_MM_V4(multimem_ld_reduce_max_v4bf16x2, "multimem.ld_reduce.global.max.v4.bf16x2")
/* Integer forms have no vector variant. */
MCOLL_MM_32(multimem_ld_reduce_add_u32, "multimem.ld_reduce.global.add.u32")
MCOLL_MM_32(multimem_ld_reduce_min_u32, "multimem.ld_reduce.global.min.u32")
MCOLL_MM_32(multimem_ld_reduce_max_u32, "multimem.ld_reduce.global.max.u32")
MCOLL_MM_32(multimem_ld_reduce_min_s32, "multimem.ld_reduce.global.min.s32")
MCOLL_MM_32(multimem_ld_reduce_max_s32, "multimem.ld_reduce.global.max.s32")
MCOLL_MM_64(multimem_ld_reduce_add_f64, "multimem.ld_reduce.global.add.f64")
MCOLL_MM_64(multimem_ld_reduce_add_u64, "multimem.ld_reduce.global.add.u64")
MCOLL_MM_64(multimem_ld_reduce_min_u64, "multimem.ld_reduce.global.min.u64")
MCOLL_MM_64(multimem_ld_reduce_max_u64, "multimem.ld_reduce.global.max.u64")
MCOLL_MM_64(multimem_ld_reduce_min_s64, "multimem.ld_reduce.global.min.s64")
MCOLL_MM_64(multimem_ld_reduce_max_s64, "multimem.ld_reduce.global.max.s64")
MCOLL_MM_64(multimem_ld_reduce_and_b64, "multimem.ld_reduce.global.and.b64")
MCOLL_MM_64(multimem_ld_reduce_or_b64, "multimem.ld_reduce.global.or.b64")
MCOLL_MM_64(multimem_ld_reduce_xor_b64, "multimem.ld_reduce.global.xor.b64")

#undef MCOLL_MM_V4
#undef MCOLL_MM_32
#undef MCOLL_MM_64

} // namespace mcoll
#endif /* MCOLL_PTX_CUH */
