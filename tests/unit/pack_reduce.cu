/* A host model of the unicast reduction for test_gpu_reference: the kernels' own pack
 * arithmetic (collectives/reduce_ops.cuh) applied pack by pack to whole buffers, the last
 * pack partial and zero-filled as the kernels read it, peers combined in the kernels' order
 * (rank order for float sums and products, else starting at `first`). */
#include <stddef.h>
#include <string.h>
#include <utility>
#include "dtype_table.cuh"
#include "reduce_ops.cuh"
#include "pack_reduce.h"

using namespace mcoll;

template <mcoll_dtype D, mcoll_op O>
static int model(int n, int first, const void *const *in, void *out, size_t bytes) {
    using K = typename KindOf<D, O>::type;
    for (size_t at = 0; at < bytes; at += 16) {
        const size_t len = bytes - at < 16 ? bytes - at : 16;
        Acc<K> acc = identity<K>();
        for (int j = 0; j < n; j++) {
            int p = (K::order_free ? first : 0) + j;
            if (p >= n) p -= n;
            unsigned char pack[16] = {0};
            memcpy(pack, (const unsigned char *)in[p] + at, len);
            uint4 v;
            memcpy(&v, pack, 16);
            combine<K>(acc, widen<K>(v));
        }
        const uint4 r = narrow<K>(acc);
        memcpy((unsigned char *)out + at, &r, len);
    }
    return 0;
}

template <mcoll_dtype D, mcoll_op O> static int model_if(int n, int first, const void *const *in, void *out, size_t bytes) {
    if constexpr (reduce_supported(D, O)) return model<D, O>(n, first, in, out, bytes);
    else return -1;
}

template <mcoll_dtype D, size_t... O>
static int by_op(mcoll_op op, int n, int first, const void *const *in, void *out, size_t bytes, std::index_sequence<O...>) {
    int rc = -1;
    (void)((op == (mcoll_op)O ? (rc = model_if<D, (mcoll_op)O>(n, first, in, out, bytes), true) : false) || ...);
    return rc;
}

template <size_t... D>
static int by_dtype(mcoll_dtype dt, mcoll_op op, int n, int first, const void *const *in, void *out, size_t bytes,
                    std::index_sequence<D...>) {
    int rc = -1;
    (void)((dt == (mcoll_dtype)D
                ? (rc = by_op<(mcoll_dtype)D>(op, n, first, in, out, bytes, std::make_index_sequence<MCOLL_NUM_OPS>{}), true)
                : false) ||
           ...);
    return rc;
}

extern "C" int pack_reduce(mcoll_dtype dtype, mcoll_op op, int nranks, int first, const void *const *in, void *out,
                           size_t count) {
    if (!reduce_supported(dtype, op) || nranks < 1 || first < 0 || first >= nranks) return -1;
    return by_dtype(dtype, op, nranks, first, in, out, dtype_span(dtype, count),
                    std::make_index_sequence<MCOLL_NUM_DTYPES>{});
}
