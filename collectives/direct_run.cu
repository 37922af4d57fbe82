/* Zero-copy byte collectives (launch.h): bcast and allgather straight between the users'
 * buffers, which every rank maps (src/mem/). The view's peer_data[q] is rank q's buffer of the
 * call. Two barriers per block and no data area, as in the direct reduction (reduce_kernel.cuh). */
#include "access.cuh"
#include "barrier.cuh"
#include "completion.cuh"
#include "copy.cuh"
#include "launch_common.cuh"
#include "schedule.cuh"

MCOLL_KERNEL_MODULE(direct_run)

namespace mcoll {
namespace {

/* Every rank but `skip` (-1: none) receives bytes [at, at + slot) from `src`, the part of block
 * b of every block's span; src is local or a peer's buffer. */
struct DirectCall {
    const char *src;      /* what this rank sends, or nullptr when it sends nothing */
    size_t at;            /* where it lands in every receiving buffer */
    size_t slot;          /* bytes it sends */
    int skip;             /* a rank that receives nothing (bcast: root), or -1 */
    int skip_self;        /* this rank's copy is already in place */
};

/* Packs in flight per thread. A copy's loads wait on memory (or NVLink) and its stores do not:
 * 4 packs (32 KiB a block) left one rank's 32 blocks latency-bound at about 21 GB/s each on one
 * H100 (benchmarks/NOTES.md); 8 keeps twice as many bytes in flight in the same registers'
 * budget (launch_bounds(512, 1) allows 128 a thread). */
constexpr int kDirectUnroll = 8;

struct DirectParams {
    mcoll_dev_team team;
    DirectCall call;
    Sched sched;
};

__global__ void __launch_bounds__(kThreads, 1) direct_push_kernel(const __grid_constant__ DirectParams p) {
    const mcoll_dev_team &t = p.team;
    const DirectCall &c = p.call;
    between_barriers(t, [&] {
        const size_t lo = (size_t)blockIdx.x * p.sched.span;
        if (!c.src || lo >= c.slot) return;
        const size_t n = c.slot - lo < p.sched.span ? c.slot - lo : p.sched.span;
        for_packs<kDirectUnroll>(packs_of(n), [&](unsigned i) { return ld_user(c.src + lo, n, i); },
                     [&](unsigned i, uint4 v) {
                         for (int k = 0; k < t.size; k++) {
                             const int q = (t.rank + k) % t.size; /* spread the peers' ports */
                             if (q == c.skip || (q == t.rank && c.skip_self)) continue;
                             st_user((char *)t.peer_data[q] + c.at + lo, n, i, v);
                         }
                     });
    });
    signal_done(t);
}

/* Every rank launches the same grid: blocks follow from `slot_bytes`, which all ranks share
 * (root_centred: bcast's grid, make_direct_sched). */
int launch(const mcoll_dev_team *team, const DirectCall &call, size_t slot_bytes, bool root_centred, void *stream) {
    if (!team_ok(team)) return MCOLL_LAUNCH_UNSUPPORTED;
    DirectParams p;
    p.team = *team;
    p.call = call;
    make_direct_sched(team, slot_bytes, &p.sched, kWideSlot, root_centred);
    direct_push_kernel<<<p.sched.blocks, kThreads, 0, (cudaStream_t)stream>>>(p);
    return check_launch(p.team);
}

} // namespace
} // namespace mcoll

int mcoll_launch_bcast_direct(const mcoll_dev_team *buf, size_t bytes, int root, void *stream) {
    if (!buf || root < 0 || root >= buf->size) return MCOLL_LAUNCH_UNSUPPORTED;
    if (bytes == 0 || buf->size == 1) return MCOLL_LAUNCH_OK;
    /* A 16-byte aligned slice per non-root rank, which loads it from root; on two ranks root
     * takes the second half and stores it itself (direct_slices; its port still carries each
     * byte once: half loaded by the other rank, half stored by root). */
    const size_t m = (size_t)mcoll::direct_slices(buf->size), slot = mcoll::slice16(bytes, m);
    mcoll::DirectCall c = {nullptr, 0, 0, root, 0};
    const size_t k = (size_t)((buf->rank - root - 1 + buf->size) % buf->size); /* root: size - 1 */
    if (k < m) {
        c.at = k * slot < bytes ? k * slot : bytes;
        c.slot = bytes - c.at < slot ? bytes - c.at : slot;
        c.src = (const char *)buf->peer_data[root] + c.at;
    }
    return mcoll::launch(buf, c, slot, true, stream);
}

int mcoll_launch_allgather_direct(const mcoll_dev_team *recv, const void *sendbuf, size_t sendbytes, void *stream) {
    if (!recv) return MCOLL_LAUNCH_UNSUPPORTED;
    if (sendbytes == 0) return MCOLL_LAUNCH_OK;
    const size_t at = (size_t)recv->rank * sendbytes;
    const mcoll::DirectCall c = {(const char *)sendbuf, at, sendbytes, -1,
                                 (const char *)recv->peer_data[recv->rank] + at == sendbuf};
    return mcoll::launch(recv, c, sendbytes, false, stream);
}
