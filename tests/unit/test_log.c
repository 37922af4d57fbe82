/* The logger's subsystems and file: a line's subsystem follows from its file's directory,
 * MCOLL_DEBUG_SUBSYS keeps INFO and TRACE lines of the others out (never warnings), and
 * MCOLL_DEBUG_FILE sends the lines to a file whose name has %h and %p replaced; a file that
 * cannot be opened sends them to stderr after one warning. */
#define _POSIX_C_SOURCE 200809L /* setenv, mkdtemp, gethostname */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "config.h"
#include "log.h"
#include "unit.h"

static char text[16384];

static const char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    size_t n = 0;
    text[0] = '\0';
    if (!f) return text;
    n = fread(text, 1, sizeof text - 1, f);
    text[n] = '\0';
    fclose(f);
    return text;
}

/* One INFO line from a file of each directory, and a warning from core/. */
static void log_each(const char *tag)
{
    mcoll_log_print(MCOLL_LOG_INFO, "/src/mcoll/src/pmpi/pmpi_run.c", 1, "%s pmpi", tag);
    mcoll_log_print(MCOLL_LOG_INFO, "/src/mcoll/src/pmpi/stage_run.c", 2, "%s stage", tag);
    mcoll_log_print(MCOLL_LOG_INFO, "/src/mcoll/src/pmpi/pmpi_init.c", 3, "%s plugin-start", tag);
    mcoll_log_print(MCOLL_LOG_INFO, "src/team/team.c", 4, "%s team", tag);
    mcoll_log_print(MCOLL_LOG_INFO, "/src/mcoll/src/api/run.c", 5, "%s engine", tag);
    mcoll_log_print(MCOLL_LOG_TRACE, "/src/mcoll/src/core/driver.c", 6, "%s init-trace", tag);
    mcoll_log_print(MCOLL_LOG_WARN, "/src/mcoll/src/core/config.c", 7, "%s warning", tag);
}

int main(void)
{
    char dir[] = "/tmp/mcoll_test_log.XXXXXX", pattern[128], path[256], errpath[256], host[64] = "?";
    const char *p;
    int saved_err, err, warnings = 0;

    CHECK(mkdtemp(dir) != NULL);
    gethostname(host, sizeof host - 1);
    snprintf(pattern, sizeof pattern, "%s/log.%%h.%%p", dir);
    snprintf(path, sizeof path, "%s/log.%s.%d", dir, host, (int)getpid());

    /* PMPI and STAGE at TRACE into the file. */
    setenv("MCOLL_DEBUG", "TRACE", 1);
    setenv("MCOLL_DEBUG_SUBSYS", "PMPI,STAGE", 1);
    setenv("MCOLL_DEBUG_FILE", pattern, 1);
    mcoll_settings_reload();
    log_each("one");
    slurp(path);
    CHECK(strstr(text, "mcoll INFO pmpi_run.c:1 one pmpi\n") != NULL);
    CHECK(strstr(text, "mcoll INFO stage_run.c:2 one stage\n") != NULL);
    CHECK(strstr(text, "one plugin-start") == NULL);
    CHECK(strstr(text, "one team") == NULL);
    CHECK(strstr(text, "one engine") == NULL);
    CHECK(strstr(text, "one init-trace") == NULL);
    CHECK(strstr(text, "mcoll WARN config.c:7 one warning\n") != NULL);

    /* All but PMPI and STAGE, appended to the same file. */
    setenv("MCOLL_DEBUG_SUBSYS", "^pmpi,stage", 1);
    mcoll_settings_reload();
    log_each("two");
    slurp(path);
    CHECK(strstr(text, "one pmpi") != NULL);
    CHECK(strstr(text, "two pmpi") == NULL && strstr(text, "two stage") == NULL);
    CHECK(strstr(text, "mcoll INFO pmpi_init.c:3 two plugin-start\n") != NULL);
    CHECK(strstr(text, "mcoll INFO team.c:4 two team\n") != NULL);
    CHECK(strstr(text, "mcoll INFO run.c:5 two engine\n") != NULL);
    CHECK(strstr(text, "mcoll TRACE driver.c:6 two init-trace\n") != NULL);
    CHECK(strstr(text, "two warning") != NULL);

    /* At INFO, TRACE lines stay out whatever the subsystem. */
    setenv("MCOLL_DEBUG", "INFO", 1);
    setenv("MCOLL_DEBUG_SUBSYS", "ALL", 1);
    mcoll_settings_reload();
    log_each("three");
    slurp(path);
    CHECK(strstr(text, "three pmpi") != NULL && strstr(text, "three init-trace") == NULL);

    /* A file that cannot be opened: the lines go to stderr, after one warning naming it. */
    snprintf(errpath, sizeof errpath, "%s/stderr", dir);
    fflush(stderr);
    saved_err = dup(2);
    err = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    CHECK(saved_err >= 0 && err >= 0 && dup2(err, 2) == 2);
    snprintf(pattern, sizeof pattern, "%s/missing/log", dir);
    setenv("MCOLL_DEBUG_FILE", pattern, 1);
    mcoll_settings_reload();
    log_each("four");
    log_each("five");
    fflush(stderr);
    dup2(saved_err, 2);
    close(err);
    close(saved_err);
    slurp(errpath);
    for (p = text; (p = strstr(p, "cannot open MCOLL_DEBUG_FILE")) != NULL; p++) warnings++;
    CHECK(warnings == 1);
    CHECK(strstr(text, "missing/log (No such file or directory): logging to stderr") != NULL);
    CHECK(strstr(text, "four pmpi") != NULL && strstr(text, "five pmpi") != NULL);
    remove(errpath);

    unsetenv("MCOLL_DEBUG");
    unsetenv("MCOLL_DEBUG_SUBSYS");
    unsetenv("MCOLL_DEBUG_FILE");
    mcoll_settings_reload();
    remove(path);
    rmdir(dir);
    return unit_exit("test_log");
}
