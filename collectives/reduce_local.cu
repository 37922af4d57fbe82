/* mcoll_launch_reduce_local: inout = in op inout, element by element, in one GPU's memory (no
 * team). The step between two NVLink domains uses it: the MPI only moves the other domain's
 * slice, and this GPU reduces it into its own. The arithmetic is the collectives' own
 * (reduce_ops.cuh), so the result has the bits their reductions give. */
#include "copy.cuh"
#include "dtype_table.cuh"
#include "launch_common.cuh"
#include "reduce_ops.cuh"

MCOLL_KERNEL_MODULE(reduce_local)

namespace mcoll {

namespace {

constexpr int kLocalThreads = 256;

/* `bytes` is the span of the elements (dtype_span): the last pack may be partial. */
template <class K>
__global__ void __launch_bounds__(kLocalThreads) reduce_local_kernel(const char *in, char *inout, size_t bytes) {
    const unsigned packs = (unsigned)((bytes + 15) / 16);
    for (unsigned i = blockIdx.x * kLocalThreads + threadIdx.x; i < packs; i += gridDim.x * kLocalThreads) {
        Acc<K> a = widen<K>(ld_user(in, bytes, i));
        combine<K>(a, widen<K>(ld_user(inout, bytes, i)));
        st_user(inout, bytes, i, narrow<K>(a));
    }
}

template <mcoll_dtype D> int run(mcoll_op op, const void *in, void *inout, size_t bytes, cudaStream_t stream) {
    return visit_op<D>(op, (int)MCOLL_LAUNCH_UNSUPPORTED, [&](auto o) {
        using K = typename KindOf<D, decltype(o)::value>::type;
        const size_t packs = (bytes + 15) / 16;
        const unsigned blocks = (unsigned)(packs / kLocalThreads + 1 < 1024 ? packs / kLocalThreads + 1 : 1024);
        reduce_local_kernel<K><<<blocks, kLocalThreads, 0, stream>>>((const char *)in, (char *)inout, bytes);
        return check_launch();
    });
}

} // namespace

} // namespace mcoll

int mcoll_launch_reduce_local(const void *in, void *inout, size_t count, mcoll_dtype dtype, mcoll_op op,
                              void *stream) {
    using namespace mcoll;
    const cudaStream_t s = (cudaStream_t)stream;
    const size_t bytes = dtype_span(dtype, count);
    if (!reduce_supported(dtype, op)) return MCOLL_LAUNCH_UNSUPPORTED;
    if (count == 0) return MCOLL_LAUNCH_OK;
    if ((size_t)(unsigned)((bytes + 15) / 16) != (bytes + 15) / 16) return MCOLL_LAUNCH_UNSUPPORTED;
    switch (dtype) {
    case MCOLL_F32: return run<MCOLL_F32>(op, in, inout, bytes, s);
    case MCOLL_F64: return run<MCOLL_F64>(op, in, inout, bytes, s);
    case MCOLL_F16: return run<MCOLL_F16>(op, in, inout, bytes, s);
    case MCOLL_BF16: return run<MCOLL_BF16>(op, in, inout, bytes, s);
    case MCOLL_I32: return run<MCOLL_I32>(op, in, inout, bytes, s);
    case MCOLL_U32: return run<MCOLL_U32>(op, in, inout, bytes, s);
    case MCOLL_I64: return run<MCOLL_I64>(op, in, inout, bytes, s);
    case MCOLL_U64: return run<MCOLL_U64>(op, in, inout, bytes, s);
    case MCOLL_I8: return run<MCOLL_I8>(op, in, inout, bytes, s);
    case MCOLL_U8: return run<MCOLL_U8>(op, in, inout, bytes, s);
    case MCOLL_I16: return run<MCOLL_I16>(op, in, inout, bytes, s);
    case MCOLL_U16: return run<MCOLL_U16>(op, in, inout, bytes, s);
    case MCOLL_BYTE: return run<MCOLL_BYTE>(op, in, inout, bytes, s);
    case MCOLL_BOOL: return run<MCOLL_BOOL>(op, in, inout, bytes, s);
    case MCOLL_CF32: return run<MCOLL_CF32>(op, in, inout, bytes, s);
    case MCOLL_CF64: return run<MCOLL_CF64>(op, in, inout, bytes, s);
    case MCOLL_F32_I32: return run<MCOLL_F32_I32>(op, in, inout, bytes, s);
    case MCOLL_F64_I32: return run<MCOLL_F64_I32>(op, in, inout, bytes, s);
    case MCOLL_I64_I32: return run<MCOLL_I64_I32>(op, in, inout, bytes, s);
    case MCOLL_I32_I32: return run<MCOLL_I32_I32>(op, in, inout, bytes, s);
    case MCOLL_I16_I32: return run<MCOLL_I16_I32>(op, in, inout, bytes, s);
    default: return MCOLL_LAUNCH_UNSUPPORTED;
    }
}
