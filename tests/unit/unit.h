/* Checks for the unit tests: a failed check prints file:line and the expression and is
 * counted; unit_exit() turns the count into the exit status (0 pass, 1 fail). */
#ifndef MCOLL_UNIT_H
#define MCOLL_UNIT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

static int unit_failures;

#define CHECK(expr)                                                                          \
    do {                                                                                     \
        if (!(expr)) {                                                                       \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #expr);          \
            unit_failures++;                                                                 \
        }                                                                                    \
    } while (0)

static inline int unit_exit(const char *test)
{
    if (unit_failures) {
        fprintf(stderr, "%s: %d check(s) failed\n", test, unit_failures);
        return 1;
    }
    printf("%s: all checks passed\n", test);
    return 0;
}

/* Cases drawn from a fixed-seed xorshift generator: every run draws the same ones. */
static uint64_t unit_rng_state = 0x9E3779B97F4A7C15ull;

static inline uint64_t rnd(void)
{
    unit_rng_state ^= unit_rng_state << 13;
    unit_rng_state ^= unit_rng_state >> 7;
    unit_rng_state ^= unit_rng_state << 17;
    return unit_rng_state;
}

/* Uniform in [0, n); 0 when n is 0. */
static inline size_t below(size_t n) { return n ? (size_t)(rnd() % n) : 0; }

#endif /* MCOLL_UNIT_H */
