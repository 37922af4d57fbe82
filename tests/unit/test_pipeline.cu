/* The pipelined reduction kernel's schedule on the CPU (collectives/pipeline.cuh): the calls the
 * launchers build for allreduce, reduce, reduce_scatter, scan and exscan run through a host model
 * of reduce_kernel that follows the kernel's plan (plan_of, step_of) phase by phase on every
 * rank, with byte-sized data areas in which every byte remembers the barrier it was written for
 * and who last wrote and read it between which barriers. Between two calls, and around them,
 * runs a stand-in for every other kernel of the halves rule (a neighbour that stores into every
 * rank's next half before its barrier and reads every rank's half after it, as push, exchange
 * and one-shot do). Bytes summed modulo 256 stand for the reduction. For random teams of 2..8
 * ranks, sizes (odd ones, one chunk, one byte past a chunk or a block, many chunks), small data
 * areas, thresholds, roots, in place and not:
 *   - no byte of a data area is written between two barriers in which another job of any rank
 *     reads or writes it (so no region is overwritten while a peer may still read it), every
 *     read sees what was written before the barrier just passed, and no access leaves its
 *     block's region, its half or its slot;
 *   - a user buffer's byte is touched by one block only, and no job writes a byte another job
 *     of its rank reads between the same barriers;
 *   - every receive buffer ends as MPI defines it, bytes around it and (out of place) send
 *     buffers untouched; the padding after pairs in reduce_scatter is not written;
 *   - ranks agree on the schedule and the number of barriers: K chunks take K (one-shot) or
 *     K + 1 (two-shot) barriers;
 *   - reduce's slices are reduced on the non-root ranks only and reach root once, and the bytes
 *     each rank's memory moves are the documented counts (collectives/README.md);
 *   - a one-shot reduce's root reads its own input from its sendbuf (in place: recvbuf) and
 *     copies nothing into its data area when the sendbuf is 16-byte aligned, and copies it in as
 *     before when not (user buffers at every offset from alignment);
 *   - the warps of a phase are split among the jobs that run, each getting some. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <algorithm>
#include <random>
#include <vector>
#include "pipeline.cuh"
#include "unit.h"

using namespace mcoll;


static const int kGuard = 48;
static const unsigned char kCanary = 0xA5, kPoison = 0xFF, kNeighbour = 0xEE;

/* The last access of one kind to a byte: between which barriers (the block row's epoch) and by
 * whom (rank * 4 + job; several readers: kMany). */
struct Access {
    uint64_t when = ~0ull;
    int who = -1;
};
static const int kMany = -2;

struct Cell {
    unsigned char v = 0;
    uint64_t tag = 0; /* the barrier it was written for */
    Access w, r;
};

/* A user buffer with guard bytes on both sides; every byte remembers the block that touched it. */
struct UserByte {
    int block = -1;
    bool written = false;
    Access w, r;
};
/* The data start `lead` bytes in, at an address 16-byte aligned or, with `misalign` (1..15),
 * that many bytes past one. */
struct Buf {
    std::vector<unsigned char> bytes;
    std::vector<UserByte> use;
    size_t n = 0, lead = kGuard;
    void make(size_t len, unsigned misalign = 0) {
        n = len;
        bytes.assign(len + 2 * kGuard + 16, kCanary);
        use.assign(bytes.size(), UserByte());
        lead = kGuard + ((misalign - (uintptr_t)(bytes.data() + kGuard)) & 15);
    }
    unsigned char *data() { return bytes.data() + lead; }
};

enum Coll { ALLREDUCE, REDUCE, REDUCE_SCATTER, SCAN, EXSCAN, NCOLLS };
static const char *coll_name[] = {"allreduce", "reduce", "reduce_scatter", "scan", "exscan"};

struct Model {
    int n, rows;
    size_t data_bytes;
    std::vector<std::vector<Cell>> area;   /* [rank][byte] */
    std::vector<uint64_t> epoch;           /* [block row]: every rank's, they move together */
    std::vector<size_t> hbm;               /* [rank]: bytes its memory moved (data area and user) */
    int failures = 0;
    const char *what = "";

    Model(int ranks, int nrows, size_t bytes) : n(ranks), rows(nrows), data_bytes(bytes), area(ranks), epoch(nrows), hbm(ranks) {
        for (int r = 0; r < n; r++) area[r].assign(bytes, Cell());
        for (int b = 0; b < rows; b++) epoch[b] = 1000 + below(7); /* either half first */
    }

    void fail(const char *why, int rank, size_t at) {
        if (failures++ < 5) fprintf(stderr, "pipeline model (%s): %s (rank %d, byte %zu)\n", what, why, rank, at);
    }

    /* The rules of one access between barriers `when`. */
    void note(Access &mine, Access &other, bool write, uint64_t when, int who, int rank, size_t at) {
        if (other.when == when && other.who != who) fail(write ? "written while another job reads it" : "read while another job writes it", rank, at);
        if (write && mine.when == when && mine.who != who) fail("two writers between the same barriers", rank, at);
        if (!write && mine.when == when && mine.who != who) mine.who = kMany;
        else {
            mine.when = when;
            mine.who = who;
        }
    }

    /* Rank d's data area, bytes [at, at + len) of block b's row, inside [lo, hi) (a slot). */
    bool inside(int b, size_t at, size_t len, size_t lo, size_t hi, int d) {
        const size_t region = (data_bytes / (size_t)rows) & ~(size_t)31;
        if (at < lo || at + len > hi || at < (size_t)b * region || at + len > (size_t)(b + 1) * region) {
            fail("an access leaves its slot or region", d, at);
            return false;
        }
        return true;
    }
    void store(int b, int d, size_t at, const unsigned char *src, size_t len, size_t lo, size_t hi, int who) {
        if (!inside(b, at, len, lo, hi, d)) return;
        for (size_t i = 0; i < len; i++) {
            Cell &c = area[d][at + i];
            note(c.w, c.r, true, epoch[b], who, d, at + i);
            c.v = src[i];
            c.tag = epoch[b] + 1;
        }
        hbm[d] += len;
    }
    void load(int b, int d, size_t at, unsigned char *dst, size_t len, size_t lo, size_t hi, int who) {
        if (!inside(b, at, len, lo, hi, d)) return;
        for (size_t i = 0; i < len; i++) {
            Cell &c = area[d][at + i];
            note(c.r, c.w, false, epoch[b], who, d, at + i);
            if (c.tag != epoch[b]) fail("a read of bytes not written for the barrier just passed", d, at + i);
            dst[i] = c.v;
        }
        hbm[d] += len;
    }
    /* User buffers: one block each byte, and the same rules between barriers. */
    void user(Buf &u, const unsigned char *p, size_t len, bool write, int b, int who, int rank) {
        const size_t at = (size_t)(p - u.bytes.data());
        if (len && (at < u.lead || at + len > u.lead + u.n)) {
            fail("a user access leaves the buffer", rank, at);
            return;
        }
        for (size_t i = at; i < at + len; i++) {
            UserByte &x = u.use[i];
            if (x.block >= 0 && x.block != b && (x.written || write)) fail("two blocks touch a user byte", rank, i);
            x.block = b;
            x.written |= write;
            if (write) note(x.w, x.r, true, epoch[b], who, rank, i);
            else note(x.r, x.w, false, epoch[b], who, rank, i);
        }
        hbm[rank] += len;
    }
};

/* One call: every rank's ReduceCall (as the launchers build it) and user buffers. */
struct Call {
    Coll coll;
    int in_place, root;
    size_t bytes;       /* allreduce, reduce, scans: the message; reduce_scatter: recvcount */
    mcoll_dtype dtype;  /* reduce_scatter: U8, or a pair (padding after each block) */
    bool zero_copy = false; /* allreduce: sliced always, results stored into the recvbufs (to_owner) */
    unsigned misalign = 0;  /* user buffers this many bytes past 16-byte alignment */
    std::vector<ReduceCall> c;
    std::vector<Buf> send, recv;
    std::vector<Buf *> sbuf;  /* the buffer sendbuf lies in (recv in place) */
    std::vector<std::vector<unsigned char>> input;
};

static unsigned char input_byte(int r, size_t i, int seed) { return (unsigned char)(r * 37 + i * 11 + (i >> 7) + seed * 5 + 1); }

static void build(Call &k, int n, int seed, mcoll_dev_team &team) {
    const size_t total = k.coll == REDUCE_SCATTER ? k.bytes * dtype_size(k.dtype) * (size_t)n -
                                                        (dtype_size(k.dtype) * k.bytes - dtype_span(k.dtype, k.bytes))
                                                  : k.bytes;
    const size_t recv_len = k.coll == REDUCE_SCATTER ? (k.in_place ? total : k.bytes * dtype_size(k.dtype)) : k.bytes;
    k.c.resize(n);
    k.send.resize(n);
    k.recv.resize(n);
    k.sbuf.resize(n);
    k.input.resize(n);
    for (int r = 0; r < n; r++) {
        const bool ip = k.in_place && (k.coll != REDUCE || r == k.root);
        k.recv[r].make(recv_len, k.misalign);
        memset(k.recv[r].data(), kPoison, recv_len);
        k.send[r].make(ip ? 0 : total, k.misalign);
        k.sbuf[r] = ip ? &k.recv[r] : &k.send[r];
        k.input[r].resize(total);
        for (size_t i = 0; i < total; i++) k.input[r][i] = k.sbuf[r]->data()[i] = input_byte(r, i, seed);
        team.rank = r;
        const void *s = k.sbuf[r]->data();
        void *d = k.recv[r].data();
        switch (k.coll) {
        case REDUCE_SCATTER: k.c[r] = reduce_scatter_call(&team, s, d, k.bytes, k.dtype); break;
        case REDUCE: k.c[r] = reduce_call(&team, s, d, k.bytes, k.root); break;
        default:
            k.c[r] = reduce_call(&team, s, d, k.bytes, -1);
            if (k.coll == SCAN) k.c[r].scan = kScanInclusive;
            if (k.coll == EXSCAN) k.c[r].scan = kScanExclusive;
            if (k.zero_copy) { /* as mcoll_launch_allreduce_direct slices it */
                k.c[r].slot_bytes = slice16(k.bytes, (size_t)n);
                k.c[r].nslots = n;
                k.c[r].two_shot = 1;
                k.c[r].red_slot = r;
            }
        }
        /* As run_reduce and the zero-copy launchers choose (the model is the unicast layer). */
        k.c[r].to_owner = inputs_by_stores(&team, k.c[r]);
        k.c[r].results_to_recv = k.zero_copy && k.c[r].to_owner && k.c[r].two_shot;
        k.c[r].root_reads_send = root_reads_send(&team, k.c[r]); /* a kind that honours it */
    }
}

/* What MPI says rank r's receive buffer holds afterwards. */
static std::vector<unsigned char> expected(Call &k, int r, int n, const std::vector<unsigned char> &before) {
    std::vector<unsigned char> want = before;
    const size_t data = k.coll == REDUCE_SCATTER ? dtype_span(k.dtype, k.bytes) : k.bytes;
    const size_t block = k.bytes * dtype_size(k.dtype);
    if (k.coll == REDUCE && r != k.root) return want;
    if (k.coll == EXSCAN && r == 0) return want;
    for (size_t i = 0; i < data; i++) {
        const int upto = k.coll == SCAN ? r + 1 : k.coll == EXSCAN ? r : n;
        unsigned char sum = 0;
        for (int q = 0; q < upto; q++) sum += k.input[q][k.coll == REDUCE_SCATTER ? (size_t)r * block + i : i];
        want[k.recv[r].lead + i] = sum;
    }
    return want;
}

/* The packs of ranks 0..count-1 summed byte by byte: the reduction of the model's bytes. */
static void sum_of(const std::vector<std::vector<unsigned char>> &in, int count, unsigned char *out) {
    for (int x = 0; x < 16; x++) {
        unsigned char v = 0;
        for (int q = 0; q < count; q++) v += in[q][x];
        out[x] = v;
    }
}

/* The kernel's jobs of one phase for rank r (pipeline.cuh, reduce_kernel.cuh), on block b. */
static void run_jobs(Model &m, Call &k, const Sched &s, const Plan &p, size_t ph, int r, int b) {
    const ReduceCall &c = k.c[r];
    const Step st = step_of(p, s, ph, m.epoch[b]);
    int order[kJobs] = {kJobIn, kJobRed, kJobOut};
    std::shuffle(order, order + kJobs, std::minstd_rand((unsigned)rnd())); /* side by side: any order */
    for (int j : order) {
        if (!st.run[j]) continue;
        const int who = r * 4 + j;
        const size_t off = st.off[j], len = st.len[j];
        unsigned char pack[16];
        if (j == kJobIn)
            for (int q = 0; q < s.nslots; q++) {
                const size_t bytes = slot_part(c, q, off, len);
                const unsigned char *src = (const unsigned char *)c.send + q * c.slot_bytes + off;
                m.user(*k.sbuf[r], src, bytes, false, b, who, r);
                /* to_owner: into owner q's position r; else into this rank's position q. */
                const int dest = c.to_owner ? q : r;
                const size_t to = in_to(st, s, c.to_owner ? r : q);
                for (size_t i = 0; i < bytes; i += 16) { /* whole packs, zeros after the data */
                    memset(pack, 0, 16);
                    memcpy(pack, src + i, bytes - i < 16 ? bytes - i : 16);
                    m.store(b, dest, to + i, pack, 16, to, to + s.chunk, who);
                }
            }
        if (j == kJobRed) {
            const size_t bytes = slot_part(c, c.red_slot, off, len);
            const size_t src = red_from(st, s, c.red_slot), dst = red_to(st, s, c.red_slot);
            unsigned char *user = (unsigned char *)c.recv + off;
            for (size_t i = 0; i < bytes; i += 16) {
                const size_t m16 = bytes - i < 16 ? bytes - i : 16;
                /* One-shot scans load ranks 0..r (0..r-1); everything else every rank. */
                const int count = c.scan && !c.two_shot ? (c.scan == kScanExclusive ? r : r + 1) : m.n;
                std::vector<std::vector<unsigned char>> in(m.n, std::vector<unsigned char>(16));
                for (int q = 0; q < count; q++) {
                    if (c.root_reads_send && q == r) { /* root's own input, from its sendbuf */
                        const unsigned char *mine = (const unsigned char *)c.send + (size_t)c.red_slot * c.slot_bytes + off + i;
                        m.user(*k.sbuf[r], mine, m16, false, b, who, r);
                        memset(in[q].data(), 0, 16);
                        memcpy(in[q].data(), mine, m16);
                        continue;
                    }
                    /* to_owner: rank q's part lies in this rank's position q. */
                    const size_t from = c.to_owner ? red_from(st, s, q) : src;
                    m.load(b, c.to_owner ? r : q, from + i, in[q].data(), 16, from, from + s.chunk, who);
                }
                if (c.scan && c.two_shot) {
                    /* Prefix p into rank p (exscan: from rank 1 on), as scan_ranks emits them. */
                    const bool exclusive = c.scan == kScanExclusive;
                    for (int q = 0; q < m.n; q++) {
                        const int upto = exclusive ? q : q + 1;
                        if (upto == 0) continue;
                        sum_of(in, upto, pack);
                        m.store(b, q, dst + i, pack, 16, dst, dst + s.chunk, who);
                    }
                } else if (!c.two_shot) {
                    sum_of(in, count, pack);
                    m.user(k.recv[r], user + i, m16, true, b, who, r);
                    memcpy(user + i, pack, m16);
                } else if (c.results_to_recv) {
                    sum_of(in, m.n, pack);
                    for (int q = 0; q < m.n; q++) {
                        unsigned char *to = k.recv[q].data() + (size_t)c.red_slot * c.slot_bytes + off + i;
                        m.user(k.recv[q], to, m16, true, b, who, q);
                        memcpy(to, pack, m16);
                    }
                } else {
                    sum_of(in, m.n, pack);
                    for (int q = 0; q < m.n; q++)
                        if (c.root < 0 || q == c.root) m.store(b, q, dst + i, pack, 16, dst, dst + s.chunk, who);
                }
            }
        }
        if (j == kJobOut)
            for (int q = 0; q < s.nslots; q++) {
                const size_t bytes = slot_part(c, q, off, len);
                unsigned char *dst = (unsigned char *)c.recv + q * c.slot_bytes + off;
                for (size_t i = 0; i < bytes; i += 16) {
                    const size_t from = out_from(st, s, q);
                    m.load(b, r, from + i, pack, 16, from, from + s.chunk, who);
                    const size_t m16 = bytes - i < 16 ? bytes - i : 16;
                    m.user(k.recv[r], dst + i, m16, true, b, who, r);
                    memcpy(dst + i, pack, m16);
                }
            }
    }
}

/* The kernel on every rank: every block row of the grid, rows in the given order. */
static void run_call(Model &m, Call &k, mcoll_dev_team &team, bool reverse, size_t *barriers) {
    const int n = m.n;
    std::vector<Sched> s(n);
    for (int r = 0; r < n; r++) {
        team.rank = r;
        if (make_sched(&team, k.c[r].slot_bytes, k.c[r].nslots, half_slots(k.c[r]), &s[r]) != 0) {
            m.fail("no schedule", r, 0);
            return;
        }
        if (memcmp(&s[r], &s[0], sizeof s[0]) != 0) m.fail("ranks made different schedules", r, 0);
    }
    if (s[0].half < (size_t)half_slots(k.c[0]) * s[0].chunk) m.fail("a half does not hold its slots", 0, 0);
    *barriers = 0;
    for (int i = 0; i < s[0].blocks; i++) {
        const int b = reverse ? s[0].blocks - 1 - i : i;
        std::vector<Plan> plan(n);
        for (int r = 0; r < n; r++) {
            plan[r] = plan_of(s[r], k.c[r], b, r);
            if (plan[r].phases != plan[0].phases) m.fail("ranks run different numbers of phases", r, 0);
        }
        const size_t want = plan[0].chunks + (k.c[0].two_shot ? 1 : 0);
        if (plan[0].chunks == 0 || plan[0].phases - 1 != want) m.fail("not one barrier per chunk", 0, 0);
        for (size_t ph = 0; ph < plan[0].phases; ph++) {
            if (ph) {
                m.epoch[b]++;
                ++*barriers;
            }
            std::vector<int> ranks(n);
            for (int r = 0; r < n; r++) ranks[r] = r;
            std::shuffle(ranks.begin(), ranks.end(), std::minstd_rand((unsigned)rnd()));
            for (int r : ranks) run_jobs(m, k, s[r], plan[r], ph, r, b);
        }
    }
}

/* Every other kernel, at its most demanding: before its barrier each rank stores into its share
 * of every rank's next half, after it each rank reads every rank's whole half (a one-shot read
 * runs after the last barrier, where the next call may already have started). */
static void run_neighbour(Model &m) {
    const size_t region = (m.data_bytes / (size_t)m.rows) & ~(size_t)31, half = region / 2;
    for (int b = 0; b < m.rows; b++) {
        const size_t base = (size_t)b * region;
        const size_t next = base + ((m.epoch[b] + 1) & 1) * half, share = half / (size_t)m.n;
        std::vector<unsigned char> junk(half, kNeighbour);
        for (int r = 0; r < m.n; r++)
            for (int d = 0; d < m.n; d++) {
                const size_t lo = next + (size_t)r * share, len = r + 1 == m.n ? half - (size_t)r * share : share;
                m.store(b, d, lo, junk.data(), len, next, next + half, m.n * 4 + 3 + r * 64);
            }
        m.epoch[b]++;
        const size_t at = base + (m.epoch[b] & 1) * half;
        std::vector<unsigned char> got(half);
        for (int r = 0; r < m.n; r++)
            for (int d = 0; d < m.n; d++) m.load(b, d, at, got.data(), half, at, at + half, m.n * 4 + 3 + r * 64);
    }
}

/* Reduces in which root read its input in place, by kind, and those that kept the copy for an
 * unaligned sendbuf: run_case must have met each. */
static struct {
    int in_place, out_of_place, chunks, odd, unaligned;
} root_reads;

/* Root reads its input in place exactly in a one-shot reduce from a 16-byte aligned sendbuf
 * (ReduceCall::root_reads_send); counts what run_case covered. Returns the failures. */
static int check_root_reads(const Call &k, const mcoll_dev_team &team) {
    int bad = 0;
    for (int r = 0; r < team.size; r++) {
        const ReduceCall &c = k.c[r];
        const bool one_shot_root = k.coll == REDUCE && !c.two_shot && r == k.root;
        if (c.root_reads_send != (one_shot_root && !k.misalign)) bad++;
        if (!one_shot_root) continue;
        if (k.misalign) {
            root_reads.unaligned++;
            continue;
        }
        (k.in_place ? root_reads.in_place : root_reads.out_of_place)++;
        Sched s;
        if (make_sched(&team, c.slot_bytes, c.nslots, half_slots(c), &s) == 0 && plan_of(s, c, 0, r).chunks >= 3)
            root_reads.chunks++;
        if (k.bytes % 16) root_reads.odd++;
    }
    if (bad) fprintf(stderr, "%s: root_reads_send not set as it should be\n", coll_name[k.coll]);
    return bad;
}

/* Random calls of every collective; returns the number of failures. */
static int run_case(int n, int round) {
    const int rows = 1 + (int)below(3);
    /* Chunks of 16 to 128 bytes per slot, so that a few kilobytes take many chunks. */
    const size_t chunk = 16 * (1 + below(8));
    const int wide = rows + (int)below(2); /* the area may be cut for a wider grid */
    const size_t data_bytes = (size_t)wide * 2 * (2 * (size_t)n * chunk + 32) + below(64);
    mcoll_dev_team team;
    memset(&team, 0, sizeof team);
    team.size = n;
    team.data_bytes = data_bytes;
    team.max_blocks = rows;
    team.direct_blocks = wide;
    static const size_t thresholds[] = {0, 64, 1000, (size_t)1 << 30};
    team.oneshot_max = thresholds[below(4)];
    team.store_inputs = (int)below(2);
    Model m(n, layout_rows(&team), data_bytes);
    int bad = 0;

    /* A sequence of calls with the neighbour kernel around them. */
    const int calls = 3;
    for (int i = 0; i < calls; i++) {
        Call k;
        k.coll = (Coll)below(NCOLLS);
        k.in_place = (int)below(2);
        k.root = (int)below((size_t)n);
        k.dtype = k.coll == REDUCE_SCATTER && rnd() % 3 == 0 ? MCOLL_F64_I32 : MCOLL_U8;
        k.zero_copy = k.coll == ALLREDUCE && team.store_inputs && rnd() % 2;
        k.misalign = rnd() % 3 ? 0 : 1 + (unsigned)below(15);
        /* Sizes: one element, odd, exactly or one past a chunk or a block, many chunks. */
        const size_t unit = k.coll == REDUCE_SCATTER ? 1 : (size_t)n;
        switch (rnd() % 6) {
        case 0: k.bytes = 1 + below(40); break;
        case 1: k.bytes = chunk * unit * (1 + below(4)) + (rnd() % 2); break;
        case 2: k.bytes = kBlockBytes * (1 + below(3)) + (rnd() % 3); break;
        default: k.bytes = 1 + below(round % 4 == 0 ? 6 * kBlockBytes : 3000); break;
        }
        if (k.dtype != MCOLL_U8) k.bytes = 1 + k.bytes / 16;
        build(k, n, i, team);
        bad += check_root_reads(k, team);
        std::vector<std::vector<unsigned char>> before(n);
        for (int r = 0; r < n; r++) before[r] = k.recv[r].bytes;
        char what[200];
        snprintf(what, sizeof what, "%s%s%s%s n=%d root=%d bytes=%zu misalign=%u rows=%d chunk~%zu oneshot_max=%zu call %d",
                 coll_name[k.coll], k.in_place ? " in place" : "", team.store_inputs ? " stores" : "",
                 k.zero_copy ? " zero-copy" : "", n, k.root, k.bytes, k.misalign, rows, chunk, team.oneshot_max, i);
        m.what = what;
        if (rnd() % 2) run_neighbour(m); /* its reads after its barrier meet this call's first phase */
        size_t barriers;
        run_call(m, k, team, round % 2, &barriers);
        if (!m.failures)
            for (int r = 0; r < n; r++) {
                /* In place the buffer held the input; reduce_scatter leaves the rest of it as it was. */
                std::vector<unsigned char> want = expected(k, r, n, before[r]);
                if (k.recv[r].bytes != want) {
                    size_t x = 0;
                    while (k.recv[r].bytes[x] == want[x]) x++;
                    fprintf(stderr, "%s: rank %d: receive byte %ld is 0x%02x, want 0x%02x\n", what, r, (long)x - (long)k.recv[r].lead,
                            k.recv[r].bytes[x], want[x]);
                    bad++;
                }
                if (!k.send[r].n) continue;
                for (size_t x = 0; x < k.send[r].n; x++)
                    if (k.send[r].data()[x] != k.input[r][x]) {
                        fprintf(stderr, "%s: rank %d: send buffer changed\n", what, r);
                        bad++;
                        break;
                    }
            }
        if (bad || m.failures) break;
    }
    run_neighbour(m); /* its stores before its barrier meet the last call's last phase */
    return bad + m.failures;
}

/* The bytes each rank's memory moves (data area and user buffers, reads and writes) are the
 * counts of collectives/README.md, for sizes that fill whole 16-byte packs; reduce also in place
 * and from an unaligned sendbuf (root copies its input in then). */
static int check_bytes(void) {
    int bad = 0;
    for (int n = 2; n <= 8; n++)
        for (int coll = ALLREDUCE; coll <= REDUCE_SCATTER; coll++)
            for (int shot = 0; shot < 2; shot++)
            for (int mode = 0; mode < 3; mode++) /* inputs loaded, stored, stored zero-copy */
            for (int buf = 0; buf < 3; buf++) { /* out of place, in place (reduce), unaligned (reduce) */
                if (mode == 2 && (coll != ALLREDUCE || !shot)) continue;
                if (buf && coll != REDUCE) continue;
                const size_t S = (size_t)16 * n * (n - 1) * 24; /* whole packs in every slice */
                mcoll_dev_team team;
                memset(&team, 0, sizeof team);
                team.size = n;
                team.max_blocks = 2;
                team.data_bytes = 2 * 2 * (2 * (size_t)n * 64);
                team.oneshot_max = shot ? 0 : (size_t)1 << 30;
                team.store_inputs = mode > 0;
                Model m(n, 2, team.data_bytes);
                Call k;
                k.zero_copy = mode == 2;
                k.coll = (Coll)coll;
                k.in_place = buf == 1;
                k.misalign = buf == 2 ? 7 : 0;
                k.root = n - 1;
                k.dtype = MCOLL_U8;
                k.bytes = coll == REDUCE_SCATTER ? S / n : S;
                build(k, n, 0, team);
                m.what = coll_name[coll];
                size_t barriers;
                run_call(m, k, team, false, &barriers);
                for (int r = 0; r < n; r++) {
                    const bool root = r == k.root;
                    size_t want = 0;
                    switch (coll) {
                    /* Zero-copy by stores: its input read, every rank's part of its slice
                     * received and read, every slice's result received into recvbuf. */
                    case ALLREDUCE: want = mode == 2 ? 4 * S : shot ? 6 * S : (n + 3) * S; break;
                    /* Two ranks reduce one-shot at every size (reduce_one_shot). One-shot root
                     * reads its input in place and writes recvbuf, 2S; from an unaligned sendbuf
                     * it copies it in (2S) and reads it back (S) first, 4S. */
                    case REDUCE:
                        want = shot && n > 2 ? (root ? 6 * S : 3 * S) : !root ? 3 * S : buf == 2 ? 4 * S : 2 * S;
                        break;
                    default: want = 3 * S + S / n; break; /* reduce_scatter: the same either way */
                    }
                    if (m.hbm[r] != want) {
                        fprintf(stderr, "%s %s mode %d buffers %d n=%d rank %d: %zu bytes through memory, want %zu\n",
                                coll_name[coll], shot ? "two-shot" : "one-shot", mode, buf, n, r, m.hbm[r], want);
                        bad++;
                    }
                }
                bad += m.failures;
                /* Reduce on two ranks: root alone reduces, one-shot. */
                if (coll == REDUCE && shot && n == 2)
                    for (int r = 0; r < n; r++) {
                        team.rank = r;
                        const ReduceCall o = reduce_call(&team, nullptr, nullptr, S, k.root);
                        if (o.two_shot || reduces(o, r) != (r == k.root)) bad++;
                    }
                /* Reduce: root reduces nothing and receives every reduced byte once. */
                if (coll == REDUCE && shot && n > 2) {
                    team.rank = k.root;
                    const ReduceCall c = reduce_call(&team, nullptr, nullptr, S, k.root);
                    if (reduces(c, k.root) || c.nslots != n - 1) bad++;
                    for (int r = 0; r < n; r++) {
                        team.rank = r;
                        const ReduceCall o = reduce_call(&team, nullptr, nullptr, S, k.root);
                        if (r != k.root && (o.red_slot != (r - k.root - 1 + n) % n || !reduces(o, r))) bad++;
                    }
                }
            }
    return bad;
}

/* Every combination of jobs: the warps cover the block once, each running job gets some. */
static int check_split(void) {
    int bad = 0;
    for (int mask = 0; mask < 8; mask++) {
        Step st;
        for (int j = 0; j < kJobs; j++) st.run[j] = (mask >> j) & 1;
        const Split sp = split_of(st);
        int next = 0;
        for (int j = 0; j < kJobs; j++) {
            bad += sp.first[j] != next;
            bad += st.run[j] ? sp.count[j] < 1 : sp.count[j] != 0;
            next += sp.count[j];
        }
        bad += mask ? next != kWarps : next != 0;
        if (mask == 7) bad += sp.count[kJobRed] != kWarps / 2;
    }
    return bad;
}

/* The zero-copy grids: 32 blocks (max_blocks) below the wide slot, 64 (direct_blocks) from it;
 * the reduce to a root from its own, larger threshold. */
static int check_wide_grid(void) {
    mcoll_dev_team t;
    memset(&t, 0, sizeof t);
    t.size = 2;
    t.max_blocks = 32;
    t.direct_blocks = 64;
    int bad = 0;
    const struct { size_t slot, wide_from; int blocks; } cases[] = {
        {kWideSlot - 16, kWideSlot, 32},       {kWideSlot, kWideSlot, 64},
        {kWideSlot, kWideReduceSlot, 32},      {kWideReduceSlot / 2, kWideReduceSlot, 32},
        {kWideReduceSlot, kWideReduceSlot, 64}, {(size_t)256 << 20, kWideReduceSlot, 64}};
    for (const auto &c : cases) {
        Sched s;
        make_direct_sched(&t, c.slot, &s, c.wide_from);
        if (s.blocks != c.blocks) {
            fprintf(stderr, "slot %zu, wide from %zu: %d blocks, %d expected\n", c.slot, c.wide_from, s.blocks, c.blocks);
            bad++;
        }
    }
    /* Root-centred kernels (bcast, reduce) on three ranks or more: 16 blocks for slots of 1 MiB
     * up to the wide slot; on two ranks, and for the others, the grids above. */
    const size_t MiB = (size_t)1 << 20;
    const struct { int size; size_t slot, wide_from; bool centred; int blocks; } root_cases[] = {
        {4, MiB - 16, kWideSlot, true, 32},       {4, MiB, kWideSlot, true, 16},
        {4, 3 * MiB, kWideSlot, true, 16},        {4, kWideSlot - 16, kWideSlot, true, 16},
        {4, kWideSlot, kWideSlot, true, 64},      {4, kWideSlot, kWideReduceSlot, true, 32},
        {3, 3 * MiB, kWideReduceSlot, true, 16},  {2, 3 * MiB, kWideSlot, true, 32},
        {4, 3 * MiB, kWideSlot, false, 32}};
    for (const auto &c : root_cases) {
        Sched s;
        t.size = c.size;
        make_direct_sched(&t, c.slot, &s, c.wide_from, c.centred);
        if (s.blocks != c.blocks) {
            fprintf(stderr, "%d ranks, slot %zu, wide from %zu, root-centred %d: %d blocks, %d expected\n", c.size,
                    c.slot, c.wide_from, (int)c.centred, s.blocks, c.blocks);
            bad++;
        }
    }
    return bad;
}

int main(void) {
    int cases = 0, failures = 0;
    CHECK(check_split() == 0);
    CHECK(check_wide_grid() == 0);
    CHECK(check_bytes() == 0);
    {   /* The kernel counts phases in 32 bits: up to chunks + 2 of them must fit. */
        Sched s;
        memset(&s, 0, sizeof s);
        s.chunk = 16;
        s.span = s.chunk * ((size_t)UINT32_MAX - 3);
        CHECK(phases_fit(s));
        s.span += s.chunk;
        CHECK(!phases_fit(s));
    }
    for (int round = 0; round < 150; round++)
        for (int n = 2; n <= 8; n++) {
            failures += run_case(n, round) != 0;
            cases++;
        }
    CHECK(failures == 0);
    /* Root read its input in place in and out of place, over several chunks and with a partial
     * last pack, and kept the copy from unaligned sendbufs. */
    CHECK(root_reads.in_place > 0 && root_reads.out_of_place > 0 && root_reads.chunks > 0 && root_reads.odd > 0);
    CHECK(root_reads.unaligned > 0);
    printf("root read in place: %d in place, %d out of place, %d of 3+ chunks, %d odd sizes; %d unaligned copied\n",
           root_reads.in_place, root_reads.out_of_place, root_reads.chunks, root_reads.odd, root_reads.unaligned);
    printf("%d cases\n", cases);
    return unit_exit("test_pipeline");
}
