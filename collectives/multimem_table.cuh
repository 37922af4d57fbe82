/* What multimem.ld_reduce can do: bytes reduced by one instruction for (datatype, op), 0 when
 * it cannot (that call runs on the unicast layer). The one place that answers the question;
 * mcoll_multimem_supports() and the launchers read it, and the multimem access layer
 * implements exactly these entries (an entry without an implementation fails to compile).
 *
 * Integer sums and bitwise ops do not depend on signedness, so int32 sums run as .u32 and
 * every bitwise op runs on .b64 lanes; .add.s64 does not exist but .add.u64 gives the same
 * bits. The ISA has no float/double min/max and no product at all. */
#ifndef MCOLL_MULTIMEM_TABLE_CUH
#define MCOLL_MULTIMEM_TABLE_CUH

#include "launch.h"

namespace mcoll {

/*                                  SUM PROD MIN MAX BAND BOR BXOR */
inline constexpr unsigned char kMultimemWidth[MCOLL_NUM_DTYPES][MCOLL_NUM_OPS] = {
    /* F32  .add.v4.f32             */ {16, 0, 0, 0, 0, 0, 0},
    /* F64  .add.f64                */ {8, 0, 0, 0, 0, 0, 0},
    /* F16  .add.acc::f32.v4.f16x2, .min/.max.v4.f16x2 */ {16, 0, 16, 16, 0, 0, 0},
    /* BF16 .add.acc::f32.v4.bf16x2, .min/.max.v4.bf16x2 */ {16, 0, 16, 16, 0, 0, 0},
    /* I32  .add.u32 .min/.max.s32 .and/.or/.xor.b64 */ {4, 0, 4, 4, 8, 8, 8},
    /* U32  .add/.min/.max.u32 .and/.or/.xor.b64     */ {4, 0, 4, 4, 8, 8, 8},
    /* I64  .add.u64 .min/.max.s64 .and/.or/.xor.b64 */ {8, 0, 8, 8, 8, 8, 8},
    /* U64  .add/.min/.max.u64 .and/.or/.xor.b64     */ {8, 0, 8, 8, 8, 8, 8},
};

constexpr int multimem_width(mcoll_dtype d, mcoll_op o) { return kMultimemWidth[d][o]; }

} // namespace mcoll
#endif /* MCOLL_MULTIMEM_TABLE_CUH */
