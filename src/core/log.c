/* The logger: one line per message, prefixed with host, pid, rank and device, filtered by level
 * and subsystem, written to stderr or to the file MCOLL_DEBUG_FILE names. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <pthread.h>
#include "log.h"
#include "mcoll.h"

int mcoll_log_level = MCOLL_LOG_WARN;

static unsigned log_subsys = MCOLL_SUBSYS_ALL;
static char log_path[512] = "stderr";
static FILE *log_out; /* NULL until the first line, which opens log_path */
static int log_rank = -1;
static int log_device = -1;
static char last_warning[512];
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;

static const struct {
    const char *name;
    unsigned mask;
} subsys_names[] = {
    {"INIT", MCOLL_SUBSYS_INIT},   {"PMPI", MCOLL_SUBSYS_PMPI},     {"STAGE", MCOLL_SUBSYS_STAGE},
    {"TEAM", MCOLL_SUBSYS_TEAM},   {"ENGINE", MCOLL_SUBSYS_ENGINE}, {"ALL", MCOLL_SUBSYS_ALL},
};

/* A call site's subsystem from the path of its file: the first entry whose text the path
 * contains. A file in none of these directories logs whatever the mask. */
static const struct {
    const char *path;
    unsigned subsys;
} file_subsys[] = {
    {"/pmpi/stage", MCOLL_SUBSYS_STAGE},      /* stage.c, stage_run.c */
    {"/pmpi/pmpi_init.c", MCOLL_SUBSYS_INIT}, /* plug-in start and finalize */
    {"/pmpi/", MCOLL_SUBSYS_PMPI},
    {"/hier/", MCOLL_SUBSYS_PMPI},            /* the hierarchical path of the plug-in */
    {"/team/", MCOLL_SUBSYS_TEAM},
    {"/mem/", MCOLL_SUBSYS_TEAM},             /* windows and registrations: memory of the team */
    {"/api/", MCOLL_SUBSYS_ENGINE},
    {"/collectives/", MCOLL_SUBSYS_ENGINE},
    {"/core/", MCOLL_SUBSYS_INIT},
};

static unsigned subsys_of(const char *file)
{
    size_t i;
    for (i = 0; i < sizeof file_subsys / sizeof file_subsys[0]; i++)
        if (strstr(file, file_subsys[i].path)) return file_subsys[i].subsys;
    return MCOLL_SUBSYS_ALL;
}

int mcoll_log_parse_subsys(const char *text, unsigned *mask)
{
    unsigned m = 0;
    int invert = 0;
    if (!text) return -1;
    if (*text == '^') { invert = 1; text++; }
    for (;;) {
        size_t len = strcspn(text, ","), i;
        while (len && *text == ' ') { text++; len--; }
        while (len && text[len - 1] == ' ') len--;
        for (i = 0; i < sizeof subsys_names / sizeof subsys_names[0]; i++)
            if (strlen(subsys_names[i].name) == len && !strncasecmp(text, subsys_names[i].name, len)) break;
        if (i == sizeof subsys_names / sizeof subsys_names[0]) return -1;
        m |= subsys_names[i].mask;
        text += strcspn(text, ",");
        if (!*text) break;
        text++;
    }
    *mask = invert ? MCOLL_SUBSYS_ALL & ~m : m;
    return 0;
}

void mcoll_log_configure(int level, unsigned subsys, const char *file)
{
    pthread_mutex_lock(&log_lock);
    mcoll_log_level = level;
    log_subsys = subsys;
    if (!file || !*file) file = "stderr";
    if (strcmp(file, log_path)) {
        if (log_out && log_out != stderr) fclose(log_out);
        log_out = NULL;
        snprintf(log_path, sizeof log_path, "%s", file);
    }
    pthread_mutex_unlock(&log_lock);
}

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

static void emit(FILE *out, const char *host, int level, const char *file, int line, const char *msg)
{
    const char *base = strrchr(file, '/');
    fprintf(out, "%s:%d:%d [%d] mcoll %s %s:%d %s\n", host, (int)getpid(), log_rank, log_device,
            level_name(level), base ? base + 1 : file, line, msg);
    fflush(out);
}

/* The stream for the next line (log_lock held): log_path opened at the first line, %h and %p
 * replaced; stderr, after one warning, if that fails. */
static FILE *stream(const char *host)
{
    char path[1024], msg[sizeof last_warning];
    size_t n = 0;
    const char *p;

    if (log_out) return log_out;
    if (!strcmp(log_path, "stderr")) return log_out = stderr;
    for (p = log_path; *p && n + 1 < sizeof path; p++) {
        if (*p == '%' && p[1] == 'h') {
            n += (size_t)snprintf(path + n, sizeof path - n, "%s", host);
            p++;
        } else if (*p == '%' && p[1] == 'p') {
            n += (size_t)snprintf(path + n, sizeof path - n, "%d", (int)getpid());
            p++;
        } else {
            path[n++] = *p;
        }
        if (n >= sizeof path) n = sizeof path - 1;
    }
    path[n] = '\0';
    log_out = fopen(path, "a");
    if (!log_out) {
        log_out = stderr;
        snprintf(msg, sizeof msg, "cannot open MCOLL_DEBUG_FILE %.300s (%s): logging to stderr", path, strerror(errno));
        snprintf(last_warning, sizeof last_warning, "%s", msg);
        emit(stderr, host, MCOLL_LOG_WARN, __FILE__, __LINE__, msg);
    }
    return log_out;
}

void mcoll_log_print(int level, const char *file, int line, const char *fmt, ...)
{
    char host[64] = "?";
    char msg[512];
    va_list ap;

    if (level > mcoll_log_level && level != MCOLL_LOG_WARN) return;
    if (level != MCOLL_LOG_WARN && !(subsys_of(file) & log_subsys)) return;
    gethostname(host, sizeof host - 1);
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);

    pthread_mutex_lock(&log_lock);
    if (level == MCOLL_LOG_WARN) snprintf(last_warning, sizeof last_warning, "%s", msg);
    if (level <= mcoll_log_level) emit(stream(host), host, level, file, line, msg);
    pthread_mutex_unlock(&log_lock);
}

const char *mcoll_last_warning(void) { return last_warning; }
