/* Input patterns: every element of every rank is a hash of (case seed, rank, index), so any
 * rank can compute any other rank's input, and the expected result, without communication.
 *
 * Values depend on the rank and are never zero (but for the logical ops and pairs). Per op:
 *   sum          floats +-[0.5, 1.5); signed integers +-[1, 2^20] (2^40 for 64 bits, no
 *                overflow; 2^10 and 2^4 for 16 and 8 bits, which may wrap); unsigned integers
 *                the full range (sums wrap, as in C);
 *   prod         floats in [15/16, 17/16) (no overflow at any rank count); integers small
 *                but not 1 (+-2..3, unsigned 2..7, 64-bit up to +-1023; products wrap);
 *   min, max     random over a wide range; on even indices one rank, rotating with the index,
 *                holds the extreme (integers: near the type's limit), so every rank's data
 *                decides some elements;
 *   band, bor    mostly ones / mostly zeros, and every rank clears / sets its own bit of each
 *                element, so every rank changes the result;
 *   bxor, data   the full range (data: for bcast and allgather, op NULL);
 *   land, lor,   zero or one set bit anywhere in the element (bools: 0 or 1); land mostly
 *   lxor         nonzero, lor mostly zero, lxor half and half, so both results occur;
 *   complex      sums: both parts like float sums; products: modulus near 1, any angle;
 *   minloc,      values from a set of four (ties happen, and the index decides them; 64-bit
 *   maxloc       values differ only above bit 32), indices in [-1000, 1000].
 * Float values are rounded to the type, so the host reference sees exactly what the GPU reads.
 *
 * The linear pattern (set `linear` after gen_init) is for the > 1 GiB sums, where computing
 * every rank's input for the reference would take far longer than the collective: element i of
 * rank r is base(i) + r * step(i), small integers of one sign (|base| in 1..1024, |step| in
 * 1..8), so the sum over ranks has a closed form and is exact in float, double and integers. */
#ifndef GPU_GEN_H
#define GPU_GEN_H

#include <stddef.h>
#include <stdint.h>
#include "types.h"

typedef struct {
    const test_type *type;
    const test_op *op; /* NULL: plain data (bcast, allgather) */
    int nranks;
    uint64_t key;
    /* derived by gen_init, for the inner loops */
    int linear;        /* 1: the linear pattern (see above) */
    int kind;          /* op id, or -1 for plain data */
    uint64_t mask;     /* all bits of an integer element */
    uint64_t top;      /* its sign bit */
} gen_ctx;

uint64_t gen_mix(uint64_t x);
/* The linear pattern's base(i) and step(i). */
void gen_linear_terms(const gen_ctx *g, size_t index, int64_t *base, int64_t *step);
void gen_init(gen_ctx *g, const test_type *type, const test_op *op, int nranks, uint64_t seed);
tvalue gen_value(const gen_ctx *g, int rank, size_t index);
/* Values of `rank` at indices first .. first + count - 1: f[] for floating types, u[] for
 * integers (the other may be NULL). Real and integer types only; compound ones use gen_value. */
void gen_values(const gen_ctx *g, int rank, size_t first, size_t count, double *f, uint64_t *u);
/* buf[j] = value of `rank` at index first + j, stored as the type. */
void gen_fill(const gen_ctx *g, int rank, size_t first, size_t count, void *buf);

/* Elements the bulk helpers handle at a time (on the stack). */
#define GEN_CHUNK 1024

#endif /* GPU_GEN_H */
