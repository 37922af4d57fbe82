/* How a collective is spread over blocks and chunks; computed on the host, identical on every
 * rank for identical arguments (it depends only on the team's fixed sizes and the message).
 *
 * The message is `nslots` slots of `slot_bytes` (allreduce: one slot; two-shot: one slice per
 * rank; reduce_scatter and allgather: one block of data per rank). Block b handles bytes
 * [b*span, (b+1)*span) of every slot, always through its own region of the data area:
 * region b = [b*region, (b+1)*region), the same for every collective on the team whatever its
 * grid (the area is cut for the largest grid the team launches, layout_rows). So only block b
 * of any rank ever touches region b, and per-block barriers order everything.
 *
 * Each region has two halves. Data written before barrier number e of a block row (locally or
 * into peers) goes to half e&1 and is read after barrier e; what is written between barriers e
 * and e+1 goes to the other half. A rank can only be past barrier e once every rank has finished
 * what it did before e, so a half is never written while anyone may still read it, and a
 * collective needs no barrier at its end: the next one writes the other half first.
 *
 * A half holds `half_slots` slots of `chunk` bytes: nslots, or 2 * nslots where a pipelined
 * two-shot reduction keeps one chunk's inputs and another chunk's results in the same half
 * (pipeline.cuh). */
#ifndef MCOLL_SCHEDULE_CUH
#define MCOLL_SCHEDULE_CUH

#include <stddef.h>
#include "launch.h"

namespace mcoll {

#ifndef MCOLL_HD
#define MCOLL_HD __host__ __device__ __forceinline__
#endif

/* The size of each of `parts` slices of `bytes`, a whole number of 16-byte packs (the last slice
 * is the shorter), so that every slice starts 16-byte aligned. */
MCOLL_HD size_t slice16(size_t bytes, size_t parts) { return ((bytes + parts - 1) / parts + 15) & ~(size_t)15; }

/* Zero-copy reduce and bcast cut a slice per non-root rank, and on two ranks one for each: one
 * rank alone would do the whole transfer while root's blocks waited at the barrier. */
MCOLL_HD int direct_slices(int size) { return size == 2 ? 2 : size - 1; }

/* Bytes of slot q (slots of slot_bytes cut from total bytes) inside [off, off + len). */
MCOLL_HD size_t slot_part(size_t total, size_t slot_bytes, int q, size_t off, size_t len) {
    const size_t start = (size_t)q * slot_bytes;
    if (start >= total) return 0;
    const size_t slot = total - start < slot_bytes ? total - start : slot_bytes;
    if (off >= slot) return 0;
    return slot - off < len ? slot - off : len;
}

struct Sched {
    size_t slot_bytes; /* user bytes per slot */
    size_t span;       /* slot bytes per block (multiple of 16) */
    size_t chunk;      /* slot bytes per chunk (multiple of 16) */
    size_t region;     /* data-area bytes owned by one block row */
    size_t half;       /* region / 2 */
    int nslots;
    int blocks;
};

/* Bytes of a slot a block takes before another block is worth starting. */
constexpr size_t kBlockBytes = 8192;

/* Keeps pack indices within a chunk in 32 bits. */
constexpr size_t kMaxChunk = (size_t)1 << 30;

/* A chunk's size. Each chunk costs a barrier, so none is smaller than kMinChunk; a block's chunks
 * overlap one another's copies and NVLink transfers (pipeline.cuh) or drift apart from the other
 * blocks' (the kernels that run chunks in turn), which takes several of them, so a block's span is
 * cut into about kChunksPerBlock; and a half holds what the data area allows (`capacity`). With
 * the 64 MiB default buffer this gives large messages chunks four times as large as a 16 MiB one
 * did (a quarter of the barriers), and messages of tens of MiB the chunks they had. */
constexpr size_t kMinChunk = (size_t)32 << 10;
constexpr size_t kChunksPerBlock = 8;

MCOLL_HD size_t pick_chunk(size_t capacity, size_t span) {
    size_t want = slice16(span, kChunksPerBlock);
    if (want < kMinChunk) want = kMinChunk;
    if (want > kMaxChunk) want = kMaxChunk;
    return want < capacity ? want : capacity;
}

MCOLL_HD int block_rows(int limit) {
    if (limit > MCOLL_MAX_BLOCKS) return MCOLL_MAX_BLOCKS;
    return limit < 1 ? 1 : limit;
}

/* A block for every kBlockBytes of a slot, up to `rows`: each block's span, and the blocks. */
MCOLL_HD void spread(size_t slot_bytes, int rows, size_t *span, int *blocks) {
    size_t wanted = (slot_bytes + kBlockBytes - 1) / kBlockBytes;
    if (wanted > (size_t)rows) wanted = (size_t)rows;
    if (wanted < 1) wanted = 1;
    *span = slice16(slot_bytes, wanted);
    *blocks = (int)((slot_bytes + *span - 1) / *span);
    if (*blocks < 1) *blocks = 1;
}

/* Slot bytes from which a zero-copy kernel, or a reduction that stores its inputs into the
 * owners (wide_grid), takes the team's direct_blocks instead of max_blocks. On 4 H100s over
 * NVLink 64 blocks against 32 made 128 MiB to 1 GiB calls 2 % to 8 % faster but slots of a few
 * MiB slower (bcast and reduce of 8 MiB: twice the time), so the wider grid is kept for slots
 * of 16 MiB and up (benchmarks/NOTES.md, 2026-11-28). */
constexpr size_t kWideSlot = (size_t)16 << 20;
/* The zero-copy reduce to a root takes it from slots of 64 MiB: at 2 ranks (2 x H100 and
 * 2 x H200) 32 blocks beat 64 on slots of 16 and 32 MiB (reduce of 32 MiB on H200: 115 against
 * 137 us; 64 MiB: 223 against 234) and lost from 64 MiB slots (128 MiB: 436 against 414), while
 * the other zero-copy kernels gained from 16 MiB (benchmarks/NOTES.md, 2026-11-28). */
constexpr size_t kWideReduceSlot = (size_t)64 << 20;

/* The block rows the data area is cut into: the larger of the team's two grid limits (teams
 * built by hand in tests may leave direct_blocks 0), so that a wide grid and a narrow one give
 * block b the same region. */
MCOLL_HD int layout_rows(const mcoll_dev_team *t) {
    return block_rows(t->direct_blocks > t->max_blocks ? t->direct_blocks : t->max_blocks);
}

/* The grid of a call of `slot_bytes` slots: max_blocks, or up to direct_blocks for a wide one
 * whose slots have wide_from bytes or more. */
MCOLL_HD int grid_rows(const mcoll_dev_team *t, size_t slot_bytes, bool wide, size_t wide_from = kWideSlot) {
    return wide && slot_bytes >= wide_from ? layout_rows(t) : block_rows(t->max_blocks);
}

/* 0 on success; nonzero when the data area is too small for this team. A half holds half_slots
 * chunks (see above). `wide`: the call may take the wide grid (grid_rows). */
inline int make_sched(const mcoll_dev_team *t, size_t slot_bytes, int nslots, int half_slots, Sched *s,
                      bool wide = false) {
    const int rows = grid_rows(t, slot_bytes, wide);
    s->slot_bytes = slot_bytes;
    s->nslots = nslots;
    s->region = (t->data_bytes / (size_t)layout_rows(t)) & ~(size_t)31;
    s->half = s->region / 2;
    const size_t capacity = (s->half / (size_t)half_slots) & ~(size_t)15;
    if (capacity == 0) return 1;
    spread(slot_bytes, rows, &s->span, &s->blocks);
    s->chunk = pick_chunk(capacity, s->span);
    return 0;
}

/* The zero-copy kernels centred on a root (bcast and reduce: every non-root rank's blocks load
 * from root at once), on three ranks or more, take at most kRootCentredRows blocks for slots from
 * kRootCentredFrom up to kWideSlot. At 4 ranks on 4 x H200, 16 blocks against 32 made the 8 MiB
 * calls 27 % faster (bcast 66.0 -> 47.8 us, reduce 66.9 -> 48.8; the staged kernels took 57),
 * 16 MiB 4 to 13 % faster and 4 to 32 MiB no slower, but 2 MiB (slots of 0.7 MiB) 8 % slower;
 * on two ranks 16 blocks lost at every size (benchmarks/NOTES.md, 2026-11-28, run V2). */
constexpr int kRootCentredRows = 16;
constexpr size_t kRootCentredFrom = (size_t)1 << 20;

/* The rows of a zero-copy call: the wide grid from wide_from, the root-centred cap above. */
MCOLL_HD int direct_rows(const mcoll_dev_team *t, size_t slot_bytes, size_t wide_from, bool root_centred) {
    const int rows = grid_rows(t, slot_bytes, true, wide_from);
    const bool capped = root_centred && t->size >= 3 && slot_bytes >= kRootCentredFrom && slot_bytes < kWideSlot;
    return capped && rows > kRootCentredRows ? kRootCentredRows : rows;
}

/* The zero-copy kernels use no data area: slots of wide_from bytes and more take the wide grid. */
inline void make_direct_sched(const mcoll_dev_team *t, size_t slot_bytes, Sched *s, size_t wide_from = kWideSlot,
                              bool root_centred = false) {
    s->slot_bytes = slot_bytes;
    s->nslots = 1;
    s->region = s->half = s->chunk = 0;
    spread(slot_bytes, direct_rows(t, slot_bytes, wide_from, root_centred), &s->span, &s->blocks);
}

} // namespace mcoll
#endif /* MCOLL_SCHEDULE_CUH */
