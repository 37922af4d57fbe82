/* The kernels' pack arithmetic (collectives/reduce_ops.cuh) on the CPU, for every (datatype, op)
 * that collectives/dtype_table.cuh lists: packs of random elements from up to 8 ranks are
 * reduced as the unicast layer does (identity, then one rank after another, through widen,
 * combine and narrow) and every element is compared with a reference written out here from the
 * MPI definitions. Also: pair padding is ignored on input and zero on output, MINLOC/MAXLOC
 * ties take the smaller index, logical ops give 0 or 1 from any nonzero input, narrow integers
 * wrap, 16-bit floats accumulate in float, and the kinds share kernels where the table says.
 * The prefixes of scan and exscan (reduce_first, scan_ranks) are those combinations too. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <utility>
#include "dtype_table.cuh"
#include "multimem_table.cuh"
#include "reduce_ops.cuh"
#include "unit.h"

using namespace mcoll;

/* Kinds shared as the table says: one kernel per kind. */
static_assert(std::is_same<KindOf<MCOLL_I8, MCOLL_SUM>::type, Kind<uint8_t, MCOLL_SUM>>::value, "");
static_assert(std::is_same<KindOf<MCOLL_I16, MCOLL_MIN>::type, Kind<int16_t, MCOLL_MIN>>::value, "");
static_assert(std::is_same<KindOf<MCOLL_U8, MCOLL_BAND>::type, Kind<uint32_t, MCOLL_BAND>>::value, "");
static_assert(std::is_same<KindOf<MCOLL_BYTE, MCOLL_BXOR>::type, Kind<uint32_t, MCOLL_BXOR>>::value, "");
static_assert(std::is_same<KindOf<MCOLL_BOOL, MCOLL_LAND>::type, KindOf<MCOLL_I8, MCOLL_LAND>::type>::value, "");
static_assert(std::is_same<KindOf<MCOLL_I64, MCOLL_LXOR>::type, Kind<uint64_t, MCOLL_LXOR>>::value, "");
static_assert(std::is_same<KindOf<MCOLL_CF32, MCOLL_SUM>::type, KindOf<MCOLL_F32, MCOLL_SUM>::type>::value, "");
static_assert(std::is_same<KindOf<MCOLL_CF64, MCOLL_SUM>::type, KindOf<MCOLL_F64, MCOLL_SUM>::type>::value, "");
static_assert(std::is_same<KindOf<MCOLL_CF32, MCOLL_PROD>::type, Kind<Complex<float>, MCOLL_PROD>>::value, "");
/* Float sums and products (complex too) combine in rank order; everything else is order-free. */
static_assert(!KindOf<MCOLL_CF64, MCOLL_PROD>::type::order_free && !KindOf<MCOLL_CF32, MCOLL_SUM>::type::order_free, "");
static_assert(KindOf<MCOLL_F64_I32, MCOLL_MINLOC>::type::order_free && KindOf<MCOLL_F32, MCOLL_MAX>::type::order_free, "");
static_assert(KindOf<MCOLL_BOOL, MCOLL_LXOR>::type::order_free && KindOf<MCOLL_U16, MCOLL_PROD>::type::order_free, "");

/* ---- references, from the element bytes ------------------------------------------------- */

/* Integer elements as uint64 bits (sign-extended for signed types). */
template <class T> static uint64_t int_at(const unsigned char *p) {
    T x;
    memcpy(&x, p, sizeof x);
    return (uint64_t)(int64_t)x;
}

template <class T> static uint64_t int_ref(int op, const uint64_t *x, int n) {
    const uint64_t mask = sizeof(T) == 8 ? ~(uint64_t)0 : ((uint64_t)1 << (8 * sizeof(T))) - 1;
    uint64_t acc = x[0];
    bool truth = x[0] & mask;
    for (int r = 1; r < n; r++) {
        const T a = (T)acc, b = (T)x[r];
        const bool t = x[r] & mask;
        switch (op) {
        case MCOLL_SUM: acc += x[r]; break;
        case MCOLL_PROD: acc *= x[r]; break;
        case MCOLL_MIN: acc = b < a ? x[r] : acc; break;
        case MCOLL_MAX: acc = a < b ? x[r] : acc; break;
        case MCOLL_BAND: acc &= x[r]; break;
        case MCOLL_BOR: acc |= x[r]; break;
        case MCOLL_BXOR: acc ^= x[r]; break;
        case MCOLL_LAND: truth = truth && t; break;
        case MCOLL_LOR: truth = truth || t; break;
        case MCOLL_LXOR: truth = truth != t; break;
        }
    }
    if (op == MCOLL_LAND || op == MCOLL_LOR || op == MCOLL_LXOR) return truth ? 1 : 0;
    return acc & mask;
}

/* Value-index pairs: smaller (MINLOC) or larger (MAXLOC) value, the smaller index on a tie. */
template <class V> static void loc_ref(int op, V *v, int32_t *k, const V *vs, const int32_t *ks, int n) {
    *v = vs[0];
    *k = ks[0];
    for (int r = 1; r < n; r++) {
        const bool better = op == MCOLL_MINLOC ? vs[r] < *v : vs[r] > *v;
        if (better) {
            *v = vs[r];
            *k = ks[r];
        } else if (vs[r] == *v && ks[r] < *k) {
            *k = ks[r];
        }
    }
}

/* ---- inputs ----------------------------------------------------------------------------- */

/* A random input pack for datatype D and op O; what a rank might hold. */
template <mcoll_dtype D, mcoll_op O> static void fill(unsigned char *p) {
    using T = typename Elem<D>::type;
    for (int i = 0; i < 16; i++) p[i] = (unsigned char)rnd();
    for (int l = 0; l < 16 / (int)sizeof(T); l++) {
        unsigned char *e = p + l * sizeof(T);
        if constexpr (IsLoc<T>::value) {
            /* values from a small set (ties), indices from a small set too (equal pairs) */
            using V = decltype(T::value);
            V v = (V)((int)(rnd() % 4) - 2) * (V)(sizeof(V) == 8 && !std::is_floating_point<V>::value ? 1e12 : 1);
            if (rnd() % 8 == 0) v = rnd() % 2 ? highest<V>() : lowest<V>(); /* ties with the identity */
            const int32_t k = (int32_t)(rnd() % 64) - 32;
            memcpy(e, &v, sizeof v);
            memcpy(e + T::index_word * 4, &k, 4); /* padding keeps its random bytes */
        } else if constexpr (std::is_same<T, __half>::value || std::is_same<T, __nv_bfloat16>::value) {
            float x = (float)((double)(rnd() >> 11) * 0x1p-53 + 0.5) * ((rnd() & 1) ? -1 : 1);
            if (O == MCOLL_MIN || O == MCOLL_MAX) x *= 100;
            const T h = (T)x;
            memcpy(e, &h, sizeof h);
        } else if constexpr (IsComplex<T>::value || std::is_floating_point<T>::value) {
            using F = typename ScalarOf<T>::type;
            for (int c = 0; c < (int)(sizeof(T) / sizeof(F)); c++) {
                F x = (F)((double)(rnd() >> 11) * 0x1p-53 + 0.5) * ((rnd() & 1) ? -1 : 1);
                if (O == MCOLL_MIN || O == MCOLL_MAX) x *= 100;
                memcpy(e + c * sizeof(F), &x, sizeof x);
            }
        } else if constexpr (D == MCOLL_BOOL) {
            /* C bools are 0 or 1; any other byte is read as true too */
            e[0] = rnd() % 4 == 0 ? (unsigned char)(2 + rnd() % 200) : (unsigned char)(rnd() & 1);
        } else if constexpr (O == MCOLL_LAND || O == MCOLL_LOR || O == MCOLL_LXOR) {
            /* zero or not; nonzero values often with their low byte zero */
            memset(e, 0, sizeof(T));
            if (rnd() % 3) e[sizeof(T) - 1] = (unsigned char)(1u << (rnd() % 8));
            if (sizeof(T) == 1 && rnd() % 2) e[0] = 0;
        }
    }
}

template <class T> static T half_bits(const unsigned char *p) {
    T x;
    memcpy(&x, p, sizeof x);
    return x;
}

/* The prefixes of scan and exscan: reduce_first over the first p ranks and scan_ranks give,
 * bit for bit, the combination in rank order of those ranks, `all` for every rank. */
struct PackLoad {
    const uint4 *packs;
    MCOLL_HD uint4 operator()(int p) const { return packs[p]; }
};
struct PackKeep {
    uint4 *out;
    int *got;
    MCOLL_HD void operator()(int p, uint4 v) const { out[p] = v, got[p]++; }
};

template <class K, int Batch> static int check_prefixes(const uint4 *packs, int n, uint4 all) {
    const PackLoad load = {packs};
    uint4 inc[8], exc[8];
    int got_inc[8] = {0}, got_exc[8] = {0}, bad = 0;
    uint4 v = reduce_first<K, Batch>(n, load);
    bad += memcmp(&v, &all, 16) != 0;
    scan_ranks<K, Batch>(n, false, load, PackKeep{inc, got_inc});
    scan_ranks<K, Batch>(n, true, load, PackKeep{exc, got_exc});
    for (int p = 0; p < n; p++) {
        v = reduce_first<K, Batch>(p + 1, load);
        bad += got_inc[p] != 1 || memcmp(&inc[p], &v, 16) != 0;
        if (p == 0) {
            bad += got_exc[p] != 0;
            continue;
        }
        v = reduce_first<K, Batch>(p, load);
        bad += got_exc[p] != 1 || memcmp(&exc[p], &v, 16) != 0;
    }
    return bad;
}

/* ---- one (datatype, op) ----------------------------------------------------------------- */

template <mcoll_dtype D, mcoll_op O> static int check_pair(int n) {
    using K = typename KindOf<D, O>::type;
    using T = typename Elem<D>::type;
    constexpr int lanes = 16 / (int)sizeof(T);
    unsigned char in[8][16], out[16];
    uint4 packs[8];
    int bad = 0;

    for (int r = 0; r < n; r++) {
        fill<D, O>(in[r]);
        memcpy(&packs[r], in[r], 16);
    }
    Acc<K> acc = identity<K>();
    for (int r = 0; r < n; r++) combine<K>(acc, widen<K>(packs[r]));
    const uint4 res = narrow<K>(acc);
    memcpy(out, &res, 16);
    if (check_prefixes<K, 3>(packs, n, res) + check_prefixes<K, 8>(packs, n, res)) {
        fprintf(stderr, "dtype %d op %d, %d ranks: prefixes differ from the reduction in rank order\n", (int)D, (int)O, n);
        bad++;
    }

    for (int l = 0; l < lanes; l++) {
        const size_t at = (size_t)l * sizeof(T);
        if constexpr (IsLoc<T>::value) {
            using V = decltype(T::value);
            V vs[8], v, got_v;
            int32_t ks[8], k, got_k;
            for (int r = 0; r < n; r++) {
                memcpy(&vs[r], in[r] + at, sizeof(V));
                memcpy(&ks[r], in[r] + at + T::index_word * 4, 4);
            }
            loc_ref<V>(O, &v, &k, vs, ks, n);
            memcpy(&got_v, out + at, sizeof(V));
            memcpy(&got_k, out + at + T::index_word * 4, 4);
            if (got_v != v || got_k != k) bad++;
            for (size_t b = sizeof(V); b < (size_t)T::index_word * 4; b++) bad += out[at + b] != 0;
            for (size_t b = (size_t)T::index_word * 4 + 4; b < sizeof(T); b++) bad += out[at + b] != 0;
        } else if constexpr (IsComplex<T>::value) {
            using F = typename ScalarOf<T>::type;
            double re = 0, im = 0, norm = 1;
            for (int r = 0; r < n; r++) {
                F a, b;
                memcpy(&a, in[r] + at, sizeof a);
                memcpy(&b, in[r] + at + sizeof(F), sizeof b);
                if (O == MCOLL_SUM) {
                    re = r ? re + a : a;
                    im = r ? im + b : b;
                    norm = r ? norm + fabs(a) + fabs(b) : fabs(a) + fabs(b);
                } else if (r == 0) {
                    re = a;
                    im = b;
                    norm = hypot(a, b);
                } else {
                    const double x = re * a - im * b, y = re * b + im * a;
                    re = x;
                    im = y;
                    norm *= hypot(a, b);
                }
            }
            F gre, gim;
            memcpy(&gre, out + at, sizeof gre);
            memcpy(&gim, out + at + sizeof(F), sizeof gim);
            const double tol = 4.0 * n * norm * (sizeof(F) == 4 ? 0x1p-24 : 0x1p-53);
            if (!(fabs(gre - re) <= tol && fabs(gim - im) <= tol)) bad++;
        } else if constexpr (std::is_floating_point<T>::value) {
            /* the same operations in the same (rank) order: bitwise equal */
            T want;
            memcpy(&want, in[0] + at, sizeof want);
            for (int r = 1; r < n; r++) {
                T x;
                memcpy(&x, in[r] + at, sizeof x);
                want = O == MCOLL_SUM ? want + x : O == MCOLL_PROD ? want * x : O == MCOLL_MIN ? fmin(want, x) : fmax(want, x);
            }
            bad += memcmp(&want, out + at, sizeof want) != 0;
        } else if constexpr (std::is_same<T, __half>::value || std::is_same<T, __nv_bfloat16>::value) {
            /* accumulated in float in rank order, rounded once at the end */
            float want = (float)half_bits<T>(in[0] + at);
            for (int r = 1; r < n; r++) {
                const float x = (float)half_bits<T>(in[r] + at);
                want = O == MCOLL_SUM ? want + x : O == MCOLL_PROD ? want * x : O == MCOLL_MIN ? fminf(want, x) : fmaxf(want, x);
            }
            const T w = (T)want;
            bad += memcmp(&w, out + at, sizeof w) != 0;
        } else {
            uint64_t xs[8];
            for (int r = 0; r < n; r++) xs[r] = int_at<T>(in[r] + at);
            const uint64_t want = int_ref<T>(O, xs, n);
            const uint64_t got = int_at<typename std::make_unsigned<T>::type>(out + at);
            bad += got != want;
        }
    }
    if (bad)
        fprintf(stderr, "dtype %d op %d, %d ranks: %d lane(s) wrong (kind %s order)\n", (int)D, (int)O, n, bad,
                K::order_free ? "any" : "rank");
    return bad;
}

/* check_pair is only instantiated for the pairs the table lists (like the kernels). */
template <mcoll_dtype D, mcoll_op O> static int check_if(int n) {
    if constexpr (reduce_supported(D, O)) return check_pair<D, O>(n);
    else return 0;
}

template <mcoll_dtype D, size_t... O> static int check_ops(int n, std::index_sequence<O...>) {
    return (check_if<D, (mcoll_op)O>(n) + ...);
}

template <size_t... D> static int check_all(int n, std::index_sequence<D...>) {
    return (check_ops<(mcoll_dtype)D>(n, std::make_index_sequence<MCOLL_NUM_OPS>{}) + ...);
}

int main(void) {
    int n, round;

    unit_rng_state = 0x2545F4914F6CDD1Dull; /* this test's own sequence of cases */

    /* Every listed pair, 1 to 8 ranks, many random packs */
    for (round = 0; round < 200; round++)
        for (n = 1; n <= 8; n++) CHECK(check_all(n, std::make_index_sequence<MCOLL_NUM_DTYPES>{}) == 0);

    /* Spot checks with known answers */
    {
        using K = KindOf<MCOLL_I8, MCOLL_SUM>::type; /* wraps: 100 + 100 = -56 */
        Acc<K> a = identity<K>();
        combine<K>(a, widen<K>(make_uint4(100, 0, 0, 0)));
        combine<K>(a, widen<K>(make_uint4(100, 0, 0, 0)));
        CHECK((int8_t)narrow<K>(a).x == -56);
    }
    {
        using K = KindOf<MCOLL_U16, MCOLL_PROD>::type; /* 65535 * 65535 = 1 (mod 2^16), no int overflow */
        Acc<K> a = identity<K>();
        combine<K>(a, widen<K>(make_uint4(0xffff, 0, 0, 0)));
        combine<K>(a, widen<K>(make_uint4(0xffff, 0, 0, 0)));
        CHECK((narrow<K>(a).x & 0xffff) == 1);
    }
    {
        using K = KindOf<MCOLL_I16, MCOLL_MIN>::type; /* signed: -1 < 1 */
        Acc<K> a = identity<K>();
        combine<K>(a, widen<K>(make_uint4(0x0001ffff, 0, 0, 0)));
        combine<K>(a, widen<K>(make_uint4(0xffff0001, 0, 0, 0)));
        CHECK(narrow<K>(a).x == 0xffffffff);
    }
    {
        using K = KindOf<MCOLL_I32, MCOLL_LAND>::type; /* 2 && 4 is 1 (bitwise: 0); one rank: 7 -> 1 */
        Acc<K> a = identity<K>(), b = identity<K>();
        combine<K>(a, widen<K>(make_uint4(2, 0, 0x100, 0)));
        combine<K>(a, widen<K>(make_uint4(4, 3, 0x200, 0)));
        const uint4 r = narrow<K>(a);
        CHECK(r.x == 1 && r.y == 0 && r.z == 1 && r.w == 0);
        combine<K>(b, widen<K>(make_uint4(7, 0, 0, 0)));
        CHECK(narrow<K>(b).x == 1);
    }
    {
        using K = KindOf<MCOLL_BOOL, MCOLL_LXOR>::type; /* true ^ true ^ true = 1 */
        Acc<K> a = identity<K>();
        for (int r = 0; r < 3; r++) combine<K>(a, widen<K>(make_uint4(1, 0, 0, 0)));
        CHECK(narrow<K>(a).x == 1);
    }
    {
        using K = KindOf<MCOLL_F64_I32, MCOLL_MAXLOC>::type; /* tie at 2.0: index 3 beats 9 */
        Acc<K> a = identity<K>();
        const double two = 2.0, one = 1.0;
        uint64_t b2, b1;
        memcpy(&b2, &two, 8);
        memcpy(&b1, &one, 8);
        combine<K>(a, widen<K>(make_uint4((uint32_t)b2, (uint32_t)(b2 >> 32), 9, 0xdeadbeef)));
        combine<K>(a, widen<K>(make_uint4((uint32_t)b1, (uint32_t)(b1 >> 32), 1, 0xdeadbeef)));
        combine<K>(a, widen<K>(make_uint4((uint32_t)b2, (uint32_t)(b2 >> 32), 3, 0xdeadbeef)));
        const uint4 r = narrow<K>(a);
        CHECK(r.x == (uint32_t)b2 && r.y == (uint32_t)(b2 >> 32) && r.z == 3 && r.w == 0);
    }
    {
        using K = KindOf<MCOLL_CF32, MCOLL_PROD>::type; /* (1+2i)(3+4i) = -5+10i */
        const float in1[4] = {1, 2, 0, 1}, in2[4] = {3, 4, 0, 1};
        uint4 p1, p2;
        memcpy(&p1, in1, 16);
        memcpy(&p2, in2, 16);
        Acc<K> a = identity<K>();
        combine<K>(a, widen<K>(p1));
        combine<K>(a, widen<K>(p2));
        const uint4 r = narrow<K>(a);
        float out[4];
        memcpy(out, &r, 16);
        CHECK(out[0] == -5 && out[1] == 10 && out[2] == -1 && out[3] == 0);
    }

    /* The tables */
    CHECK(dtype_span(MCOLL_F64_I32, 2) == 28 && dtype_span(MCOLL_I16_I32, 2) == 16 && dtype_span(MCOLL_CF64, 3) == 48);
    CHECK(!reduce_supported(MCOLL_BYTE, MCOLL_SUM) && reduce_supported(MCOLL_BYTE, MCOLL_BOR));
    CHECK(!reduce_supported(MCOLL_BOOL, MCOLL_BAND) && reduce_supported(MCOLL_U8, MCOLL_LOR));
    CHECK(!reduce_supported(MCOLL_CF32, MCOLL_MAX) && !reduce_supported(MCOLL_F32, MCOLL_LAND));
    CHECK(!reduce_supported(MCOLL_I32_I32, MCOLL_MIN) && reduce_supported(MCOLL_I32_I32, MCOLL_MINLOC));
    CHECK(multimem_width(MCOLL_CF32, MCOLL_SUM) == 16 && multimem_width(MCOLL_I8, MCOLL_BAND) == 8);
    CHECK(multimem_width(MCOLL_I8, MCOLL_SUM) == 0 && multimem_width(MCOLL_BOOL, MCOLL_LAND) == 0);
    CHECK(multimem_width(MCOLL_F32_I32, MCOLL_MINLOC) == 0 && multimem_width(MCOLL_CF64, MCOLL_PROD) == 0);
    return unit_exit("test_reduce_ops");
}
