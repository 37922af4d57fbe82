/* The logger: one line per message, prefixed with host, pid, rank and device. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <pthread.h>
#include "log.h"
#include "mcoll.h"

int mcoll_log_level = MCOLL_LOG_WARN;

static int log_rank = -1;
static int log_device = -1;
static char last_warning[512];
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;

void mcoll_log_set_rank(int rank) { log_rank = rank; }
void mcoll_log_set_device(int device) { log_device = device; }

static const char *level_name(int level)
{
    switch (level) {
    case MCOLL_LOG_WARN: return "WARN";
    case MCOLL_LOG_INFO: return "INFO";
    default: return "TRACE";
    }
}

void mcoll_log_print(int level, const char *file, int line, const char *fmt, ...)
{
    char host[64] = "?";
    char msg[512];
    va_list ap;

    if (level > mcoll_log_level && level != MCOLL_LOG_WARN) return;
    gethostname(host, sizeof host - 1);
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);

    pthread_mutex_lock(&log_lock);
    if (level == MCOLL_LOG_WARN) snprintf(last_warning, sizeof last_warning, "%s", msg);
    if (level <= mcoll_log_level) {
        const char *base = strrchr(file, '/');
        fprintf(stderr, "%s:%d:%d [%d] mcoll %s %s:%d %s\n", host, (int)getpid(), log_rank, log_device,
                level_name(level), base ? base + 1 : file, line, msg);
        fflush(stderr);
    }
    pthread_mutex_unlock(&log_lock);
}

const char *mcoll_last_warning(void) { return last_warning; }
