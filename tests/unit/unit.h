/* Checks for the unit tests: a failed check prints file:line and the expression and is
 * counted; unit_exit() turns the count into the exit status (0 pass, 1 fail). */
#ifndef MCOLL_UNIT_H
#define MCOLL_UNIT_H

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

#endif /* MCOLL_UNIT_H */
