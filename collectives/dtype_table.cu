/* The host's view of dtype_table.cuh, and the checks that its rows describe the element types
 * the kernels use (reduce_ops.cuh) as C lays them out. */
#include <stddef.h>
#include <utility>
#include "dtype_table.cuh"
#include "reduce_ops.cuh"

namespace mcoll {

/* Padding after the data of an element: a pair's index is its last member. */
template <class T> constexpr size_t tail_of() {
    if constexpr (IsLoc<T>::value) return sizeof(T) - (size_t)T::index_word * 4 - 4;
    else return 0;
}

template <size_t... D> constexpr bool rows_match(std::index_sequence<D...>) {
    return ((sizeof(typename Elem<(mcoll_dtype)D>::type) == kDtypes[D].size &&
             tail_of<typename Elem<(mcoll_dtype)D>::type>() == kDtypes[D].tail) && ...);
}
static_assert(rows_match(std::make_index_sequence<MCOLL_NUM_DTYPES>{}),
              "dtype_table.cuh disagrees with the element types of reduce_ops.cuh");
static_assert(offsetof(Loc<int16_t>, index) == 4 && offsetof(Loc<float>, index) == 4 &&
                  offsetof(Loc<double>, index) == 8 && offsetof(Loc<int64_t>, index) == 8,
              "pairs laid out as C structs {value; int}");

} // namespace mcoll

int mcoll_reduce_supported(mcoll_dtype dtype, mcoll_op op) { return mcoll::reduce_supported(dtype, op); }

size_t mcoll_dtype_size(mcoll_dtype dtype) { return mcoll::dtype_size(dtype); }

size_t mcoll_dtype_span(mcoll_dtype dtype, size_t count) { return mcoll::dtype_span(dtype, count); }
