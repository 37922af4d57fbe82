/* Command line shared by the GPU test programs:
 *   -q, --quick          small counts only (for compute-sanitizer and smoke runs)
 *   -f, --filter LIST    run only cases whose name contains one of the comma-separated strings
 *   -s, --seed N         base of the input patterns (default 1)
 *   -h, --help
 * getopt is POSIX, not C11, so a small parser stands in for it. */
#ifndef GPU_OPTIONS_H
#define GPU_OPTIONS_H

typedef struct {
    int quick;
    const char *filter; /* NULL: every case */
    unsigned long seed;
} gpu_opts;

/* -1 to go on; otherwise the exit status (usage already printed when `printer` is set). */
int opts_parse(int argc, char **argv, const char *program, const char *about, int printer, gpu_opts *opts);

/* 1 when `name` is selected by the filter. */
int opts_match(const gpu_opts *opts, const char *name);

#endif /* GPU_OPTIONS_H */
