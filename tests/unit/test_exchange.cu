/* The exchange collectives' arithmetic on the CPU (collectives/exchange_run.cuh): the calls the
 * launchers build for allgather(v), gather(v), scatter(v) and alltoall(v) are run through a
 * host model of exchange_kernel, rank by rank and block by block, with byte-sized data areas
 * whose every byte remembers the barrier it was written for. Checked, for random teams, data
 * areas, counts (zeros among them), displacements with gaps, roots, in place and not:
 *   - every receive buffer ends as MPI defines it, the gaps between blocks and the bytes
 *     around the buffers untouched, send buffers unchanged;
 *   - a part is only read after the barrier it was written for, from the slot its sender
 *     wrote, and no store leaves its slot;
 *   - all ranks run the same number of chunks in every block (the flags of the variable-count
 *     calls agree), no more than its longest part needs, and blocks run in any order give the
 *     same result (in place included).
 * Also: piece_part cuts every piece into parts that cover it once. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>
#include "exchange_run.cuh"
#include "unit.h"

using namespace mcoll;


static const int kGuard = 64;          /* bytes around every user buffer */
static const unsigned char kPoison = 0xFF, kCanary = 0xA5;

/* A user buffer with guard bytes on both sides. */
struct Buf {
    std::vector<unsigned char> bytes;
    size_t n = 0;
    void make(size_t len, unsigned char fill) {
        n = len;
        bytes.assign(len + 2 * kGuard, kCanary);
        memset(bytes.data() + kGuard, fill, len);
    }
    unsigned char *data() { return bytes.data() + kGuard; }
    bool guards_ok() const {
        for (int i = 0; i < kGuard; i++)
            if (bytes[i] != kCanary || bytes[kGuard + n + i] != kCanary) return false;
        return true;
    }
};

static unsigned char byte_of(int rank, size_t i) { return (unsigned char)(rank * 131 + i * 7 + (i >> 8) + 1) | 1; }

/* One rank of the model: its data area and the barrier each byte was written for. */
struct Rank {
    std::vector<unsigned char> area;
    std::vector<uint32_t> tag;
    uint32_t epoch;
};

struct Model {
    int size;
    mcoll_dev_team team;
    std::vector<Rank> ranks;
    int failures = 0;

    Model(int n, int rows, size_t data_bytes) : size(n), ranks(n) {
        memset(&team, 0, sizeof team);
        team.size = n;
        team.data_bytes = data_bytes;
        team.max_blocks = rows;
        for (int r = 0; r < n; r++) {
            ranks[r].area.assign(data_bytes, 0);
            ranks[r].tag.assign(data_bytes, 0);
            ranks[r].epoch = 1000 + 7; /* an odd start: both halves in use from the first chunk */
        }
    }

    void fail(const char *what) {
        if (failures++ < 5) fprintf(stderr, "exchange model: %s\n", what);
    }

    /* A pack store into rank d's data area: whole 16-byte packs, as the kernel stores them. */
    void store(int d, size_t at, const unsigned char *src, size_t m, size_t hi, uint32_t barrier) {
        const size_t packs = (m + 15) / 16 * 16;
        if (at + packs > hi) {
            fail("a store leaves its slot");
            return;
        }
        for (size_t i = 0; i < packs; i++) {
            if (ranks[d].tag[at + i] == barrier) fail("two stores to one place for one barrier");
            ranks[d].area[at + i] = i < m ? src[i] : 0;
            ranks[d].tag[at + i] = barrier;
        }
    }

    /* Runs the kernel's loop for block b of every rank; false when the ranks disagree. */
    void run_block(const std::vector<ExchangeCall> &calls, const std::vector<ExchangeSched> &sched, int b) {
        const ExchangeSched &s = sched[0];
        size_t chunks = calls[0].known ? known_chunks(s, calls[0].max_len, b) : 0;
        for (int r = 0; r < size; r++) {
            if (memcmp(&sched[r], &s, sizeof s)) fail("ranks made different schedules");
            if (calls[r].known && known_chunks(sched[r], calls[r].max_len, b) != chunks) fail("ranks count different chunks");
        }
        /* No more chunks than the longest part of the block needs (at least one: the flags); known
         * calls run those of the longest piece, whether it moves or not (in place). */
        size_t needed = calls[0].known ? chunks : 1;
        for (int r = 0; r < size; r++)
            for (int p = 0; p < size; p++) {
                size_t k = 0, off;
                while (piece_part(s, moved_len(calls[r], r, p), b, k, &off)) k++;
                if (k > needed) needed = k;
            }
        for (size_t k = 0;; k++) {
            if (k >= needed) {
                fail("a block runs more chunks than its parts need");
                return;
            }
            if (k > 100000) {
                fail("a block does not end");
                return;
            }
            /* Before the barrier, every rank. */
            for (int r = 0; r < size; r++) {
                const ExchangeCall &c = calls[r];
                Rank &me = ranks[r];
                const size_t region = (size_t)b * s.region, area = region + ((me.epoch + 1) & 1) * s.half;
                const uint32_t barrier = me.epoch + 1;
                size_t off = 0, m;
                if (c.to_all && (m = piece_part(s, c.out_len[r], b, k, &off)) != 0)
                    for (int d = 0; d < size; d++)
                        store(d, area + slot_at(c, s, r), (const unsigned char *)c.send + c.out_off[r] + off, m,
                              area + slot_at(c, s, r) + s.chunk, barrier);
                if (c.own_copy && (m = piece_part(s, c.in_len[r], b, k, &off)) != 0)
                    memcpy(c.recv + c.in_off[r] + off, c.send + c.out_off[r] + off, m);
                if (!c.to_all)
                    for (int j = 1; j < size; j++) {
                        const int q = (r + j) % size;
                        if ((m = piece_part(s, c.out_len[q], b, k, &off)) == 0) continue;
                        store(q, area + slot_at(c, s, r), (const unsigned char *)c.send + c.out_off[q] + off, m,
                              area + slot_at(c, s, r) + s.chunk, barrier);
                    }
                if (!c.known) {
                    unsigned char flag[16] = {0};
                    const uint32_t more = exchange_more(c, s, r, size, b, k) ? barrier : 0;
                    memcpy(flag, &more, sizeof more);
                    for (int d = 0; d < size; d++) store(d, area + (size_t)r * 16, flag, 16, area + kHeaderBytes, barrier);
                }
            }
            for (int r = 0; r < size; r++) ranks[r].epoch++;
            /* After it. */
            int more = -1;
            for (int r = 0; r < size; r++) {
                const ExchangeCall &c = calls[r];
                Rank &me = ranks[r];
                const size_t area = (size_t)b * s.region + (me.epoch & 1) * s.half;
                size_t off = 0, m;
                for (int j = 1; j < size; j++) {
                    const int q = (r + j) % size;
                    if ((m = piece_part(s, c.in_len[q], b, k, &off)) == 0) continue;
                    const size_t at = area + slot_at(c, s, q);
                    for (size_t i = 0; i < m; i++)
                        if (me.tag[at + i] != me.epoch) {
                            fail("a part is read that was not written for this barrier");
                            break;
                        }
                    memcpy(c.recv + c.in_off[q] + off, me.area.data() + at, m);
                }
                int mine;
                if (c.known) {
                    mine = k + 1 < chunks;
                } else {
                    mine = 0;
                    for (int q = 0; q < size; q++) {
                        uint32_t flag;
                        if (me.tag[area + (size_t)q * 16] != me.epoch) fail("a flag was not written for this barrier");
                        memcpy(&flag, me.area.data() + area + (size_t)q * 16, sizeof flag);
                        mine |= flag == me.epoch; /* as the kernel: the barrier just passed, or no */
                    }
                }
                if (more >= 0 && mine != more) fail("ranks disagree on another chunk");
                more = mine;
            }
            if (!more) return;
        }
    }

    /* The whole collective: blocks in order, or the last first. */
    void run(const std::vector<ExchangeCall> &calls, bool reverse) {
        std::vector<ExchangeSched> sched(size);
        for (int r = 0; r < size; r++) {
            team.rank = r;
            if (make_exchange_sched(&team, calls[r], &sched[r]) != 0) {
                fail("no schedule");
                return;
            }
        }
        if (calls[0].known && calls[0].max_len == 0) return; /* run_exchange launches nothing */
        for (int i = 0; i < sched[0].blocks; i++) run_block(calls, sched, reverse ? sched[0].blocks - 1 - i : i);
    }
};

/* ---- scenarios ------------------------------------------------------------------------- */

enum Kind { ALLGATHERV, GATHERV, SCATTERV, ALLTOALLV };
static const char *kind_name[] = {"allgatherv", "gatherv", "scatterv", "alltoallv"};

/* Block sizes: often small, sometimes several blocks' worth, some zero. */
static size_t piece_size(size_t scale) {
    switch (rnd() % 6) {
    case 0: return 0;
    case 1: return below(40);
    case 2: return scale + below(scale);
    default: return below(scale * 3) + 1;
    }
}

/* Displacements of blocks of `len` in a random order, with gaps; returns the bytes spanned. */
static size_t layout(int n, const size_t *len, size_t *displ) {
    std::vector<int> order(n);
    for (int i = 0; i < n; i++) order[i] = i;
    for (int i = n - 1; i > 0; i--) std::swap(order[i], order[below((size_t)i + 1)]);
    size_t at = below(5);
    for (int i = 0; i < n; i++) {
        displ[order[i]] = at;
        at += len[order[i]] + below(9);
    }
    return at;
}

struct Case {
    Kind kind;
    int n, root, in_place, fixed;
    size_t len[MCOLL_MAX_RANKS][MCOLL_MAX_RANKS];     /* [sender][receiver] bytes */
    size_t sdispl[MCOLL_MAX_RANKS][MCOLL_MAX_RANKS];  /* at the sender, for each receiver */
    size_t rdispl[MCOLL_MAX_RANKS][MCOLL_MAX_RANKS];  /* at the receiver, for each sender */
    size_t sbytes[MCOLL_MAX_RANKS], rbytes[MCOLL_MAX_RANKS];
};

/* Random counts and layouts as MPI allows them for the kind. */
static void make_case(Case &t, Kind kind, int n, size_t scale) {
    memset(&t, 0, sizeof t);
    t.kind = kind;
    t.n = n;
    t.root = (int)below((size_t)n);
    t.fixed = rnd() % 3 == 0;
    t.in_place = rnd() % 2;
    const size_t same = piece_size(scale);
    for (int s = 0; s < n; s++)
        for (int d = 0; d < n; d++) t.len[s][d] = t.fixed ? same : piece_size(scale);
    /* Which pairs move data, and who knows it. */
    for (int s = 0; s < n; s++)
        for (int d = 0; d < n; d++) {
            if (kind == ALLGATHERV) t.len[s][d] = t.len[s][0];     /* a rank's block goes to all */
            if (kind == GATHERV && d != t.root) t.len[s][d] = 0;
            if (kind == SCATTERV && s != t.root) t.len[s][d] = 0;
            if (kind == ALLTOALLV && t.in_place) t.len[s][d] = t.len[s < d ? s : d][s < d ? d : s]; /* symmetric */
        }
    for (int r = 0; r < n; r++) {
        size_t out[MCOLL_MAX_RANKS], in[MCOLL_MAX_RANKS];
        for (int q = 0; q < n; q++) {
            out[q] = t.len[r][q];
            in[q] = t.len[q][r];
        }
        if (t.fixed) {
            for (int q = 0; q < n; q++) t.sdispl[r][q] = t.rdispl[r][q] = (size_t)q * same;
            t.sbytes[r] = t.rbytes[r] = (size_t)n * same;
        } else {
            t.sbytes[r] = layout(n, out, t.sdispl[r]);
            t.rbytes[r] = layout(n, in, t.rdispl[r]);
        }
        if (kind == ALLTOALLV && t.in_place) {
            memcpy(t.sdispl[r], t.rdispl[r], sizeof t.sdispl[r]);
            t.sbytes[r] = t.rbytes[r];
        }
    }
}

/* Builds every rank's call as the launchers do, runs the model, checks the buffers. */
static int run_case(const Case &t, int rows, size_t data_bytes, bool reverse) {
    const int n = t.n;
    std::vector<Buf> send(n), recv(n), want(n);
    std::vector<ExchangeCall> calls(n);
    Model model(n, rows, data_bytes);
    char what[160];

    for (int r = 0; r < n; r++) {
        const bool root = r == t.root;
        size_t sb = t.sbytes[r], rb = t.rbytes[r];
        if (t.kind == ALLGATHERV || t.kind == GATHERV) sb = t.len[r][t.kind == GATHERV ? t.root : 0];
        if (t.kind == SCATTERV) rb = t.len[t.root][r];
        if (t.kind == GATHERV && !root) rb = 64; /* must stay untouched */
        if (t.kind == SCATTERV && !root) sb = 0;
        send[r].make(sb, 0);
        for (size_t i = 0; i < sb; i++) send[r].data()[i] = byte_of(r, i);
        recv[r].make(rb, kPoison);
        want[r].make(rb, kPoison);
    }
    /* In place: the sent data starts where the call says it is. */
    for (int r = 0; r < n; r++) {
        const bool root = r == t.root;
        if (!t.in_place) continue;
        if (t.kind == ALLGATHERV || (t.kind == GATHERV && root))
            memcpy(recv[r].data() + t.rdispl[r][r], send[r].data(), t.len[r][t.kind == GATHERV ? r : 0]);
        if (t.kind == ALLTOALLV) memcpy(recv[r].data(), send[r].data(), t.sbytes[r]);
    }
    /* What MPI says each receive buffer holds afterwards. */
    for (int r = 0; r < n; r++) {
        want[r].bytes = recv[r].bytes;
        for (int q = 0; q < n; q++) {
            if (t.kind == GATHERV && r != t.root) break;
            const size_t len = t.len[q][r];
            const unsigned char *src = send[q].data() + (t.kind == ALLTOALLV || t.kind == SCATTERV ? t.sdispl[q][r] : 0);
            if (t.kind == SCATTERV) {
                if (q != t.root || (t.in_place && r == t.root)) continue;
                memcpy(want[r].data(), src, len);
            } else {
                memcpy(want[r].data() + t.rdispl[r][q], src, len);
            }
        }
    }
    /* The calls, with the launchers' arguments. */
    for (int r = 0; r < n; r++) {
        const bool root = r == t.root;
        size_t lens[MCOLL_MAX_RANKS], displs[MCOLL_MAX_RANKS];
        const void *sb = t.in_place && (t.kind != SCATTERV) && (t.kind != GATHERV || root) ? nullptr : send[r].data();
        void *rb = recv[r].data();
        switch (t.kind) {
        case ALLGATHERV:
            for (int q = 0; q < n; q++) lens[q] = t.len[q][r];
            if (t.fixed) equal_blocks(n, t.len[0][0], lens, displs);
            else memcpy(displs, t.rdispl[r], sizeof displs);
            calls[r] = allgatherv_call(r, n, sb ? sb : recv[r].data() + displs[r], t.len[r][0], rb, lens, displs);
            break;
        case GATHERV:
            for (int q = 0; q < n; q++) lens[q] = t.len[q][r];
            if (t.fixed) equal_blocks(n, t.len[0][t.root], lens, displs);
            else memcpy(displs, t.rdispl[r], sizeof displs);
            calls[r] = gatherv_call(r, n, t.root, sb ? sb : recv[r].data() + displs[r], t.len[r][t.root],
                                    root ? rb : nullptr, root ? lens : nullptr, root ? displs : nullptr, t.fixed);
            if (!root) calls[r].recv = (char *)rb; /* a buffer no one may write */
            break;
        case SCATTERV:
            for (int q = 0; q < n; q++) lens[q] = t.len[r][q];
            if (t.fixed) equal_blocks(n, t.len[t.root][0], lens, displs);
            else memcpy(displs, t.sdispl[r], sizeof displs);
            calls[r] = scatterv_call(r, n, t.root, root ? sb : nullptr, root ? lens : nullptr, root ? displs : nullptr,
                                     t.in_place && root ? send[r].data() + displs[r] : rb, t.len[t.root][r], t.fixed);
            break;
        case ALLTOALLV: {
            size_t rlens[MCOLL_MAX_RANKS], rdispls[MCOLL_MAX_RANKS];
            for (int q = 0; q < n; q++) {
                lens[q] = t.len[r][q];
                rlens[q] = t.len[q][r];
            }
            if (t.fixed) {
                equal_blocks(n, t.len[0][0], lens, displs);
                equal_blocks(n, t.len[0][0], rlens, rdispls);
            } else {
                memcpy(displs, t.sdispl[r], sizeof displs);
                memcpy(rdispls, t.rdispl[r], sizeof rdispls);
            }
            calls[r] = alltoallv_call(r, n, sb ? sb : rb, lens, displs, rb, rlens, rdispls, t.fixed);
            break;
        }
        }
    }
    model.run(calls, reverse);

    int bad = model.failures;
    for (int r = 0; r < n && !bad; r++) {
        snprintf(what, sizeof what, "%s%s%s n=%d root=%d rows=%d data=%zu%s: rank %d", kind_name[t.kind],
                 t.fixed ? " (fixed)" : "", t.in_place ? " in place" : "", n, t.root, rows, data_bytes,
                 reverse ? " (blocks last first)" : "", r);
        if (recv[r].bytes != want[r].bytes) {
            size_t i = 0;
            while (recv[r].bytes[i] == want[r].bytes[i]) i++;
            fprintf(stderr, "%s: receive buffer byte %ld is 0x%02x, want 0x%02x\n", what, (long)i - kGuard,
                    recv[r].bytes[i], want[r].bytes[i]);
            bad++;
        }
        for (size_t i = 0; i < send[r].n; i++)
            if (send[r].data()[i] != byte_of(r, i)) {
                fprintf(stderr, "%s: send buffer changed at %zu\n", what, i);
                bad++;
                break;
            }
        if (!send[r].guards_ok()) {
            fprintf(stderr, "%s: send buffer guards written\n", what);
            bad++;
        }
    }
    if (model.failures) fprintf(stderr, "... in %s n=%d rows=%d data=%zu\n", kind_name[t.kind], n, rows, data_bytes);
    return bad;
}

/* Every byte of a piece belongs to exactly one (block, chunk) part. */
static int check_cover(void) {
    int bad = 0;
    for (int round = 0; round < 2000; round++) {
        ExchangeSched s = {};
        s.blocks = 1 + (int)below(40);
        s.chunk = 16 * (1 + below(64));
        const size_t len = below(round % 3 ? 5000 : 400000);
        s.span = rnd() % 2 ? 0 : 16 * (1 + below(600));
        if (s.span && (size_t)s.blocks * s.span < len) s.span = ((len + s.blocks - 1) / s.blocks + 15) & ~(size_t)15;
        std::vector<unsigned char> seen(len, 0);
        for (int b = 0; b < s.blocks; b++)
            for (size_t k = 0;; k++) {
                size_t off = 0, m = piece_part(s, len, b, k, &off);
                if (!m) break;
                if (off % 16 || m > s.chunk || off + m > len) bad++;
                for (size_t i = off; i < off + m && i < len; i++) seen[i]++;
                /* exchange_more's question, asked of a piece: does this block have bytes left? */
                const size_t span = piece_span(s, len), hi = (size_t)b * span + span < len ? (size_t)b * span + span : len;
                size_t next;
                if ((piece_part(s, len, b, k + 1, &next) != 0) != (off + m < hi)) bad++;
            }
        for (size_t i = 0; i < len; i++) bad += seen[i] != 1;
    }
    return bad;
}

int main(void) {
    static const int sizes[] = {1, 2, 3, 4, 5, 8, 32};
    static const int rows[] = {1, 2, 3, 32};
    int cases = 0, failures = 0;

    CHECK(check_cover() == 0);
    for (int round = 0; round < 60; round++)
        for (int kind = ALLGATHERV; kind <= ALLTOALLV; kind++)
            for (int si = 0; si < (int)(sizeof sizes / sizeof sizes[0]); si++) {
                const int n = sizes[si];
                if (n == 32 && round % 6) continue;
                Case t;
                /* Large pieces run over several blocks of kBlockBytes; small data areas force
                 * many chunks per block. */
                make_case(t, (Kind)kind, n, round % 4 == 0 ? 3 * kBlockBytes : 300);
                const int nrows = rows[below(4)];
                const size_t slot = 16 * (1 + below(round % 2 ? 4 : n > 8 ? 20 : 300));
                const size_t data_bytes = (size_t)nrows * 2 * (kHeaderBytes + (size_t)n * slot) + below(64);
                for (int reverse = 0; reverse < 2; reverse++) {
                    failures += run_case(t, nrows, data_bytes, reverse) != 0;
                    cases++;
                }
            }
    CHECK(failures == 0);
    CHECK(cases > 1500);
    /* The grid: every rank sees the same, and known calls take a block per kBlockBytes. */
    {
        mcoll_dev_team team;
        memset(&team, 0, sizeof team);
        team.size = 4;
        team.max_blocks = 32;
        team.data_bytes = (size_t)16 << 20;
        ExchangeCall c = exchange_call(nullptr, nullptr);
        ExchangeSched s;
        c.known = 1;
        c.max_len = 3 * kBlockBytes + 1;
        CHECK(make_exchange_sched(&team, c, &s) == 0 && s.blocks == 4 && s.span % 16 == 0 && s.chunk % 16 == 0);
        c.known = 0;
        CHECK(make_exchange_sched(&team, c, &s) == 0 && s.blocks == 32 && s.span == 0);
        c.one_slot = 1;
        CHECK(make_exchange_sched(&team, c, &s) == 0 && s.chunk == kUnknownChunk);
        team.data_bytes = (size_t)1 << 20; /* a half of 16 KiB: the chunk is what it holds */
        CHECK(make_exchange_sched(&team, c, &s) == 0 && s.chunk == ((s.half - kHeaderBytes) & ~(size_t)15));
        team.data_bytes = 32 * 2 * kHeaderBytes; /* no room for data */
        CHECK(make_exchange_sched(&team, c, &s) != 0);
    }
    printf("%d cases\n", cases);
    return unit_exit("test_exchange");
}
