/* Reduction kinds, ops and 16-byte pack arithmetic for the unicast layer.
 *
 * A kind is (element type in memory, op). Several (datatype, op) pairs share one kind, so each
 * kind's kernels are built once: integer sums and products do not depend on signedness (they
 * run unsigned, which also makes overflow wrap instead of being undefined), bitwise ops on any
 * integer width run on 32-bit words, logical ops only ask "zero or not" (unsigned, of the
 * element's width), and complex sums are sums of their float or double parts. Half and
 * bfloat16 accumulate in float.
 *
 * Everything here is host and device code: tests/unit/test_reduce_ops.cu checks the arithmetic
 * of every kind on the CPU. */
#ifndef MCOLL_REDUCE_OPS_CUH
#define MCOLL_REDUCE_OPS_CUH

#include <stdint.h>
#include <string.h>
#include <math.h>
#include <type_traits>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include "launch.h"

#define MCOLL_HD __host__ __device__ __forceinline__

namespace mcoll {

/* Complex numbers as C lays out float _Complex and double _Complex. */
template <class F> struct Complex {
    F re, im;
};

/* A MINLOC/MAXLOC pair as C lays out struct {V value; int index;}: the index starts at the
 * next 4-byte boundary (8 for 8-byte values) and padding fills the struct to its alignment. */
template <class V> struct Loc {
    V value;
    int32_t index;
    static constexpr int index_word = sizeof(V) > 4 ? 2 : 1; /* 32-bit word holding the index */
};

template <mcoll_dtype D> struct Elem;
template <> struct Elem<MCOLL_F32> { using type = float; };
template <> struct Elem<MCOLL_F64> { using type = double; };
template <> struct Elem<MCOLL_F16> { using type = __half; };
template <> struct Elem<MCOLL_BF16> { using type = __nv_bfloat16; };
template <> struct Elem<MCOLL_I32> { using type = int32_t; };
template <> struct Elem<MCOLL_U32> { using type = uint32_t; };
template <> struct Elem<MCOLL_I64> { using type = int64_t; };
template <> struct Elem<MCOLL_U64> { using type = uint64_t; };
template <> struct Elem<MCOLL_I8> { using type = int8_t; };
template <> struct Elem<MCOLL_U8> { using type = uint8_t; };
template <> struct Elem<MCOLL_I16> { using type = int16_t; };
template <> struct Elem<MCOLL_U16> { using type = uint16_t; };
template <> struct Elem<MCOLL_BYTE> { using type = uint8_t; };
template <> struct Elem<MCOLL_BOOL> { using type = uint8_t; }; /* C _Bool: one byte */
template <> struct Elem<MCOLL_CF32> { using type = Complex<float>; };
template <> struct Elem<MCOLL_CF64> { using type = Complex<double>; };
template <> struct Elem<MCOLL_F32_I32> { using type = Loc<float>; };
template <> struct Elem<MCOLL_F64_I32> { using type = Loc<double>; };
template <> struct Elem<MCOLL_I64_I32> { using type = Loc<int64_t>; };
template <> struct Elem<MCOLL_I32_I32> { using type = Loc<int32_t>; };
template <> struct Elem<MCOLL_I16_I32> { using type = Loc<int16_t>; };

template <class T> struct IsComplex : std::false_type {};
template <class F> struct IsComplex<Complex<F>> : std::true_type {};
template <class T> struct IsLoc : std::false_type {};
template <class V> struct IsLoc<Loc<V>> : std::true_type {};

/* The real type a complex number is made of (other types: themselves). */
template <class T> struct ScalarOf { using type = T; };
template <class F> struct ScalarOf<Complex<F>> { using type = F; };

template <class T> struct Wide { using type = T; };
template <> struct Wide<__half> { using type = float; };
template <> struct Wide<__nv_bfloat16> { using type = float; };

template <class T, int Op> struct Kind {
    using elem = T;
    using acc = typename Wide<T>::type;
    static constexpr int op = Op;
    static constexpr int lanes = 16 / sizeof(T);
    static_assert(16 % sizeof(T) == 0, "elements must tile a 16-byte pack");
    /* The result does not depend on the order peers are combined in. */
    static constexpr bool order_free = !std::is_floating_point<typename ScalarOf<acc>::type>::value ||
                                       Op == MCOLL_MIN || Op == MCOLL_MAX;
};

template <class T, bool = std::is_integral<T>::value> struct AsUnsigned { using type = T; };
template <class T> struct AsUnsigned<T, true> { using type = typename std::make_unsigned<T>::type; };

template <mcoll_dtype D, mcoll_op O> struct KindOf {
    using T = typename Elem<D>::type;
    static constexpr bool bitwise = O == MCOLL_BAND || O == MCOLL_BOR || O == MCOLL_BXOR;
    static constexpr bool logical = O == MCOLL_LAND || O == MCOLL_LOR || O == MCOLL_LXOR;
    static constexpr bool ordered = O == MCOLL_MIN || O == MCOLL_MAX;
    using type = typename std::conditional<
        bitwise, Kind<uint32_t, O>,
        typename std::conditional<
            logical || (std::is_integral<T>::value && !ordered), Kind<typename AsUnsigned<T>::type, O>,
            typename std::conditional<IsComplex<T>::value && O == MCOLL_SUM,
                                      Kind<typename ScalarOf<T>::type, O>, Kind<T, O>>::type>::type>::type;
};

template <class K> struct Acc { typename K::acc v[K::lanes]; };

/* The bits of `f` as a `To` of the same size. */
template <class To, class From> MCOLL_HD To bits_as(const From &f) {
    static_assert(sizeof(To) == sizeof(From), "same size only");
    To t;
    memcpy(&t, &f, sizeof t);
    return t;
}

/* An element of 4 bytes or more starting at 32-bit word w[0] of a pack, and back. Stores
 * leave padding alone: narrow() zeroes the pack first, so results never carry stale bytes. */
template <class T> MCOLL_HD T elem_from_words(const uint32_t *w) {
    if constexpr (IsComplex<T>::value) {
        using F = typename ScalarOf<T>::type;
        T x;
        x.re = elem_from_words<F>(w);
        x.im = elem_from_words<F>(w + sizeof(F) / 4);
        return x;
    } else if constexpr (IsLoc<T>::value) {
        using V = decltype(T::value);
        T x;
        if constexpr (sizeof(V) == 2) x.value = bits_as<V>((uint16_t)w[0]);
        else x.value = elem_from_words<V>(w);
        x.index = (int32_t)w[T::index_word];
        return x;
    } else if constexpr (sizeof(T) == 4) {
        return bits_as<T>(w[0]);
    } else {
        static_assert(sizeof(T) == 8, "4- or 8-byte scalars");
        return bits_as<T>((uint64_t)w[0] | ((uint64_t)w[1] << 32));
    }
}

template <class T> MCOLL_HD void elem_to_words(uint32_t *w, const T &x) {
    if constexpr (IsComplex<T>::value) {
        using F = typename ScalarOf<T>::type;
        elem_to_words<F>(w, x.re);
        elem_to_words<F>(w + sizeof(F) / 4, x.im);
    } else if constexpr (IsLoc<T>::value) {
        using V = decltype(T::value);
        if constexpr (sizeof(V) == 2) w[0] = bits_as<uint16_t>(x.value);
        else elem_to_words<V>(w, x.value);
        w[T::index_word] = (uint32_t)x.index; /* padding: the zeros narrow() starts from */
    } else if constexpr (sizeof(T) == 4) {
        w[0] = bits_as<uint32_t>(x);
    } else {
        static_assert(sizeof(T) == 8, "4- or 8-byte scalars");
        const uint64_t u = bits_as<uint64_t>(x);
        w[0] = (uint32_t)u;
        w[1] = (uint32_t)(u >> 32);
    }
}

template <class K> MCOLL_HD Acc<K> widen(uint4 b) {
    using T = typename K::elem;
    const uint32_t w[4] = {b.x, b.y, b.z, b.w};
    Acc<K> a;
    if constexpr (std::is_same<T, __half>::value) {
#pragma unroll
        for (int i = 0; i < 4; i++) {
            a.v[2 * i] = __half2float(__ushort_as_half((unsigned short)(w[i] & 0xffffu)));
            a.v[2 * i + 1] = __half2float(__ushort_as_half((unsigned short)(w[i] >> 16)));
        }
    } else if constexpr (std::is_same<T, __nv_bfloat16>::value) {
#pragma unroll
        for (int i = 0; i < 4; i++) {
            a.v[2 * i] = bits_as<float>(w[i] << 16); /* bfloat16 is the top half of a float */
            a.v[2 * i + 1] = bits_as<float>(w[i] & 0xffff0000u);
        }
    } else if constexpr (sizeof(T) < 4) {
        using U = typename std::make_unsigned<T>::type;
        constexpr int per = 4 / sizeof(T);
#pragma unroll
        for (int i = 0; i < 4; i++) {
#pragma unroll
            for (int j = 0; j < per; j++) a.v[i * per + j] = bits_as<T>((U)(w[i] >> (8 * sizeof(T) * j)));
        }
    } else {
        constexpr int words = sizeof(T) / 4;
#pragma unroll
        for (int l = 0; l < K::lanes; l++) a.v[l] = elem_from_words<T>(w + l * words);
    }
    return a;
}

template <class K> MCOLL_HD uint4 narrow(const Acc<K> &a) {
    using T = typename K::elem;
    uint32_t w[4] = {0, 0, 0, 0};
    if constexpr (std::is_same<T, __half>::value) {
#pragma unroll
        for (int i = 0; i < 4; i++)
            w[i] = (uint32_t)__half_as_ushort(__float2half_rn(a.v[2 * i])) |
                   ((uint32_t)__half_as_ushort(__float2half_rn(a.v[2 * i + 1])) << 16);
    } else if constexpr (std::is_same<T, __nv_bfloat16>::value) {
#pragma unroll
        for (int i = 0; i < 4; i++)
            w[i] = (uint32_t)__bfloat16_as_ushort(__float2bfloat16_rn(a.v[2 * i])) |
                   ((uint32_t)__bfloat16_as_ushort(__float2bfloat16_rn(a.v[2 * i + 1])) << 16);
    } else if constexpr (sizeof(T) < 4) {
        using U = typename std::make_unsigned<T>::type;
        constexpr int per = 4 / sizeof(T);
#pragma unroll
        for (int i = 0; i < 4; i++) {
#pragma unroll
            for (int j = 0; j < per; j++) w[i] |= (uint32_t)bits_as<U>(a.v[i * per + j]) << (8 * sizeof(T) * j);
        }
    } else {
        constexpr int words = sizeof(T) / 4;
#pragma unroll
        for (int l = 0; l < K::lanes; l++) elem_to_words<T>(w + l * words, a.v[l]);
    }
    return make_uint4(w[0], w[1], w[2], w[3]);
}

/* Largest and smallest values of a type: integers from their bits, floats infinite. */
template <class A> MCOLL_HD A highest() {
    if constexpr (std::is_floating_point<A>::value) {
        return (A)INFINITY;
    } else {
        using U = typename std::make_unsigned<A>::type;
        return std::is_signed<A>::value ? (A)((U)~(U)0 >> 1) : (A)~(U)0;
    }
}

template <class A> MCOLL_HD A lowest() {
    if constexpr (std::is_floating_point<A>::value) return (A)-INFINITY;
    else return std::is_signed<A>::value ? (A)(-highest<A>() - 1) : (A)0;
}

/* a op b. MINLOC and MAXLOC keep the smaller index when the values tie (MPI's rule); on
 * complex numbers only the product reaches here (sums run on the parts). */
template <int Op, class A> MCOLL_HD A apply(A a, A b) {
    if constexpr (IsLoc<A>::value) {
        static_assert(Op == MCOLL_MINLOC || Op == MCOLL_MAXLOC, "pairs take MINLOC and MAXLOC only");
        if (Op == MCOLL_MINLOC ? b.value < a.value : a.value < b.value) return b;
        if (Op == MCOLL_MINLOC ? a.value < b.value : b.value < a.value) return a;
        if (b.index < a.index) a.index = b.index;
        return a;
    } else if constexpr (IsComplex<A>::value) {
        static_assert(Op == MCOLL_PROD, "complex sums run on the parts");
        A p;
        p.re = a.re * b.re - a.im * b.im;
        p.im = a.re * b.im + a.im * b.re;
        return p;
    } else if constexpr (Op == MCOLL_SUM) {
        return (A)(a + b); /* integers narrower than int: promoted, then wrapped by the cast */
    } else if constexpr (Op == MCOLL_PROD) {
        /* Narrow unsigned integers promote to (signed) int, where a product may overflow. */
        if constexpr (std::is_integral<A>::value && sizeof(A) < 4) return (A)((uint32_t)a * (uint32_t)b);
        else return a * b;
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
    } else if constexpr (Op == MCOLL_BXOR) {
        return a ^ b;
    } else if constexpr (Op == MCOLL_LAND) {
        return (A)(a != 0 && b != 0);
    } else if constexpr (Op == MCOLL_LOR) {
        return (A)(a != 0 || b != 0);
    } else {
        static_assert(Op == MCOLL_LXOR, "unknown op");
        return (A)((a != 0) != (b != 0));
    }
}

/* x op identity == x for every x (float sums start at -0.0 so that -0.0 survives; float min/max
 * start at NaN, which fminf/fmaxf drop; logical ops give 0 or 1 even from one rank). */
template <class A, int Op> MCOLL_HD A identity_value() {
    if constexpr (IsLoc<A>::value) {
        using V = decltype(A::value);
        A e;
        e.value = Op == MCOLL_MINLOC ? highest<V>() : lowest<V>();
        e.index = highest<int32_t>();
        return e;
    } else if constexpr (IsComplex<A>::value) {
        static_assert(Op == MCOLL_PROD, "complex sums run on the parts");
        A e;
        e.re = 1;
        e.im = 0;
        return e;
    } else if constexpr (Op == MCOLL_SUM) {
        return std::is_floating_point<A>::value ? (A)-0.0 : (A)0;
    } else if constexpr (Op == MCOLL_PROD || Op == MCOLL_LAND) {
        return (A)1;
    } else if constexpr (Op == MCOLL_MIN || Op == MCOLL_MAX) {
        if constexpr (std::is_floating_point<A>::value) return (A)NAN;
        else return Op == MCOLL_MIN ? highest<A>() : lowest<A>();
    } else if constexpr (Op == MCOLL_BAND) {
        return (A)~(A)0;
    } else {
        return (A)0; /* BOR, BXOR, LOR, LXOR */
    }
}

template <class K> MCOLL_HD Acc<K> identity() {
    const typename K::acc e = identity_value<typename K::acc, K::op>();
    Acc<K> a;
#pragma unroll
    for (int i = 0; i < K::lanes; i++) a.v[i] = e;
    return a;
}

template <class K> MCOLL_HD void combine(Acc<K> &a, const Acc<K> &b) {
#pragma unroll
    for (int i = 0; i < K::lanes; i++) a.v[i] = apply<K::op>(a.v[i], b.v[i]);
}

/* ---- prefixes over the ranks (scan, exscan) --------------------------------------------- */

/* Every prefix of ranks 0..n-1 at one place, in rank order: load(p) gives rank p's pack,
 * emit(p, pack) rank p's result, the combination of ranks 0..p (inclusive) or 0..p-1
 * (exclusive: rank 0 gets nothing). Loads go out `Batch` at a time before their values are
 * combined. */
template <class K, int Batch, class Load, class Emit>
MCOLL_HD void scan_ranks(int n, bool exclusive, Load load, Emit emit) {
    Acc<K> acc = identity<K>();
    for (int base = 0; base < n; base += Batch) {
        uint4 v[Batch];
#pragma unroll
        for (int j = 0; j < Batch; j++)
            if (base + j < n) v[j] = load(base + j);
#pragma unroll
        for (int j = 0; j < Batch; j++) {
            if (base + j >= n) break;
            if (exclusive && base + j > 0) emit(base + j, narrow<K>(acc));
            combine<K>(acc, widen<K>(v[j]));
            if (!exclusive) emit(base + j, narrow<K>(acc));
        }
    }
}

/* The packs of ranks 0..count-1 (count >= 1) at one place, combined in rank order: the last of
 * scan_ranks' results. */
template <class K, int Batch, class Load> MCOLL_HD uint4 reduce_first(int count, Load load) {
    uint4 last = make_uint4(0, 0, 0, 0);
    scan_ranks<K, Batch>(count, false, load, [&](int p, uint4 v) {
        if (p == count - 1) last = v;
    });
    return last;
}

} // namespace mcoll
#endif /* MCOLL_REDUCE_OPS_CUH */
