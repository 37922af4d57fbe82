/* The low-latency (LL) protocol: small calls in one block, with no barrier and no copy through
 * the data area. Each sender stores its payload straight into a slot of every receiver's LL
 * area (launch.h: MCOLL_LL_OFFSET), 16 bytes a store: 8 bytes of data, each 4 next to a flag.
 * A receiver polls its own slots until every flag of a line is the call's flag, so the data is
 * there when the flag is (an 8-byte store is never seen in part), and reduces or copies it out.
 *
 * Calls alternate between two parities of slots. A sender may write a slot again only once its
 * receiver has read what the slot held. When the receiver has written to the sender since
 * (heard), it had finished that call before, and the sender goes on at once; otherwise (reduce
 * and bcast, where senders could run ahead) it waits for the receiver's word in its control
 * block (consumed). Every step spreads over the threads: one thread per (peer, pack).
 *
 * The call count lives in the rank's control block in device memory, so captured graphs can be
 * replayed, and a launched kernel and the resident kernel continue one sequence. */
#ifndef MCOLL_LL_CUH
#define MCOLL_LL_CUH

#include "access.cuh"
#include "barrier.cuh"
#include "copy.cuh"
#include "dtype_table.cuh"
#include "launch.h"
#include "ptx.cuh"
#include "reduce_ops.cuh"

namespace mcoll {

struct LLCtrl {
    uint64_t count;                             /* LL calls this rank has made */
    uint64_t pushed[2][MCOLL_MAX_RANKS];        /* per parity: the call that last wrote to peer q */
    uint64_t heard[MCOLL_MAX_RANKS];            /* the call in which peer q last wrote to us */
    uint64_t consumed[2][MCOLL_MAX_RANKS];      /* written by peer q: the call of ours it last read */
};
static_assert(sizeof(LLCtrl) <= MCOLL_LL_CTRL_BYTES, "the LL control block outgrew its place");

__device__ __forceinline__ LLCtrl *ll_ctrl(const mcoll_dev_team &t, int owner) {
    return (LLCtrl *)((char *)t.peer_signal[owner] + MCOLL_LL_OFFSET);
}

/* The slot that rank `src` writes in rank `owner`'s area for call `count`. */
__device__ __forceinline__ char *ll_slot(const mcoll_dev_team &t, int owner, uint64_t count, int src) {
    return (char *)t.peer_signal[owner] + MCOLL_LL_OFFSET + MCOLL_LL_CTRL_BYTES +
           ((size_t)(count & 1) * t.size + src) * mcoll_ll_slot_bytes(t.size);
}

/* Never 0 (what a fresh area holds), and different for two calls of one parity. */
__device__ __forceinline__ uint32_t ll_flag(uint64_t count) { return (uint32_t)(count % 0xFFFFFFFFull) + 1; }

__device__ __forceinline__ void ll_put(char *slot, unsigned i, uint4 v, uint32_t f) {
    st_volatile_v4(slot + (size_t)i * 32, make_uint4(v.x, f, v.y, f));
    st_volatile_v4(slot + (size_t)i * 32 + 16, make_uint4(v.z, f, v.w, f));
}

/* Pack i of `slot` once it carries flag f. Like every wait, no deadline: only the abort flag
 * ends it early (the result is then garbage and the host reports the failure). */
__device__ __forceinline__ uint4 ll_get(const mcoll_dev_team &t, const char *slot, unsigned i, uint32_t f) {
    const char *p = slot + (size_t)i * 32;
    uint4 a, b;
    uint32_t sleep_ns = 0;
    for (uint32_t polls = 1;; polls++) {
        a = ld_volatile_v4(p);
        b = ld_volatile_v4(p + 16);
        if (a.y == f && a.w == f && b.y == f && b.w == f) break;
        if (polls % WAIT_FLAG_EVERY == 0 && t.abort_flag && ld_volatile_sys_u32(t.abort_flag)) break;
        if (polls >= WAIT_SPIN_POLLS) {
            sleep_ns = sleep_ns ? (sleep_ns < WAIT_MAX_SLEEP_NS ? 2 * sleep_ns : WAIT_MAX_SLEEP_NS) : 32;
            nanosleep_ns(sleep_ns);
        }
    }
    return make_uint4(a.x, a.z, b.x, b.z);
}

/* Packs (from every rank together) a reduction keeps in shared memory between poll and sum. */
constexpr unsigned kLLStashPacks = 1024;

__device__ __forceinline__ bool ll_sends_to(const mcoll_ll_call &c, int rank, int q) {
    switch (c.kind) {
    case MCOLL_LL_REDUCE: return q == c.root;
    case MCOLL_LL_BCAST: return rank == c.root && q != c.root;
    default: return true;
    }
}

__device__ __forceinline__ bool ll_receives_from(const mcoll_ll_call &c, int rank, int p) {
    switch (c.kind) {
    case MCOLL_LL_REDUCE: return rank == c.root;
    case MCOLL_LL_BCAST: return rank != c.root && p == c.root;
    default: return true;
    }
}

/* Packs a sender stores per receiver (a barrier sends one, of zeros). */
__device__ __forceinline__ unsigned ll_packs(const mcoll_ll_call &c) {
    return c.bytes ? packs_of(c.bytes) : 1;
}

/* Every rank's payload into its receivers' slots, once they have read the last call of this
 * parity. Thread q first settles peer q; then item k is pack k % np for peer k / np. */
__device__ __forceinline__ void ll_push(const mcoll_dev_team &t, const mcoll_ll_call &c, uint64_t count) {
    LLCtrl *own = ll_ctrl(t, t.rank);
    const int x = (int)(count & 1);
    const uint32_t f = ll_flag(count);
    const int q0 = threadIdx.x;
    const unsigned np = ll_packs(c);
    const bool per_peer = c.kind == MCOLL_LL_REDUCE_SCATTER;
    /* This thread's first pack, loaded before the control words are looked at and the block
     * waits: the two loads overlap instead of following each other (a small call's whole
     * payload is in these first packs). */
    const unsigned k0 = threadIdx.x;
    uint4 first = make_uint4(0, 0, 0, 0);
    if (c.bytes && k0 < np * (unsigned)t.size && ll_sends_to(c, t.rank, (int)(k0 / np)))
        first = ld_user((const char *)c.send + (per_peer ? (size_t)(k0 / np) * c.bytes : 0), c.bytes, k0 % np);
    if (q0 < t.size && ll_sends_to(c, t.rank, q0)) {
        /* Independent loads, issued together. */
        const uint64_t p0 = own->pushed[0][q0], p1 = own->pushed[1][q0], heard = own->heard[q0];
        const uint64_t last = x ? p1 : p0;
        if (last && heard <= last) {
            uint32_t polls = 0;
            while (ld_acquire_sys_u64(&own->consumed[x][q0]) != last)
                if (++polls % WAIT_FLAG_EVERY == 0 && t.abort_flag && ld_volatile_sys_u32(t.abort_flag)) break;
        }
    }
    __syncthreads();
    for (unsigned k = threadIdx.x; k < np * (unsigned)t.size; k += kThreads) {
        const unsigned i = k % np;
        const int q = (int)(k / np);
        if (!ll_sends_to(c, t.rank, q)) continue;
        uint4 v = first;
        if (c.bytes && k != k0) v = ld_user((const char *)c.send + (per_peer ? (size_t)q * c.bytes : 0), c.bytes, i);
        ll_put(ll_slot(t, q, count, t.rank), i, v, f);
    }
    if (q0 < t.size && ll_sends_to(c, t.rank, q0)) own->pushed[x][q0] = count;
}

/* After every thread has read its slots: note whom we heard from, and tell them. No fence:
 * what the word announces is that reads have completed (their values are used before the
 * block's barrier), and a later store cannot change what a completed read returned. */
__device__ __forceinline__ void ll_release(const mcoll_dev_team &t, const mcoll_ll_call &c, uint64_t count) {
    __syncthreads();
    const int p = threadIdx.x;
    if (p < t.size && ll_receives_from(c, t.rank, p)) {
        ll_ctrl(t, t.rank)->heard[p] = count;
        *(volatile uint64_t *)&ll_ctrl(t, p)->consumed[count & 1][t.rank] = count;
    }
}

/* Wait, spread over the threads, until every line this rank receives carries the call's flag;
 * `use` gets each pack as it arrives (the calls that only move data store it at once). */
template <class Use>
__device__ __forceinline__ void ll_arrive(const mcoll_dev_team &t, const mcoll_ll_call &c, uint64_t count, Use use) {
    const uint32_t f = ll_flag(count);
    const unsigned np = ll_packs(c);
    for (unsigned k = threadIdx.x; k < np * (unsigned)t.size; k += kThreads) {
        const unsigned i = k % np;
        const int p = (int)(k / np);
        if (ll_receives_from(c, t.rank, p)) use(p, i, ll_get(t, ll_slot(t, t.rank, count, p), i, f));
    }
}

/* The receiving side of the calls that move data without reducing it. */
__device__ __forceinline__ void ll_receive_data(const mcoll_dev_team &t, const mcoll_ll_call &c, uint64_t count) {
    ll_arrive(t, c, count, [&](int p, unsigned i, uint4 v) {
        if (c.kind == MCOLL_LL_BARRIER) return;
        char *out = (char *)c.recv + (c.kind == MCOLL_LL_ALLGATHER ? (size_t)p * c.bytes : 0);
        st_user(out, c.bytes, i, v);
    });
}

/* The receiving side of the reductions: every rank's payload combined in rank order, so that
 * every rank computes bitwise the same result. */
template <class K>
__device__ __noinline__ void ll_receive_reduced(const mcoll_dev_team &t, const mcoll_ll_call &c, uint64_t count,
                                                uint4 *stash) {
    /* Every line there first (in parallel), then each pack from every rank at once; small
     * calls keep what the polls read in shared memory rather than load it again. */
    const unsigned np = packs_of(c.bytes);
    const bool stashed = np * (unsigned)t.size <= kLLStashPacks;
    ll_arrive(t, c, count, [&](int p, unsigned i, uint4 v) {
        if (stashed) stash[(unsigned)p * np + i] = v;
    });
    __syncthreads();
    if (stashed) {
        for (unsigned i = threadIdx.x; i < np; i += kThreads) {
            Acc<K> acc = identity<K>();
            for (int p = 0; p < t.size; p++) combine<K>(acc, widen<K>(stash[(unsigned)p * np + i]));
            st_user((char *)c.recv, c.bytes, i, narrow<K>(acc));
        }
        return;
    }
    /* One rank's line at a time (calls this large are beyond the default MCOLL_LL_MAX, and their
     * lines were just polled, so they are in cache). Batches of peers made the resident kernel,
     * which holds every datatype's reduction, need a 16 KiB stack per thread: the driver then
     * reserves that for every thread the GPU can hold (4 GiB on an H200) for as long as the
     * process lives. tests/unit/test_kernel_stack.sh keeps every LL kernel's stack at 0. */
    constexpr int kBatch = 1;
    for (unsigned i = threadIdx.x; i < packs_of(c.bytes); i += kThreads) {
        Acc<K> acc = identity<K>();
        for (int base = 0; base < t.size; base += kBatch) {
            uint4 a[kBatch], b[kBatch];
#pragma unroll
            for (int j = 0; j < kBatch; j++)
                if (base + j < t.size) {
                    const char *line = ll_slot(t, t.rank, count, base + j) + (size_t)i * 32;
                    a[j] = ld_volatile_v4(line);
                    b[j] = ld_volatile_v4(line + 16);
                }
#pragma unroll
            for (int j = 0; j < kBatch; j++)
                if (base + j < t.size) combine<K>(acc, widen<K>(make_uint4(a[j].x, a[j].z, b[j].x, b[j].z)));
        }
        st_user((char *)c.recv, c.bytes, i, narrow<K>(acc));
    }
}

template <mcoll_dtype D>
__device__ __forceinline__ void ll_reduce_op(const mcoll_dev_team &t, const mcoll_ll_call &c, uint64_t count,
                                             uint4 *stash) {
    visit_op<D>((mcoll_op)c.op, false, [&](auto o) {
        ll_receive_reduced<typename KindOf<D, decltype(o)::value>::type>(t, c, count, stash);
        return true;
    });
}

/* The reduction of one call, the datatype and op chosen at run time (the resident kernel takes
 * any of them); the host checked that the pair is supported. */
__device__ __noinline__ void ll_receive_reduction(const mcoll_dev_team &t, const mcoll_ll_call &c, uint64_t count,
                                                  uint4 *stash);

/* One LL call by the whole block; `count` is this call's number. `reduce()` receives a reduction
 * (the run-time dispatch of ll_receive_reduction, or one datatype and op compiled in). */
template <class Reduce>
__device__ __forceinline__ void ll_run_with(const mcoll_dev_team &t, const mcoll_ll_call &c, uint64_t count,
                                            Reduce reduce) {
    ll_push(t, c, count);
    __syncthreads(); /* in place: every input pack is read before any output is written */
    const bool reduces =
        c.kind == MCOLL_LL_ALLREDUCE || c.kind == MCOLL_LL_REDUCE_SCATTER || (c.kind == MCOLL_LL_REDUCE && t.rank == c.root);
    if (reduces) reduce();
    else if (c.kind != MCOLL_LL_REDUCE) ll_receive_data(t, c, count);
    ll_release(t, c, count);
}

/* The same with any datatype and op; `stash` is the block's shared memory of kLLStashPacks packs. */
__device__ __forceinline__ void ll_run(const mcoll_dev_team &t, const mcoll_ll_call &c, uint64_t count, uint4 *stash) {
    ll_run_with(t, c, count, [&] { ll_receive_reduction(t, c, count, stash); });
}

} // namespace mcoll
#endif /* MCOLL_LL_CUH */
