/* The one logger. MCOLL_DEBUG=WARN|INFO|TRACE (default WARN). Each line starts with
 * "host:pid:rank [dev] mcoll LEVEL". The level test is inline so disabled levels cost a load
 * and a branch. Warnings are always printed and the last one is kept for mcoll_last_warning. */
#ifndef MCOLL_LOG_H
#define MCOLL_LOG_H

enum { MCOLL_LOG_NONE = 0, MCOLL_LOG_WARN = 1, MCOLL_LOG_INFO = 2, MCOLL_LOG_TRACE = 3 };

extern int mcoll_log_level;

void mcoll_log_print(int level, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Rank and device shown in the prefix once known (-1: unknown). */
void mcoll_log_set_rank(int rank);
void mcoll_log_set_device(int device);

#define MCOLL_WARN(...) mcoll_log_print(MCOLL_LOG_WARN, __FILE__, __LINE__, __VA_ARGS__)
#define MCOLL_INFO(...) \
    do { if (mcoll_log_level >= MCOLL_LOG_INFO) mcoll_log_print(MCOLL_LOG_INFO, __FILE__, __LINE__, __VA_ARGS__); } while (0)
#define MCOLL_TRACE(...) \
    do { if (mcoll_log_level >= MCOLL_LOG_TRACE) mcoll_log_print(MCOLL_LOG_TRACE, __FILE__, __LINE__, __VA_ARGS__); } while (0)

#endif /* MCOLL_LOG_H */
