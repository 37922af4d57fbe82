/* Moving 16-byte packs between user buffers (any alignment, any length) and the symmetric data
 * area (16-byte aligned). Bytes only: nothing here depends on the datatype. A pack is read or
 * written with the widest accesses its address allows; the last pack of a range may be partial. */
#ifndef MCOLL_COPY_CUH
#define MCOLL_COPY_CUH

#include <stdint.h>
#include "ptx.cuh"

namespace mcoll {

/* Threads per block of every data-moving kernel; for_packs strides by it. */
constexpr int kThreads = 512;

static __device__ __noinline__ uint4 ld_user_unaligned(const char *p) {
    const uintptr_t a = (uintptr_t)p;
    if ((a & 7) == 0) {
        const uint2 x = ((const uint2 *)p)[0], y = ((const uint2 *)p)[1];
        return make_uint4(x.x, x.y, y.x, y.y);
    }
    if ((a & 3) == 0) {
        const uint32_t *q = (const uint32_t *)p;
        return make_uint4(q[0], q[1], q[2], q[3]);
    }
    uint32_t w[4];
    if ((a & 1) == 0) {
        const uint16_t *q = (const uint16_t *)p;
#pragma unroll
        for (int i = 0; i < 4; i++) w[i] = (uint32_t)q[2 * i] | ((uint32_t)q[2 * i + 1] << 16);
    } else {
        const uint8_t *q = (const uint8_t *)p;
#pragma unroll
        for (int i = 0; i < 4; i++)
            w[i] = (uint32_t)q[4 * i] | ((uint32_t)q[4 * i + 1] << 8) |
                   ((uint32_t)q[4 * i + 2] << 16) | ((uint32_t)q[4 * i + 3] << 24);
    }
    return make_uint4(w[0], w[1], w[2], w[3]);
}

static __device__ __noinline__ void st_user_unaligned(char *p, uint4 v) {
    const uintptr_t a = (uintptr_t)p;
    if ((a & 7) == 0) {
        ((uint2 *)p)[0] = make_uint2(v.x, v.y);
        ((uint2 *)p)[1] = make_uint2(v.z, v.w);
    } else if ((a & 3) == 0) {
        uint32_t *q = (uint32_t *)p;
        q[0] = v.x; q[1] = v.y; q[2] = v.z; q[3] = v.w;
    } else {
        const uint32_t w[4] = {v.x, v.y, v.z, v.w};
        if ((a & 1) == 0) {
            uint16_t *q = (uint16_t *)p;
#pragma unroll
            for (int i = 0; i < 8; i++) q[i] = (uint16_t)(w[i / 2] >> (16 * (i % 2)));
        } else {
#pragma unroll
            for (int i = 0; i < 16; i++) p[i] = (char)(w[i / 4] >> (8 * (i % 4)));
        }
    }
}

/* First n (< 16) bytes of a pack; the rest reads as zero. */
static __device__ __noinline__ uint4 ld_user_partial(const char *p, unsigned n) {
    uint32_t w[4] = {0, 0, 0, 0};
#pragma unroll
    for (int i = 0; i < 16; i++)
        if ((unsigned)i < n) w[i / 4] |= (uint32_t)(uint8_t)p[i] << (8 * (i % 4));
    return make_uint4(w[0], w[1], w[2], w[3]);
}

static __device__ __noinline__ void st_user_partial(char *p, uint4 v, unsigned n) {
    const uint32_t w[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
    for (int i = 0; i < 16; i++)
        if ((unsigned)i < n) p[i] = (char)(w[i / 4] >> (8 * (i % 4)));
}

/* Pack i of a user range of n bytes: one 16-byte access in the common case, out-of-line code
 * (built once per file, not once per kernel) for unaligned buffers and the last partial pack.
 * A last pack of one aligned 4- or 8-byte word (a call of one int or double) is one access in
 * line too: a small call's latency is a chain of such accesses, and a call out of line ends the
 * overlap of the loads issued before it. */
__device__ __forceinline__ uint4 ld_user(const char *base, size_t n, unsigned i) {
    const size_t o = (size_t)i * 16;
    const char *p = base + o;
    if (n - o < 16) {
        const unsigned r = (unsigned)(n - o);
        if (r == 8 && ((uintptr_t)p & 7) == 0) {
            const uint2 x = *(const uint2 *)p;
            return make_uint4(x.x, x.y, 0, 0);
        }
        if (r == 4 && ((uintptr_t)p & 3) == 0) return make_uint4(*(const uint32_t *)p, 0, 0, 0);
        return ld_user_partial(p, r);
    }
    if (((uintptr_t)p & 15) == 0) return *(const uint4 *)p;
    return ld_user_unaligned(p);
}

__device__ __forceinline__ void st_user(char *base, size_t n, unsigned i, uint4 v) {
    const size_t o = (size_t)i * 16;
    char *p = base + o;
    if (n - o < 16) {
        const unsigned r = (unsigned)(n - o);
        if (r == 8 && ((uintptr_t)p & 7) == 0) *(uint2 *)p = make_uint2(v.x, v.y);
        else if (r == 4 && ((uintptr_t)p & 3) == 0) *(uint32_t *)p = v.x;
        else st_user_partial(p, v, r);
    } else if (((uintptr_t)p & 15) == 0) {
        *(uint4 *)p = v;
    } else {
        st_user_unaligned(p, v);
    }
}

__device__ __forceinline__ unsigned packs_of(size_t bytes) { return (unsigned)((bytes + 15) / 16); }

/* The threads of a block that share one job: this thread is `lane` of `size`. A kernel whose
 * jobs run side by side (reduce_kernel.cuh) gives each its own crew of warps. */
struct Crew {
    unsigned lane, size;
};

__device__ __forceinline__ Crew whole_block() { return Crew{threadIdx.x, (unsigned)kThreads}; }

/* The crew walks packs [0, np): each thread takes U packs a round, issuing all U loads before
 * any store so that U transfers are in flight. load(i) -> uint4, store(i, v). */
template <int U, class Load, class Store>
__device__ __forceinline__ void for_packs(Crew crew, unsigned np, Load load, Store store) {
    const unsigned step = crew.size;
    for (unsigned i = crew.lane; i < np; i += U * step) {
        uint4 v[U];
#pragma unroll
        for (int u = 0; u < U; u++)
            if (i + u * step < np) v[u] = load(i + u * step);
#pragma unroll
        for (int u = 0; u < U; u++)
            if (i + u * step < np) store(i + u * step, v[u]);
    }
}

/* The same for the whole block. */
template <int U, class Load, class Store>
__device__ __forceinline__ void for_packs(unsigned np, Load load, Store store) {
    for_packs<U>(whole_block(), np, load, store);
}

/* n bytes from a user buffer into the symmetric area (local, unicast mapping). */
__device__ __forceinline__ void copy_in(char *sym, const char *user, size_t n, Crew crew = whole_block()) {
    for_packs<4>(crew, packs_of(n), [&](unsigned i) { return ld_user(user, n, i); },
                 [&](unsigned i, uint4 v) { st_global_v4(sym + (size_t)i * 16, v); });
}

/* n bytes from the symmetric area (local, unicast mapping) into a user buffer. */
__device__ __forceinline__ void copy_out(char *user, const char *sym, size_t n, Crew crew = whole_block()) {
    for_packs<4>(crew, packs_of(n), [&](unsigned i) { return ld_global_v4(sym + (size_t)i * 16); },
                 [&](unsigned i, uint4 v) { st_user(user, n, i, v); });
}

} // namespace mcoll
#endif /* MCOLL_COPY_CUH */
