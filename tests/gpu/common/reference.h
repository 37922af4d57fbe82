/* Host reference results and the comparisons.
 *
 * Integers, bitwise and logical ops (0 or 1, any nonzero input true) are exact (sums and
 * products wrap modulo 2^bits, as on the GPU). min and max are exact for every type, MINLOC and
 * MAXLOC too (value and index, the smaller index on a tie; padding is not compared). Complex
 * sums and products are compared part by part, within nranks * u * sum(|re| + |im|) and
 * 3 * nranks * u * prod(|z|) (plus the reference's rounding). Floating sums may differ from the
 * reference by at most nranks * u * sum(|x|), products by (nranks + 1) * u * |result|, with u
 * the unit roundoff of the type (2^-24 float, 2^-53 double, 2^-11 float16, 2^-8 bfloat16; a
 * complex number's parts: float or double): the bound of any summation
 * order with the final rounding to the type, whether 16-bit types accumulate in float or not;
 * the bound also allows for the reference's own rounding (it sums in double).
 * Poisoned (never written) float elements read as NaN and never match. */
#ifndef GPU_REFERENCE_H
#define GPU_REFERENCE_H

#include <stddef.h>
#include "gen.h"

typedef struct {
    tvalue value;
    double tol; /* allowed absolute error (floats); 0: exact */
} expect;

/* The reduction of element `index` over all ranks' inputs. */
expect ref_reduce(const gen_ctx *g, size_t index);
int ref_matches(const test_type *t, tvalue got, expect want);

/* Number of elements j < count of `out` that differ from the reduction of element first + j;
 * the first is described in `why`. */
size_t ref_check_reduced(const gen_ctx *g, const void *out, size_t first, size_t count, char *why, size_t len);
/* The same for the reduction over ranks 0..nranks-1 only (scan: nranks = rank + 1; exscan:
 * rank), the inputs being those of g's ranks. */
size_t ref_check_prefix(const gen_ctx *g, int nranks, const void *out, size_t first, size_t count, char *why,
                        size_t len);
/* The same against rank `rank`'s input (exact): bcast and allgather. */
size_t ref_check_data(const gen_ctx *g, int rank, const void *out, size_t first, size_t count, char *why, size_t len);
/* Number of bytes that differ between got and want; the first is described. */
size_t ref_check_bytes(const void *got, const void *want, size_t n, char *why, size_t len);
/* Number of bytes of got that are not `byte`; the first is described. */
size_t ref_check_fill(const void *got, unsigned char byte, size_t n, char *why, size_t len);

#endif /* GPU_REFERENCE_H */
