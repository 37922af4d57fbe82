/* The reduction kernel's pipelined loop as a plan: which jobs block b of a rank runs in each
 * phase, on which chunk, and where in the data area. Host and device code: the kernel
 * (reduce_kernel.cuh) and its host model (tests/unit/test_pipeline.cu) follow the same plan.
 *
 * A chunk goes through up to three jobs, each a phase after the one before:
 *   in   this rank copies its slots of the chunk from sendbuf into its data area (inputs);
 *        not a one-shot reduce's root that reads its input in place (root_reads_send: nobody
 *        else reads its data area in that call), which has nothing to do before its first barrier;
 *   red  one-shot and reduce-scatter: the receiving rank reduces its slot from every rank's
 *        inputs into recvbuf; two-shot: the slot's owner reduces it from every rank's inputs
 *        and stores the result into the results of every rank (of root alone for reduce);
 *   out  two-shot: a receiving rank copies every slot of its results into recvbuf.
 * Phase ph of a block (the work between its barriers ph - 1 and ph) runs `in` of chunk ph, `red`
 * of chunk ph - 1 and `out` of chunk ph - 2 side by side, each on its own warps, then one
 * barrier: K chunks cost K barriers one-shot and K + 1 two-shot, and the local copies (HBM)
 * run while the reduction waits on NVLink.
 *
 * Safety (schedule.cuh's halves, with results beside inputs). In the phase between barriers E
 * and E + 1 a block writes only half (E + 1) & 1: the inputs of chunk ph (its own, locally) and
 * the results of chunk ph - 1 (each result slot by its one owner, into the ranks that get it);
 * it reads only half E & 1: the inputs of chunk ph - 1 (each slot by its owner, from every rank)
 * and the results of chunk ph - 2 (its own, locally). So nothing is written in a phase that
 * anyone reads in it, and no byte has two writers. A rank reads half (E + 1) & 1 only in the
 * phase before, until it arrives at barrier E, and nobody writes that half before passing
 * barrier E, which waits for every rank's arrival: the peer that may still read a region is at
 * most one phase behind, and then it reads the other half. Inside a half the results sit after
 * the inputs, so the inputs of chunk ph and the results of chunk ph - 1 never meet. The rule is
 * the same as every other
 * kernel's, so a collective still needs no barrier at its end: its last phase reads half E & 1
 * (one-shot: peers' inputs; two-shot: its own results) and the next collective writes the other
 * half before its first barrier.
 *
 * Inputs by stores (ReduceCall::to_owner): `in` stores this rank's part of slot q into input
 * position `rank` of owner q's half (E + 1) & 1 instead of position q of its own, and the owner's
 * `red` loads every position of its own half E & 1. The rule above holds as it is (a half is
 * written only between the barriers before the ones after which it is read, each position by its
 * one rank), and so does the neighbour's: a call's first phase writes the peers' next half, as a
 * two-shot's results always did. With results_to_recv the owner stores into every rank's recvbuf
 * (slot red_slot, chunk ph - 1, which its rank pushed out in phase ph - 1 and never reads again),
 * no rank copies out and no results live in the half, and the last phase, empty, is the barrier
 * after which no rank's recvbuf is written any more.
 *
 * User buffers, in place included: in a phase a rank reads sendbuf at chunk ph and writes
 * recvbuf at chunk ph - 1 (red) or ph - 2 (out) of every slot, disjoint byte ranges, and a chunk
 * is written only after it was copied in; block b touches only bytes [b * span, (b + 1) * span)
 * of every slot, so blocks never meet. A root that reads its input in place has no `in`: its
 * reduction reads sendbuf and writes recvbuf at the same chunk ph - 1, each 16-byte pack by one
 * thread, which loads it before it stores it (in place, the same bytes). */
#ifndef MCOLL_PIPELINE_CUH
#define MCOLL_PIPELINE_CUH

#include <stddef.h>
#include <stdint.h>
#include "copy.cuh"
#include "reduce_run.cuh"
#include "schedule.cuh"

namespace mcoll {

/* Bytes of slot q inside [off, off + len), without the padding at the end of the slot. */
MCOLL_HD size_t slot_part(const ReduceCall &c, int q, size_t off, size_t len) {
    const size_t n = slot_part(c.total, c.slot_bytes, q, off, len), data = c.slot_bytes - c.tail;
    if (off >= data) return 0;
    return n < data - off ? n : data - off;
}

/* This rank writes recvbuf (reduce: root; exscan: not rank 0). */
MCOLL_HD bool receives(const ReduceCall &c, int rank) {
    if (c.scan) return !(c.scan == kScanExclusive && rank == 0);
    return c.root < 0 || c.root == rank;
}

/* This rank runs the reduction: two-shot, when it owns a slot (reduce's root owns none). */
MCOLL_HD bool reduces(const ReduceCall &c, int rank) { return c.two_shot ? c.red_slot >= 0 : receives(c, rank); }

/* Slots a half holds: inputs, and for two-shot as many results after them (none where the
 * results go straight to the recvbufs). */
MCOLL_HD int half_slots(const ReduceCall &c) { return c.two_shot && !c.results_to_recv ? 2 * c.nslots : c.nslots; }

/* Offsets of slot q inside a half: inputs first, results after them. */
MCOLL_HD size_t input_at(const Sched &s, int q) { return (size_t)q * s.chunk; }
MCOLL_HD size_t result_at(const Sched &s, int q) { return (size_t)(s.nslots + q) * s.chunk; }

/* Block b's share of every slot, its chunks and phases, and the jobs this rank runs. */
struct Plan {
    size_t lo, hi;  /* slot bytes [lo, hi) */
    size_t chunks;
    size_t phases;  /* 0 without bytes; else chunks + 1, or chunks + 2 for two-shot (with
                       results_to_recv the last phase only waits at its barrier) */
    size_t region;  /* data-area offset of the block's region */
    bool in, red, out; /* this rank copies in; reduces; copies results out */
};

/* The kernels where root may read in place count a block's phases in 32 bits (reduce_kernel.cuh);
 * launchers refuse a schedule with more, which no message a GPU holds comes near. */
MCOLL_HD bool phases_fit(const Sched &s) { return s.span / s.chunk < (size_t)UINT32_MAX - 2; }

MCOLL_HD Plan plan_of(const Sched &s, const ReduceCall &c, int block, int rank) {
    Plan p;
    p.lo = (size_t)block * s.span;
    p.hi = p.lo + s.span < s.slot_bytes ? p.lo + s.span : s.slot_bytes;
    p.chunks = p.hi > p.lo ? (p.hi - p.lo + s.chunk - 1) / s.chunk : 0;
    p.phases = p.chunks ? p.chunks + (c.two_shot ? 2 : 1) : 0;
    p.region = (size_t)block * s.region;
    p.in = !c.root_reads_send;
    p.red = reduces(c, rank);
    p.out = c.two_shot && receives(c, rank) && !c.results_to_recv;
    return p;
}

enum Job { kJobIn = 0, kJobRed = 1, kJobOut = 2, kJobs = 3 };

/* One phase: the jobs present, their chunks, and the halves. */
struct Step {
    bool run[kJobs];
    size_t off[kJobs], len[kJobs]; /* each job's chunk: slot bytes [off, off + len) */
    size_t write, read;            /* data-area offsets of the half written and the half read */
};

/* Phase ph, run after `epoch` barriers of this block row in all (ph of them in this kernel). */
MCOLL_HD Step step_of(const Plan &p, const Sched &s, size_t ph, uint64_t epoch) {
    Step st;
    const bool mine[kJobs] = {p.in, p.red, p.out};
#pragma unroll
    for (int j = 0; j < kJobs; j++) {
        const size_t k = ph - (size_t)j; /* job j works on chunk ph - j */
        st.run[j] = mine[j] && ph >= (size_t)j && k < p.chunks;
        st.off[j] = st.run[j] ? p.lo + k * s.chunk : 0;
        st.len[j] = st.run[j] ? (p.hi - st.off[j] < s.chunk ? p.hi - st.off[j] : s.chunk) : 0;
    }
    st.write = p.region + ((epoch + 1) & 1) * s.half;
    st.read = p.region + (epoch & 1) * s.half;
    return st;
}

/* Data-area offsets of slot q for each job of a phase: copy-in writes inputs, the reduction
 * reads inputs and (two-shot) writes results, copy-out reads results. With to_owner the input
 * positions are ranks: rank r's part of slot q is at in_to(st, s, r) of owner q, which finds it
 * at red_from(st, s, r). */
MCOLL_HD size_t in_to(const Step &st, const Sched &s, int q) { return st.write + input_at(s, q); }
MCOLL_HD size_t red_from(const Step &st, const Sched &s, int q) { return st.read + input_at(s, q); }
MCOLL_HD size_t red_to(const Step &st, const Sched &s, int q) { return st.write + result_at(s, q); }
MCOLL_HD size_t out_from(const Step &st, const Sched &s, int q) { return st.read + result_at(s, q); }

/* The block's warps split among the jobs of a phase in proportion to their shares; a job that
 * does not run gets none. The reduction waits on NVLink and gets twice a copy's share (not yet
 * tuned on hardware). */
constexpr int kWarps = kThreads / 32;
MCOLL_HD int share_of(int job) { return job == kJobRed ? 2 : 1; }

struct Split {
    int first[kJobs], count[kJobs]; /* warps [first, first + count) */
};

MCOLL_HD Split split_of(const Step &st) {
    Split sp;
    int units = 0, main = -1, used = 0;
#pragma unroll
    for (int j = 0; j < kJobs; j++)
        if (st.run[j]) units += share_of(j);
    /* The reduction, else copy-in, else copy-out takes what the rounding leaves. */
    if (st.run[kJobRed]) main = kJobRed;
    else if (st.run[kJobIn]) main = kJobIn;
    else if (st.run[kJobOut]) main = kJobOut;
#pragma unroll
    for (int j = 0; j < kJobs; j++) sp.count[j] = st.run[j] && j != main ? kWarps * share_of(j) / units : 0;
#pragma unroll
    for (int j = 0; j < kJobs; j++) used += sp.count[j];
#pragma unroll
    for (int j = 0; j < kJobs; j++) /* constant indices only: the split stays in registers */
        if (j == main) sp.count[j] = kWarps - used;
#pragma unroll
    for (int j = 0, first = 0; j < kJobs; j++) {
        sp.first[j] = first;
        first += sp.count[j];
    }
    return sp;
}

/* This thread's job in the phase (kJobs: none) and its crew. */
__device__ __forceinline__ int job_of(const Step &st, Crew *crew) {
    const Split sp = split_of(st);
    const int w = (int)(threadIdx.x / 32);
#pragma unroll
    for (int j = 0; j < kJobs; j++)
        if (w >= sp.first[j] && w < sp.first[j] + sp.count[j]) {
            *crew = Crew{threadIdx.x - 32u * (unsigned)sp.first[j], 32u * (unsigned)sp.count[j]};
            return j;
        }
    return kJobs;
}

} // namespace mcoll
#endif /* MCOLL_PIPELINE_CUH */
