/* Reduction kinds, ops and 16-byte pack arithmetic for the unicast layer.
 *
 * A kind is (element type in memory, op). Several (datatype, op) pairs share one kind, so each
 * kind's kernels are built once: integer sums and products do not depend on signedness (they
 * run unsigned, which also makes overflow wrap instead of being undefined), and bitwise ops on
 * any integer width run on 32-bit words. Half and bfloat16 accumulate in float. */
#ifndef MCOLL_REDUCE_OPS_CUH
#define MCOLL_REDUCE_OPS_CUH

#include <stdint.h>
#include <math.h>
#include <type_traits>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include "launch.h"

namespace mcoll {

template <mcoll_dtype D> struct Elem;
template <> struct Elem<MCOLL_F32> { using type = float; };
template <> struct Elem<MCOLL_F64> { using type = double; };
template <> struct Elem<MCOLL_F16> { using type = __half; };
template <> struct Elem<MCOLL_BF16> { using type = __nv_bfloat16; };
template <> struct Elem<MCOLL_I32> { using type = int32_t; };
template <> struct Elem<MCOLL_U32> { using type = uint32_t; };
template <> struct Elem<MCOLL_I64> { using type = int64_t; };
template <> struct Elem<MCOLL_U64> { using type = uint64_t; };

template <class T> struct Wide { using type = T; };
template <> struct Wide<__half> { using type = float; };
template <> struct Wide<__nv_bfloat16> { using type = float; };

template <class T, int Op> struct Kind {
    using elem = T;
    using acc = typename Wide<T>::type;
    static constexpr int op = Op;
    static constexpr int lanes = 16 / sizeof(T);
    /* The result does not depend on the order peers are combined in. */
    static constexpr bool order_free =
        !std::is_floating_point<acc>::value || Op == MCOLL_MIN || Op == MCOLL_MAX;
};

template <class T, bool = std::is_integral<T>::value> struct AsUnsigned { using type = T; };
template <class T> struct AsUnsigned<T, true> { using type = typename std::make_unsigned<T>::type; };

template <mcoll_dtype D, mcoll_op O> struct KindOf {
    using T = typename Elem<D>::type;
    static constexpr bool bitwise = O == MCOLL_BAND || O == MCOLL_BOR || O == MCOLL_BXOR;
    static constexpr bool ordered = O == MCOLL_MIN || O == MCOLL_MAX;
    using type = typename std::conditional<
        bitwise, Kind<uint32_t, O>,
        typename std::conditional<std::is_integral<T>::value && !ordered,
                                  Kind<typename AsUnsigned<T>::type, O>, Kind<T, O>>::type>::type;
};

template <class K> struct Acc { typename K::acc v[K::lanes]; };

template <class K> __device__ __forceinline__ Acc<K> widen(uint4 b) {
    using T = typename K::elem;
    const uint32_t w[4] = {b.x, b.y, b.z, b.w};
    Acc<K> a;
#pragma unroll
    for (int i = 0; i < 4; i++) {
        if constexpr (std::is_same<T, __half>::value) {
            a.v[2 * i] = __half2float(__ushort_as_half((unsigned short)(w[i] & 0xffffu)));
            a.v[2 * i + 1] = __half2float(__ushort_as_half((unsigned short)(w[i] >> 16)));
        } else if constexpr (std::is_same<T, __nv_bfloat16>::value) {
            a.v[2 * i] = __uint_as_float(w[i] << 16); /* bfloat16 is the top half of a float */
            a.v[2 * i + 1] = __uint_as_float(w[i] & 0xffff0000u);
        } else if constexpr (std::is_same<T, float>::value) {
            a.v[i] = __uint_as_float(w[i]);
        } else if constexpr (sizeof(T) == 4) {
            a.v[i] = (T)w[i];
        } else if (i % 2 == 0) {
            const uint64_t u = (uint64_t)w[i] | ((uint64_t)w[i + 1] << 32);
            if constexpr (std::is_same<T, double>::value)
                a.v[i / 2] = __longlong_as_double((long long)u);
            else
                a.v[i / 2] = (T)u;
        }
    }
    return a;
}

template <class K> __device__ __forceinline__ uint4 narrow(const Acc<K> &a) {
    using T = typename K::elem;
    uint32_t w[4];
#pragma unroll
    for (int i = 0; i < 4; i++) {
        if constexpr (std::is_same<T, __half>::value) {
            w[i] = (uint32_t)__half_as_ushort(__float2half_rn(a.v[2 * i])) |
                   ((uint32_t)__half_as_ushort(__float2half_rn(a.v[2 * i + 1])) << 16);
        } else if constexpr (std::is_same<T, __nv_bfloat16>::value) {
            w[i] = (uint32_t)__bfloat16_as_ushort(__float2bfloat16_rn(a.v[2 * i])) |
                   ((uint32_t)__bfloat16_as_ushort(__float2bfloat16_rn(a.v[2 * i + 1])) << 16);
        } else if constexpr (std::is_same<T, float>::value) {
            w[i] = __float_as_uint(a.v[i]);
        } else if constexpr (sizeof(T) == 4) {
            w[i] = (uint32_t)a.v[i];
        } else {
            uint64_t u;
            if constexpr (std::is_same<T, double>::value)
                u = (uint64_t)__double_as_longlong(a.v[i / 2]);
            else
                u = (uint64_t)a.v[i / 2];
            w[i] = (i % 2 == 0) ? (uint32_t)u : (uint32_t)(u >> 32);
        }
    }
    return make_uint4(w[0], w[1], w[2], w[3]);
}

template <int Op, class A> __device__ __forceinline__ A apply(A a, A b) {
    if constexpr (Op == MCOLL_SUM) {
        return a + b;
    } else if constexpr (Op == MCOLL_PROD) {
        return a * b;
    } else if constexpr (Op == MCOLL_MIN) {
        if constexpr (std::is_same<A, float>::value) return fminf(a, b);
        else if constexpr (std::is_same<A, double>::value) return fmin(a, b);
        else return b < a ? b : a;
    } else if constexpr (Op == MCOLL_MAX) {
        if constexpr (std::is_same<A, float>::value) return fmaxf(a, b);
        else if constexpr (std::is_same<A, double>::value) return fmax(a, b);
        else return a < b ? b : a;
    } else if constexpr (Op == MCOLL_BAND) {
        return a & b;
    } else if constexpr (Op == MCOLL_BOR) {
        return a | b;
    } else {
        static_assert(Op == MCOLL_BXOR, "unknown op");
        return a ^ b;
    }
}

/* x op identity == x for every x (float sums start at -0.0 so that -0.0 survives; float min/max
 * start at NaN, which fminf/fmaxf drop). */
template <class K> __device__ __forceinline__ Acc<K> identity() {
    using A = typename K::acc;
    A e;
    if constexpr (K::op == MCOLL_SUM) e = std::is_floating_point<A>::value ? (A)-0.0 : (A)0;
    else if constexpr (K::op == MCOLL_PROD) e = (A)1;
    else if constexpr (K::op == MCOLL_MIN || K::op == MCOLL_MAX) {
        if constexpr (std::is_floating_point<A>::value) e = (A)NAN;
        else {
            using U = typename std::make_unsigned<A>::type;
            const A top = std::is_signed<A>::value ? (A)((U)~(U)0 >> 1) : (A)~(U)0;
            e = K::op == MCOLL_MIN ? top : (A)(std::is_signed<A>::value ? -top - 1 : 0);
        }
    } else if constexpr (K::op == MCOLL_BAND) e = (A)~(A)0;
    else e = (A)0;
    Acc<K> a;
#pragma unroll
    for (int i = 0; i < K::lanes; i++) a.v[i] = e;
    return a;
}

template <class K> __device__ __forceinline__ void combine(Acc<K> &a, const Acc<K> &b) {
#pragma unroll
    for (int i = 0; i < K::lanes; i++) a.v[i] = apply<K::op>(a.v[i], b.v[i]);
}

} // namespace mcoll
#endif /* MCOLL_REDUCE_OPS_CUH */
