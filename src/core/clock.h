/* The monotonic clock, the one time source of timeouts, idle limits and TRACE timings. Files
 * that include this define _POSIX_C_SOURCE (or _GNU_SOURCE) first, for clock_gettime. */
#ifndef MCOLL_CLOCK_H
#define MCOLL_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t mcoll_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#endif /* MCOLL_CLOCK_H */
