/* The byte-moving kernel behind allgather(v), gather(v), scatter(v) and alltoall(v)
 * (exchange_run.cu): what a call asks for, how it is cut into blocks and chunks, and the
 * builders the launchers fill it with. Host and device code: tests/unit/test_exchange.cu runs
 * all of it but the kernel on the CPU.
 *
 * A piece is a run of bytes that one rank hands to another. Rank r's call lists
 *   out[p]  (p != r) the piece it sends to rank p: sendbuf + out_off[p], out_len[p] bytes;
 *           with to_all, out[r] instead: stored into every rank (allgather);
 *   own     its piece to itself: sendbuf + out_off[r] to recvbuf + in_off[r], in_len[r] bytes,
 *           copied locally when own_copy (0: in place, already there);
 *   in[q]   (q != r) the piece it receives from rank q: in_len[q] bytes to recvbuf + in_off[q].
 * Every piece is cut the same way on both sides: block b takes bytes [b * span, (b + 1) * span)
 * of it, chunk k of those the k-th `chunk` bytes. Per chunk, each rank stores its parts of the
 * out pieces into the receivers' data areas (plain stores to that one rank; with to_all the
 * access layer's `st` to every rank), copies its own part, meets the others at the block's
 * barrier and copies the parts of its in pieces out of its own data area. A piece from rank q
 * lands in slot q of the receiver's half (slot 0 with one_slot: scatter, where a rank receives
 * one piece), so one barrier per chunk orders everything (schedule.cuh: halves).
 *
 * The number of chunks, and so of barriers, must be the same on every rank. With `known` every
 * rank knows the longest piece of the whole collective (allgatherv; every fixed-count call):
 * all pieces use one span and a block runs the chunks of the longest. Otherwise (gatherv,
 * scatterv, alltoallv: a rank knows only the pieces it sends and receives) each piece has its
 * own span, the grid has max_blocks blocks, and each rank stores with every chunk a flag "I
 * have more" (the number of the barrier it precedes, or 0) into header slot r of every rank's
 * half; after the barrier every rank reads the same flags and all stop together. */
#ifndef MCOLL_EXCHANGE_RUN_CUH
#define MCOLL_EXCHANGE_RUN_CUH

#include <stddef.h>
#include "launch.h"
#include "schedule.cuh"

#ifndef MCOLL_HD
#define MCOLL_HD __host__ __device__ __forceinline__
#endif

namespace mcoll {

struct ExchangeCall {
    const char *send;
    char *recv;
    size_t out_off[MCOLL_MAX_RANKS];
    size_t out_len[MCOLL_MAX_RANKS];
    size_t in_off[MCOLL_MAX_RANKS];
    size_t in_len[MCOLL_MAX_RANKS];
    int to_all;     /* out[rank] is stored into every rank (allgather) */
    int one_slot;   /* pieces land in slot 0 (scatter); else in the sender's slot */
    int own_copy;   /* the own piece is copied locally (0: in place) */
    int known;      /* every rank knows max_len (see above) */
    size_t max_len; /* known: the longest piece of the collective, on every rank */
};

struct ExchangeSched {
    size_t region; /* data-area bytes of one block row */
    size_t half;   /* region / 2 */
    size_t chunk;  /* bytes of one slot: a piece's part per chunk */
    size_t span;   /* known: every piece's bytes per block; 0: each piece its own */
    int nslots;
    int blocks;
};

/* The flags at the start of each half: one 16-byte pack per rank. */
constexpr size_t kHeaderBytes = 16 * MCOLL_MAX_RANKS;

/* A chunk of gatherv, scatterv and alltoallv, whose spans no rank knows: about what a 16 MiB
 * data area gave 4 ranks. */
constexpr size_t kUnknownChunk = (size_t)64 << 10;

/* Bytes of a piece of `len` bytes that one block takes: the schedule's span when the pieces are
 * known, else the piece's own share of the blocks, at least kBlockBytes (small pieces stay in
 * the first blocks). A multiple of 16, so parts start 16-byte aligned in the piece. */
MCOLL_HD size_t piece_span(const ExchangeSched &s, size_t len) {
    if (s.span) return s.span;
    const size_t per = slice16(len, (size_t)s.blocks);
    return per > kBlockBytes ? per : kBlockBytes;
}

/* Chunk k of block b of a piece of `len` bytes: its bytes (0: none) and, in *off, where it
 * starts in the piece. */
MCOLL_HD size_t piece_part(const ExchangeSched &s, size_t len, int b, size_t k, size_t *off) {
    const size_t span = piece_span(s, len), lo = (size_t)b * span;
    if (lo >= len) return 0;
    const size_t hi = len - lo < span ? len : lo + span;
    if (k >= (hi - lo + s.chunk - 1) / s.chunk) return 0;
    *off = lo + k * s.chunk;
    return hi - *off < s.chunk ? hi - *off : s.chunk;
}

/* Chunks block b runs when the pieces are known: those of the longest piece, which has the
 * most bytes in every block (one span for all). */
MCOLL_HD size_t known_chunks(const ExchangeSched &s, size_t max_len, int b) {
    const size_t lo = (size_t)b * s.span;
    if (lo >= max_len) return 0;
    const size_t n = max_len - lo < s.span ? max_len - lo : s.span;
    return (n + s.chunk - 1) / s.chunk;
}

/* Offset in a half of the slot holding the piece from `sender`. */
MCOLL_HD size_t slot_at(const ExchangeCall &c, const ExchangeSched &s, int sender) {
    return kHeaderBytes + (size_t)(c.one_slot ? 0 : sender) * s.chunk;
}

/* Bytes of piece p that this rank moves before the barrier: out pieces it stores, its own
 * copy. These decide its "more" flag; what it receives is another rank's out piece. */
MCOLL_HD size_t moved_len(const ExchangeCall &c, int rank, int p) {
    if (p != rank) return c.to_all ? 0 : c.out_len[p];
    const size_t own = c.own_copy ? c.in_len[rank] : 0;
    return c.to_all && c.out_len[rank] > own ? c.out_len[rank] : own;
}

/* 1 when this rank moves bytes in block b after chunk k: the flag it sends with chunk k. */
MCOLL_HD int exchange_more(const ExchangeCall &c, const ExchangeSched &s, int rank, int size, int b, size_t k) {
    size_t off;
    for (int p = 0; p < size; p++)
        if (piece_part(s, moved_len(c, rank, p), b, k + 1, &off)) return 1;
    return 0;
}

/* 0 on success; nonzero when the data area is too small for this team. */
inline int make_exchange_sched(const mcoll_dev_team *t, const ExchangeCall &c, ExchangeSched *s) {
    const int rows = block_rows(t->max_blocks);
    s->nslots = c.one_slot ? 1 : t->size;
    s->region = (t->data_bytes / (size_t)layout_rows(t)) & ~(size_t)31;
    s->half = s->region / 2;
    if (s->half <= kHeaderBytes) return 1;
    const size_t capacity = ((s->half - kHeaderBytes) / (size_t)s->nslots) & ~(size_t)15;
    if (capacity == 0) return 1;
    if (!c.known) {
        /* The pieces' spans differ by rank and no rank knows the others': one chunk size from
         * the team alone, kUnknownChunk or what the half holds. */
        s->chunk = capacity < kUnknownChunk ? capacity : kUnknownChunk;
        s->span = 0;
        s->blocks = rows;
        return 0;
    }
    /* As make_sched: a block for every kBlockBytes of the longest piece, up to the rows. */
    spread(c.max_len ? c.max_len : 1, rows, &s->span, &s->blocks);
    s->chunk = pick_chunk(capacity, s->span);
    return 0;
}

/* ---- the calls, as the launchers build them (byte counts and offsets) ------------------- */

inline ExchangeCall exchange_call(const void *send, void *recv) {
    ExchangeCall c = {};
    c.send = (const char *)send;
    c.recv = (char *)recv;
    return c;
}

inline void note_len(ExchangeCall &c, size_t len) {
    if (len > c.max_len) c.max_len = len;
}

inline size_t min_len(size_t a, size_t b) { return a < b ? a : b; }

/* A fixed-count call as a variable-count one: `bytes` per rank, blocks in rank order. */
inline void equal_blocks(int size, size_t bytes, size_t *lens, size_t *offs) {
    for (int q = 0; q < size; q++) {
        lens[q] = bytes;
        offs[q] = (size_t)q * bytes;
    }
}

/* Every rank stores its block into every rank (slot: its rank); recvbytes and displs have an
 * entry per rank, the same on every rank, so the pieces are known. In place when sendbuf is
 * recvbuf + displs[rank]. */
inline ExchangeCall allgatherv_call(int rank, int size, const void *send, size_t sendbytes, void *recv,
                                    const size_t *recvbytes, const size_t *displs) {
    ExchangeCall c = exchange_call(send, recv);
    c.to_all = 1;
    c.known = 1;
    for (int q = 0; q < size; q++) {
        c.in_off[q] = displs[q];
        c.in_len[q] = recvbytes[q];
        note_len(c, recvbytes[q]);
    }
    /* More than recvbytes[rank] would make this rank run chunks the others do not. */
    c.out_len[rank] = min_len(sendbytes, recvbytes[rank]);
    c.own_copy = c.send != c.recv + displs[rank];
    return c;
}

/* Every rank stores its block into root's data area; root copies its own locally (in place
 * when sendbuf is recvbuf + displs[root]). recvbytes and displs are read at root only. */
inline ExchangeCall gatherv_call(int rank, int size, int root, const void *send, size_t sendbytes, void *recv,
                                 const size_t *recvbytes, const size_t *displs, int known) {
    ExchangeCall c = exchange_call(send, recv);
    c.known = known;
    if (rank != root) {
        c.out_len[root] = sendbytes;
        note_len(c, sendbytes);
        return c;
    }
    for (int q = 0; q < size; q++) {
        c.in_off[q] = displs[q];
        c.in_len[q] = q == rank ? min_len(sendbytes, recvbytes[q]) : recvbytes[q];
        note_len(c, recvbytes[q]);
    }
    c.own_copy = c.send != c.recv + displs[root];
    return c;
}

/* Root stores block p of sendbuf into slot 0 of rank p's data area; root's own block is copied
 * locally (in place when recvbuf is sendbuf + displs[root]). sendbytes and displs are read at
 * root only. */
inline ExchangeCall scatterv_call(int rank, int size, int root, const void *send, const size_t *sendbytes,
                                  const size_t *displs, void *recv, size_t recvbytes, int known) {
    ExchangeCall c = exchange_call(send, recv);
    c.one_slot = 1;
    c.known = known;
    note_len(c, recvbytes);
    if (rank != root) {
        c.in_len[root] = recvbytes;
        return c;
    }
    for (int p = 0; p < size; p++) {
        c.out_off[p] = displs[p];
        c.out_len[p] = p == rank ? 0 : sendbytes[p];
        note_len(c, sendbytes[p]);
    }
    c.in_len[rank] = min_len(sendbytes[rank], recvbytes);
    c.own_copy = c.recv != c.send + displs[root];
    return c;
}

/* Every rank stores block p of sendbuf into slot `rank` of rank p's data area and copies its own
 * block locally. In place when sendbuf is recvbuf and the send counts and displacements are
 * the receive ones: each part is sent before the barrier and overwritten after it, by the same
 * block. */
inline ExchangeCall alltoallv_call(int rank, int size, const void *send, const size_t *sendbytes,
                                   const size_t *sdispls, void *recv, const size_t *recvbytes, const size_t *rdispls,
                                   int known) {
    ExchangeCall c = exchange_call(send, recv);
    c.known = known;
    for (int p = 0; p < size; p++) {
        c.out_off[p] = sdispls[p];
        c.out_len[p] = p == rank ? 0 : sendbytes[p];
        c.in_off[p] = rdispls[p];
        c.in_len[p] = p == rank ? min_len(sendbytes[p], recvbytes[p]) : recvbytes[p];
        note_len(c, sendbytes[p]);
        note_len(c, recvbytes[p]);
    }
    c.own_copy = c.send + sdispls[rank] != c.recv + rdispls[rank];
    return c;
}

/* Validates the team, makes the schedule and launches (nothing when the pieces are known and
 * all empty). */
int run_exchange(const mcoll_dev_team *team, mcoll_access access, const ExchangeCall &call, void *stream);

} // namespace mcoll
#endif /* MCOLL_EXCHANGE_RUN_CUH */
