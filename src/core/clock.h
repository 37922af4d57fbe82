/* The monotonic clock, the one time source of timeouts, idle limits and TRACE timings. Files
 * that include this define _POSIX_C_SOURCE (or _GNU_SOURCE) first, for clock_gettime. */
#ifndef MCOLL_CLOCK_H
#define MCOLL_CLOCK_H

#include <stdint.h>
#include <time.h>
#include "log.h"

static inline uint64_t mcoll_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The clock of TRACE timings: 0 unless TRACE is on, so a call that is not traced reads none. */
static inline uint64_t mcoll_trace_ns(void) { return mcoll_log_level >= MCOLL_LOG_TRACE ? mcoll_now_ns() : 0; }

/* Microseconds from one such reading to another. */
static inline double mcoll_trace_us(uint64_t from, uint64_t to) { return (double)(to - from) * 1e-3; }

#endif /* MCOLL_CLOCK_H */
