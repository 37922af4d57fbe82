/* Pass/fail accounting; see report.h. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "report.h"

#define DETAIL_LEN 256
#define NAME_LEN 192
#define LISTED_FAILURES 25

static struct {
    const char *program;
    const gpu_opts *opts;
    int rank, size;
    char name[NAME_LEN];
    int failed, fatal, skipped;
    char detail[DETAIL_LEN];
    char skip_why[DETAIL_LEN];
    double case_start, run_start;
    uint64_t index;
    int passes, failures, skips, stopped;
    char failed_names[LISTED_FAILURES][NAME_LEN];
} R;

double wall_seconds(void)
{
    struct timespec now;
    if (timespec_get(&now, TIME_UTC) != TIME_UTC) return 0;
    return (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
}

void report_init(const char *program, const gpu_opts *opts)
{
    memset(&R, 0, sizeof R);
    R.program = program;
    R.opts = opts;
    MPI_Comm_rank(MPI_COMM_WORLD, &R.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &R.size);
    R.run_start = wall_seconds();
}

static int begin(int filtered, const char *fmt, va_list ap)
{
    vsnprintf(R.name, sizeof R.name, fmt, ap);
    R.index++;
    if (R.stopped || (filtered && !opts_match(R.opts, R.name))) return 0;
    R.failed = R.fatal = R.skipped = 0;
    R.detail[0] = R.skip_why[0] = '\0';
    R.case_start = wall_seconds();
    return 1;
}

int case_begin(const char *fmt, ...)
{
    va_list ap;
    int go;
    va_start(ap, fmt);
    go = begin(1, fmt, ap);
    va_end(ap);
    return go;
}

int setup_begin(const char *fmt, ...)
{
    va_list ap;
    int go;
    va_start(ap, fmt);
    go = begin(0, fmt, ap);
    va_end(ap);
    return go;
}

static void record(const char *fmt, va_list ap)
{
    R.failed = 1;
    if (!R.detail[0]) vsnprintf(R.detail, sizeof R.detail, fmt, ap);
}

void case_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    record(fmt, ap);
    va_end(ap);
}

void case_fatal(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    record(fmt, ap);
    va_end(ap);
    R.fatal = 1;
}

void case_skip(const char *why)
{
    R.skipped = 1;
    snprintf(R.skip_why, sizeof R.skip_why, "%s", why);
}

int case_failed(void) { return R.failed; }

const char *case_detail(void) { return R.detail; }

int case_agree(int ok)
{
    int mine = ok != 0, all = 0;
    if (MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD) != MPI_SUCCESS) return 0;
    return all;
}

/* Rank 0 prints the first failing rank's detail and how many others failed. */
static void print_failure(double seconds)
{
    char *all = R.rank == 0 ? malloc((size_t)R.size * DETAIL_LEN) : NULL;
    char mine[DETAIL_LEN];
    int r, first = -1, others = 0;

    snprintf(mine, sizeof mine, "%s", R.failed ? (R.detail[0] ? R.detail : "failed") : "");
    MPI_Gather(mine, DETAIL_LEN, MPI_CHAR, all, DETAIL_LEN, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (R.rank != 0) return;
    if (!all) {
        printf("FAIL %s (%.3f s)\n", R.name, seconds);
        return;
    }
    for (r = 0; r < R.size; r++) {
        if (!all[(size_t)r * DETAIL_LEN]) continue;
        if (first < 0) first = r;
        else others++;
    }
    if (first < 0) printf("FAIL %s (%.3f s)\n", R.name, seconds);
    else if (others) printf("FAIL %s (%.3f s): rank %d: %s (+%d more rank%s)\n", R.name, seconds, first,
                            all + (size_t)first * DETAIL_LEN, others, others > 1 ? "s" : "");
    else printf("FAIL %s (%.3f s): rank %d: %s\n", R.name, seconds, first, all + (size_t)first * DETAIL_LEN);
    free(all);
}

int case_end(void)
{
    int mine[3] = {R.failed, R.fatal, R.skipped}, all[3] = {1, 1, 0};
    double seconds = wall_seconds() - R.case_start;

    MPI_Allreduce(mine, all, 3, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (all[0]) {
        print_failure(seconds);
        if (R.failures < LISTED_FAILURES) snprintf(R.failed_names[R.failures], NAME_LEN, "%s", R.name);
        R.failures++;
    } else if (all[2]) {
        if (R.rank == 0) printf("SKIP %s: %s\n", R.name, R.skip_why);
        R.skips++;
    } else {
        if (R.rank == 0) printf("PASS %s (%.3f s)\n", R.name, seconds);
        R.passes++;
    }
    if (all[1] && !R.stopped) {
        R.stopped = 1;
        if (R.rank == 0) printf("# stopping: a CUDA error left the GPU state unusable; later cases are not run\n");
    }
    if (R.rank == 0) fflush(stdout);
    return !all[0];
}

uint64_t case_seed(void)
{
    /* splitmix64 of (seed, case index): a different pattern per case, reproducible with -s. */
    uint64_t x = (uint64_t)R.opts->seed * 0x9E3779B97F4A7C15u + R.index;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9u;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBu;
    return x ^ (x >> 31);
}

void say(const char *fmt, ...)
{
    va_list ap;
    if (R.rank != 0) return;
    va_start(ap, fmt);
    fputs("# ", stdout);
    vprintf(fmt, ap);
    fputc('\n', stdout);
    fflush(stdout);
    va_end(ap);
}

int report_quick(void) { return R.opts->quick; }
int report_rank(void) { return R.rank; }
int report_size(void) { return R.size; }
int report_stopped(void) { return R.stopped; }
const gpu_opts *report_opts(void) { return R.opts; }

int report_finish(void)
{
    int i;
    if (R.rank == 0) {
        for (i = 0; i < R.failures && i < LISTED_FAILURES; i++) printf("# failed: %s\n", R.failed_names[i]);
        if (R.failures > LISTED_FAILURES) printf("# ... and %d more\n", R.failures - LISTED_FAILURES);
        printf("%s np=%d: %d passed, %d failed, %d skipped%s (%.1f s)\n", R.program, R.size, R.passes, R.failures,
               R.skips, R.stopped ? ", stopped early" : "", wall_seconds() - R.run_start);
        fflush(stdout);
    }
    return R.failures || R.stopped ? 1 : 0;
}
