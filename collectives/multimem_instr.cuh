/* The multimem.ld_reduce forms the multimem layer issues, one line each: what the switch
 * computes (a Kind: lane type and op, reduce_ops.cuh), how many bytes one request reduces (the
 * size of `word`), and the PTX helper that issues it. The switch port calls the helper on the
 * multicast address; the emulating port (tests) computes the same Kind over every rank's
 * alias of the same bytes. Half types sum with .acc::f32, which Kind<__half, SUM> also does
 * (it accumulates in float and rounds once). */
#ifndef MCOLL_MULTIMEM_INSTR_CUH
#define MCOLL_MULTIMEM_INSTR_CUH

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include "ptx.cuh"
#include "reduce_ops.cuh"

namespace mcoll {

#define MCOLL_MM_LD_REDUCE(Name, helper, Lane, Op, Word)                                     \
    struct Name {                                                                          \
        using kind = Kind<Lane, Op>;                                                       \
        using word = Word;                                                                 \
        static __device__ __forceinline__ word on_switch(const void *mc) { return helper(mc); } \
    };

MCOLL_MM_LD_REDUCE(MmAddV4F32, multimem_ld_reduce_add_v4f32, float, MCOLL_SUM, uint4)
MCOLL_MM_LD_REDUCE(MmAddAccF32V4F16x2, multimem_ld_reduce_add_acc_f32_v4f16x2, __half, MCOLL_SUM, uint4)
MCOLL_MM_LD_REDUCE(MmMinV4F16x2, multimem_ld_reduce_min_v4f16x2, __half, MCOLL_MIN, uint4)
MCOLL_MM_LD_REDUCE(MmMaxV4F16x2, multimem_ld_reduce_max_v4f16x2, __half, MCOLL_MAX, uint4)
MCOLL_MM_LD_REDUCE(MmAddAccF32V4BF16x2, multimem_ld_reduce_add_acc_f32_v4bf16x2, __nv_bfloat16, MCOLL_SUM, uint4)
MCOLL_MM_LD_REDUCE(MmMinV4BF16x2, multimem_ld_reduce_min_v4bf16x2, __nv_bfloat16, MCOLL_MIN, uint4)
MCOLL_MM_LD_REDUCE(MmMaxV4BF16x2, multimem_ld_reduce_max_v4bf16x2, __nv_bfloat16, MCOLL_MAX, uint4)
MCOLL_MM_LD_REDUCE(MmAddU32, multimem_ld_reduce_add_u32, uint32_t, MCOLL_SUM, uint32_t)
MCOLL_MM_LD_REDUCE(MmMinU32, multimem_ld_reduce_min_u32, uint32_t, MCOLL_MIN, uint32_t)
MCOLL_MM_LD_REDUCE(MmMaxU32, multimem_ld_reduce_max_u32, uint32_t, MCOLL_MAX, uint32_t)
MCOLL_MM_LD_REDUCE(MmMinS32, multimem_ld_reduce_min_s32, int32_t, MCOLL_MIN, uint32_t)
MCOLL_MM_LD_REDUCE(MmMaxS32, multimem_ld_reduce_max_s32, int32_t, MCOLL_MAX, uint32_t)
MCOLL_MM_LD_REDUCE(MmAddF64, multimem_ld_reduce_add_f64, double, MCOLL_SUM, uint64_t)
MCOLL_MM_LD_REDUCE(MmAddU64, multimem_ld_reduce_add_u64, uint64_t, MCOLL_SUM, uint64_t)
MCOLL_MM_LD_REDUCE(MmMinU64, multimem_ld_reduce_min_u64, uint64_t, MCOLL_MIN, uint64_t)
MCOLL_MM_LD_REDUCE(MmMaxU64, multimem_ld_reduce_max_u64, uint64_t, MCOLL_MAX, uint64_t)
MCOLL_MM_LD_REDUCE(MmMinS64, multimem_ld_reduce_min_s64, int64_t, MCOLL_MIN, uint64_t)
MCOLL_MM_LD_REDUCE(MmMaxS64, multimem_ld_reduce_max_s64, int64_t, MCOLL_MAX, uint64_t)
MCOLL_MM_LD_REDUCE(MmAndB64, multimem_ld_reduce_and_b64, uint64_t, MCOLL_BAND, uint64_t)
MCOLL_MM_LD_REDUCE(MmOrB64, multimem_ld_reduce_or_b64, uint64_t, MCOLL_BOR, uint64_t)
MCOLL_MM_LD_REDUCE(MmXorB64, multimem_ld_reduce_xor_b64, uint64_t, MCOLL_BXOR, uint64_t)

#undef MCOLL_MM_LD_REDUCE

} // namespace mcoll
#endif /* MCOLL_MULTIMEM_INSTR_CUH */
