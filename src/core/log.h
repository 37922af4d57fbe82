/* The one logger. MCOLL_DEBUG=NONE|WARN|INFO|TRACE (default WARN) sets the level,
 * MCOLL_DEBUG_SUBSYS the subsystems whose INFO and TRACE lines are printed (warnings always are),
 * MCOLL_DEBUG_FILE where the lines go. Each line starts with "host:pid:rank [dev] mcoll LEVEL".
 * The level test is inline so disabled levels cost a load and a branch. The last warning is
 * kept for mcoll_last_warning. */
#ifndef MCOLL_LOG_H
#define MCOLL_LOG_H

enum { MCOLL_LOG_NONE = 0, MCOLL_LOG_WARN = 1, MCOLL_LOG_INFO = 2, MCOLL_LOG_TRACE = 3 };

/* Subsystems. A call site's subsystem follows from the directory of its file (log.c holds the
 * table), so MCOLL_INFO and friends take none. */
enum {
    MCOLL_SUBSYS_INIT = 1 << 0,   /* start and finalize: driver, settings, locality, plug-in start */
    MCOLL_SUBSYS_PMPI = 1 << 1,   /* the plug-in: what each MPI call was given to, and why */
    MCOLL_SUBSYS_STAGE = 1 << 2,  /* device buffers staged through host memory */
    MCOLL_SUBSYS_TEAM = 1 << 3,   /* teams: agreement, symmetric memory, handle exchange, multicast */
    MCOLL_SUBSYS_ENGINE = 1 << 4, /* the native API and the kernels it launches */
    MCOLL_SUBSYS_ALL = (1 << 5) - 1
};

extern int mcoll_log_level;

void mcoll_log_print(int level, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Set by the settings once read: level, subsystem mask, and destination: "stderr" or a file
 * name in which %h stands for the host name and %p for the process id (opened, for appending, at
 * the first line; if it cannot be, the lines go to stderr after one warning). */
void mcoll_log_configure(int level, unsigned subsys, const char *file);

/* A MCOLL_DEBUG_SUBSYS value: names from INIT, PMPI, STAGE, TEAM, ENGINE and ALL separated by
 * commas, any case; a leading ^ selects all but those named. 0, or -1 if `text` is not valid. */
int mcoll_log_parse_subsys(const char *text, unsigned *mask);

/* Rank and device shown in the prefix once known (-1: unknown). */
void mcoll_log_set_rank(int rank);
void mcoll_log_set_device(int device);

#define MCOLL_WARN(...) mcoll_log_print(MCOLL_LOG_WARN, __FILE__, __LINE__, __VA_ARGS__)
#define MCOLL_INFO(...) \
    do { if (mcoll_log_level >= MCOLL_LOG_INFO) mcoll_log_print(MCOLL_LOG_INFO, __FILE__, __LINE__, __VA_ARGS__); } while (0)
#define MCOLL_TRACE(...) \
    do { if (mcoll_log_level >= MCOLL_LOG_TRACE) mcoll_log_print(MCOLL_LOG_TRACE, __FILE__, __LINE__, __VA_ARGS__); } while (0)

#endif /* MCOLL_LOG_H */
