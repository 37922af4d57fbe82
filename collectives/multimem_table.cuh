/* What multimem.ld_reduce can do: bytes reduced by one instruction for (datatype, op), 0 when
 * it cannot (that call runs on the unicast layer). The one place that answers the question;
 * mcoll_multimem_supports() and the launchers read it, and the multimem access layer
 * implements exactly these entries (an entry without an implementation fails to compile).
 *
 * The ISA (and ptxas) take .add on .u32 .s32 .u64 .f32 .f64 and the f16/bf16 vectors, .min and
 * .max on .u32 .s32 .u64 .s64 and the f16/bf16 vectors, .and .or .xor on .b32 .b64 only; no
 * product, no float or double min/max, no 8- or 16-bit integers, nothing logical (MPI's LAND
 * treats any nonzero as true) and no MINLOC/MAXLOC. Integer sums do not depend on signedness,
 * so int32 sums run as .u32 and int64 sums as .u64 (.add.s64 does not exist). Bitwise ops are
 * the same bits at any element width, so every integer and MPI_BYTE runs them on .b64 lanes.
 * A complex sum is the sum of its parts: .add.v4.f32 (two float complex) and .add.f64. */
#ifndef MCOLL_MULTIMEM_TABLE_CUH
#define MCOLL_MULTIMEM_TABLE_CUH

#include "dtype_table.cuh"
#include "launch.h"

namespace mcoll {

/*                           SUM PROD MIN MAX BAND BOR BXOR LAND LOR LXOR MINLOC MAXLOC */
inline constexpr unsigned char kMultimemWidth[MCOLL_NUM_DTYPES][MCOLL_NUM_OPS] = {
    /* F32  .add.v4.f32                  */ {16, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    /* F64  .add.f64                     */ {8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    /* F16  .add.acc::f32.v4.f16x2, .min/.max.v4.f16x2   */ {16, 0, 16, 16, 0, 0, 0, 0, 0, 0, 0, 0},
    /* BF16 .add.acc::f32.v4.bf16x2, .min/.max.v4.bf16x2 */ {16, 0, 16, 16, 0, 0, 0, 0, 0, 0, 0, 0},
    /* I32  .add.u32 .min/.max.s32 .and/.or/.xor.b64     */ {4, 0, 4, 4, 8, 8, 8, 0, 0, 0, 0, 0},
    /* U32  .add/.min/.max.u32 .and/.or/.xor.b64         */ {4, 0, 4, 4, 8, 8, 8, 0, 0, 0, 0, 0},
    /* I64  .add.u64 .min/.max.s64 .and/.or/.xor.b64     */ {8, 0, 8, 8, 8, 8, 8, 0, 0, 0, 0, 0},
    /* U64  .add/.min/.max.u64 .and/.or/.xor.b64         */ {8, 0, 8, 8, 8, 8, 8, 0, 0, 0, 0, 0},
    /* I8   .and/.or/.xor.b64        */ {0, 0, 0, 0, 8, 8, 8, 0, 0, 0, 0, 0},
    /* U8   .and/.or/.xor.b64        */ {0, 0, 0, 0, 8, 8, 8, 0, 0, 0, 0, 0},
    /* I16  .and/.or/.xor.b64        */ {0, 0, 0, 0, 8, 8, 8, 0, 0, 0, 0, 0},
    /* U16  .and/.or/.xor.b64        */ {0, 0, 0, 0, 8, 8, 8, 0, 0, 0, 0, 0},
    /* BYTE .and/.or/.xor.b64        */ {0, 0, 0, 0, 8, 8, 8, 0, 0, 0, 0, 0},
    /* BOOL                          */ {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    /* CF32 .add.v4.f32              */ {16, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    /* CF64 .add.f64                 */ {8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    /* F32_I32                       */ {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    /* F64_I32                       */ {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    /* I64_I32                       */ {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    /* I32_I32                       */ {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    /* I16_I32                       */ {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
};

constexpr int multimem_width(mcoll_dtype d, mcoll_op o) { return kMultimemWidth[d][o]; }

/* Nothing multimem does is outside what the kernels do at all. */
constexpr bool multimem_within_kernels() {
    for (int d = 0; d < MCOLL_NUM_DTYPES; d++)
        for (int o = 0; o < MCOLL_NUM_OPS; o++)
            if (kMultimemWidth[d][o] && !reduce_supported((mcoll_dtype)d, (mcoll_op)o)) return false;
    return true;
}
static_assert(multimem_within_kernels(), "a multimem entry for a pair the kernels do not reduce");

} // namespace mcoll
#endif /* MCOLL_MULTIMEM_TABLE_CUH */
