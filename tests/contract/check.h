/* A tiny assertion kit for the contract tests: a failed check prints file:line and the
 * expression and is counted; check_exit() turns the count into the exit status (0 pass, 1 fail). */
#ifndef MCOLL_CONTRACT_CHECK_H
#define MCOLL_CONTRACT_CHECK_H

#include <stdio.h>
#include "contract/model/contract.h"

static int check_failures;

#define CHECK(expr)                                                                          \
    do {                                                                                     \
        if (!(expr)) {                                                                       \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #expr);          \
            check_failures++;                                                                \
        }                                                                                    \
    } while (0)

/* A driver call that must return `expected`; prints both names when it does not. */
#define CHECK_CU(call, expected)                                                             \
    do {                                                                                     \
        CUresult check_rc_ = (call);                                                         \
        if (check_rc_ != (expected)) {                                                       \
            fprintf(stderr, "%s:%d: check failed: %s returned %s, expected %s\n", __FILE__,   \
                    __LINE__, #call, check_error_name(check_rc_),                            \
                    check_error_name(expected));                                             \
            check_failures++;                                                                \
        }                                                                                    \
    } while (0)

#define CHECK_OK(call) CHECK_CU(call, CUDA_SUCCESS)

static inline const char *check_error_name(CUresult rc)
{
    return mcoll_contract_error_name(rc);
}

/* Exit status; prints the model's violations and live objects when something failed. */
static inline int check_exit(const char *test)
{
    if (check_failures) {
        mcoll_contract_violations_print(stderr);
        mcoll_contract_live_print(stderr);
        fprintf(stderr, "%s: %d check(s) failed\n", test, check_failures);
        return 1;
    }
    printf("%s: all checks passed\n", test);
    return 0;
}

#endif /* MCOLL_CONTRACT_CHECK_H */
