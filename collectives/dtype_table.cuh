/* What the kernels reduce: for each datatype its element size (the MPI extent), the padding
 * that follows the last element's data, and the ops the kernels implement on it. The one place
 * that answers "can the kernels do op X on type Y"; mcoll_reduce_supported(), mcoll_dtype_size(),
 * mcoll_dtype_span(), the launchers and src/dtype.c (through those functions) read it, and only
 * the (datatype, op) pairs it lists are instantiated. How each pair is computed is KindOf in
 * reduce_ops.cuh; whether multimem can do it is multimem_table.cuh.
 *
 * The set is MPI's (its predefined reduction operations), with arithmetic on 8-bit integers for every char handle
 * (Open MPI accepts MPI_CHAR with them; the plug-in refuses what the MPI below refuses before
 * asking): integers take arithmetic, ordering, bitwise and logical ops; floats arithmetic and
 * ordering; complex numbers sums and products; MPI_BYTE bitwise ops; C bool logical ops; the
 * value-index pairs MINLOC and MAXLOC. */
#ifndef MCOLL_DTYPE_TABLE_CUH
#define MCOLL_DTYPE_TABLE_CUH

#include <stddef.h>
#include <type_traits>
#include "launch.h"

namespace mcoll {

constexpr unsigned op_bit(mcoll_op o) { return 1u << o; }
constexpr unsigned kArith = op_bit(MCOLL_SUM) | op_bit(MCOLL_PROD);
constexpr unsigned kOrder = op_bit(MCOLL_MIN) | op_bit(MCOLL_MAX);
constexpr unsigned kBits = op_bit(MCOLL_BAND) | op_bit(MCOLL_BOR) | op_bit(MCOLL_BXOR);
constexpr unsigned kLogic = op_bit(MCOLL_LAND) | op_bit(MCOLL_LOR) | op_bit(MCOLL_LXOR);
constexpr unsigned kLoc = op_bit(MCOLL_MINLOC) | op_bit(MCOLL_MAXLOC);
constexpr unsigned kInt = kArith | kOrder | kBits | kLogic;

struct DtypeRow {
    unsigned char size; /* bytes per element, padding included */
    unsigned char tail; /* padding bytes after the data of an element (never read or written
                           after the last one) */
    unsigned short ops; /* op_bit() of every op the kernels do on it */
};

inline constexpr DtypeRow kDtypes[MCOLL_NUM_DTYPES] = {
    /* F32     */ {4, 0, kArith | kOrder},
    /* F64     */ {8, 0, kArith | kOrder},
    /* F16     */ {2, 0, kArith | kOrder},
    /* BF16    */ {2, 0, kArith | kOrder},
    /* I32     */ {4, 0, kInt},
    /* U32     */ {4, 0, kInt},
    /* I64     */ {8, 0, kInt},
    /* U64     */ {8, 0, kInt},
    /* I8      */ {1, 0, kInt},
    /* U8      */ {1, 0, kInt},
    /* I16     */ {2, 0, kInt},
    /* U16     */ {2, 0, kInt},
    /* BYTE    */ {1, 0, kBits},
    /* BOOL    */ {1, 0, kLogic},
    /* CF32    */ {8, 0, kArith},
    /* CF64    */ {16, 0, kArith},
    /* F32_I32 */ {8, 0, kLoc},  /* {float; int}: no padding */
    /* F64_I32 */ {16, 4, kLoc}, /* {double; int}: 4 bytes after the index */
    /* I64_I32 */ {16, 4, kLoc}, /* {long; int} */
    /* I32_I32 */ {8, 0, kLoc},  /* {int; int} */
    /* I16_I32 */ {8, 0, kLoc},  /* {short; int}: 2 bytes between value and index */
};

constexpr bool reduce_supported(mcoll_dtype d, mcoll_op o) {
    return (unsigned)d < MCOLL_NUM_DTYPES && (unsigned)o < MCOLL_NUM_OPS && ((kDtypes[d].ops >> o) & 1u);
}

constexpr size_t dtype_size(mcoll_dtype d) { return (unsigned)d < MCOLL_NUM_DTYPES ? kDtypes[d].size : 0; }

constexpr size_t dtype_span(mcoll_dtype d, size_t count) {
    return count == 0 || (unsigned)d >= MCOLL_NUM_DTYPES ? 0 : count * kDtypes[d].size - kDtypes[d].tail;
}

/* reduce_supported() as a constant that device code can test too. */
template <mcoll_dtype D, mcoll_op O> struct Reducible {
    static constexpr bool value = reduce_supported(D, O);
};

/* The one switch over the ops: f(std::integral_constant<mcoll_op, O>{}) for the op O that `op`
 * names, when the kernels reduce D with it (only those pairs are instantiated); otherwise
 * `otherwise`. Host launchers and the LL kernels' run-time dispatch both use it. */
#pragma nv_exec_check_disable
template <mcoll_dtype D, class R, class F>
__host__ __device__ inline R visit_op(mcoll_op op, R otherwise, F &&f) {
    switch (op) {
#define MCOLL_VISIT_OP(O)                                                                        \
    case O:                                                                                      \
        if constexpr (Reducible<D, O>::value) return f(std::integral_constant<mcoll_op, O>{}); \
        else return otherwise;
    MCOLL_VISIT_OP(MCOLL_SUM) MCOLL_VISIT_OP(MCOLL_PROD) MCOLL_VISIT_OP(MCOLL_MIN) MCOLL_VISIT_OP(MCOLL_MAX)
    MCOLL_VISIT_OP(MCOLL_BAND) MCOLL_VISIT_OP(MCOLL_BOR) MCOLL_VISIT_OP(MCOLL_BXOR) MCOLL_VISIT_OP(MCOLL_LAND)
    MCOLL_VISIT_OP(MCOLL_LOR) MCOLL_VISIT_OP(MCOLL_LXOR) MCOLL_VISIT_OP(MCOLL_MINLOC) MCOLL_VISIT_OP(MCOLL_MAXLOC)
#undef MCOLL_VISIT_OP
    default: return otherwise;
    }
}

} // namespace mcoll
#endif /* MCOLL_DTYPE_TABLE_CUH */
