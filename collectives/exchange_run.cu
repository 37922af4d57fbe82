/* Exchange kernel: the pieces of exchange_run.cuh stored into their receivers' data areas (a
 * plain store to one rank, or the access layer's `st` to every rank), one barrier, copied out.
 * Not templated on the datatype. */
#include "access.cuh"
#include "barrier.cuh"
#include "completion.cuh"
#include "copy.cuh"
#include "exchange_run.cuh"
#include "launch_common.cuh"

MCOLL_KERNEL_MODULE(exchange_run)

namespace mcoll {
namespace {

struct ExchangeParams {
    mcoll_dev_team team;
    ExchangeCall call;
    ExchangeSched sched;
};

template <class A>
__global__ void __launch_bounds__(kThreads, 1) exchange_kernel(const __grid_constant__ ExchangeParams p) {
    const mcoll_dev_team &t = p.team;
    const ExchangeCall &c = p.call;
    const ExchangeSched &s = p.sched;
    const int b = blockIdx.x, r = t.rank, n = t.size;
    const char *own = (const char *)t.peer_data[r];
    const size_t region = (size_t)b * s.region;
    const size_t chunks = c.known ? known_chunks(s, c.max_len, b) : 0;
    uint64_t epoch = t.epochs[b];

    for (size_t k = 0;; k++) {
        const size_t area = region + ((epoch + 1) & 1) * s.half;
        size_t off = 0, m;
        /* This rank's piece into every rank (allgather). */
        if (c.to_all && (m = piece_part(s, c.out_len[r], b, k, &off)) != 0) {
            const char *src = c.send + c.out_off[r] + off;
            const size_t dst = area + slot_at(c, s, r);
            for_packs<4>(packs_of(m), [&](unsigned i) { return ld_user(src, m, i); },
                         [&](unsigned i, uint4 v) { A::st(t, dst + (size_t)i * 16, v); });
        }
        /* Its own piece, locally. */
        if (c.own_copy && (m = piece_part(s, c.in_len[r], b, k, &off)) != 0) {
            const char *src = c.send + c.out_off[r] + off;
            char *dst = c.recv + c.in_off[r] + off;
            for_packs<4>(packs_of(m), [&](unsigned i) { return ld_user(src, m, i); },
                         [&](unsigned i, uint4 v) { st_user(dst, m, i, v); });
        }
        /* Its pieces for the other ranks, each into that rank alone, starting after itself so
         * that the ranks do not all write to the same peer at once. */
        if (!c.to_all)
            for (int j = 1; j < n; j++) {
                const int q = r + j < n ? r + j : r + j - n;
                if ((m = piece_part(s, c.out_len[q], b, k, &off)) == 0) continue;
                const char *src = c.send + c.out_off[q] + off;
                char *dst = (char *)t.peer_data[q] + area + slot_at(c, s, r);
                for_packs<4>(packs_of(m), [&](unsigned i) { return ld_user(src, m, i); },
                             [&](unsigned i, uint4 v) { st_global_v4(dst + (size_t)i * 16, v); });
            }
        /* The flag is the barrier it was written for, or 0: a flag left from an earlier barrier (a
         * peer that died) never reads as "more", so an aborted wait ends this loop too. */
        if (!c.known && threadIdx.x == 0) {
            const uint64_t flag = exchange_more(c, s, r, n, b, k) ? epoch + 1 : 0;
            A::st(t, area + (size_t)r * 16, make_uint4((uint32_t)flag, (uint32_t)(flag >> 32), 0, 0));
        }
        block_barrier<A>(t, epoch);

        for (int j = 1; j < n; j++) {
            const int q = r + j < n ? r + j : r + j - n;
            if ((m = piece_part(s, c.in_len[q], b, k, &off)) != 0)
                copy_out(c.recv + c.in_off[q] + off, own + area + slot_at(c, s, q), m);
        }
        /* Every rank reads the same flags, so all stop after the same chunk. */
        if (c.known) {
            if (k + 1 >= chunks) break;
        } else {
            bool more = false;
            if ((int)threadIdx.x < n) {
                const uint4 f = ld_global_v4(own + area + threadIdx.x * 16);
                more = ((uint64_t)f.x | ((uint64_t)f.y << 32)) == epoch;
            }
            if (!__syncthreads_or(more)) break;
        }
    }
    if (threadIdx.x == 0) t.epochs[b] = epoch;
    signal_done(t);
}

template <class A> int launch(const ExchangeParams &p, void *stream) {
    exchange_kernel<A><<<p.sched.blocks, kThreads, 0, (cudaStream_t)stream>>>(p);
    return check_launch(p.team);
}

} // namespace

int run_exchange(const mcoll_dev_team *team, mcoll_access access, const ExchangeCall &call, void *stream) {
    if (!team_ok(team)) return MCOLL_LAUNCH_UNSUPPORTED;
    if (call.known && call.max_len == 0) return MCOLL_LAUNCH_OK;
    ExchangeParams p;
    p.team = *team;
    p.call = call;
    if (make_exchange_sched(team, call, &p.sched) != 0) return MCOLL_LAUNCH_UNSUPPORTED;
    return on_layer<true>(pick_layer(team, access), [&](auto layer) { return launch<decltype(layer)>(p, stream); });
}

} // namespace mcoll
