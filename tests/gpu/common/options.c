/* Command-line parsing for the GPU test programs; see options.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "options.h"

static void usage(FILE *out, const char *program, const char *about)
{
    fprintf(out,
            "usage: mpirun -np N %s [-q] [-f FILTER] [-s SEED]\n"
            "  %s\n"
            "  -q, --quick         small counts only (for compute-sanitizer)\n"
            "  -f, --filter LIST   run the cases whose name contains one of the comma-separated strings\n"
            "  -s, --seed N        base of the input patterns (default 1)\n"
            "  -h, --help          this text\n"
            "Runs only with NCCL_NVLS_ENABLE=0 (multicast off). Exit: 0 all passed, 1 a case failed,\n"
            "2 refused or bad usage, 77 no GPU.\n",
            program, about);
}

/* The value of an option given as "-fX", "-f X", "--filter=X" or "--filter X". */
static const char *value_of(int argc, char **argv, int *i, const char *arg, const char *short_name,
                            const char *long_name)
{
    size_t long_len = strlen(long_name);
    if (!strcmp(arg, short_name) || !strcmp(arg, long_name)) return *i + 1 < argc ? argv[++*i] : NULL;
    if (!strncmp(arg, short_name, 2) && arg[2]) return arg + 2;
    if (!strncmp(arg, long_name, long_len) && arg[long_len] == '=') return arg + long_len + 1;
    return NULL;
}

static int is_option(const char *arg, const char *short_name, const char *long_name)
{
    size_t long_len = strlen(long_name);
    return !strncmp(arg, short_name, 2) || !strncmp(arg, long_name, long_len);
}

int opts_parse(int argc, char **argv, const char *program, const char *about, int printer, gpu_opts *opts)
{
    int i;
    opts->quick = 0;
    opts->filter = NULL;
    opts->seed = 1;
    for (i = 1; i < argc; i++) {
        const char *arg = argv[i], *value;
        char *end;
        if (!strcmp(arg, "-q") || !strcmp(arg, "--quick")) {
            opts->quick = 1;
        } else if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
            if (printer) usage(stdout, program, about);
            return 0;
        } else if (is_option(arg, "-f", "--filter")) {
            if (!(value = value_of(argc, argv, &i, arg, "-f", "--filter")) || !*value) goto bad;
            opts->filter = value;
        } else if (is_option(arg, "-s", "--seed")) {
            if (!(value = value_of(argc, argv, &i, arg, "-s", "--seed"))) goto bad;
            opts->seed = strtoul(value, &end, 10);
            if (end == value || *end) goto bad;
        } else {
            goto bad;
        }
    }
    return -1;
bad:
    if (printer) {
        fprintf(stderr, "%s: bad argument '%s'\n", program, argv[i]);
        usage(stderr, program, about);
    }
    return 2;
}

int opts_match(const gpu_opts *opts, const char *name)
{
    const char *p;
    char token[128];
    if (!opts->filter) return 1;
    for (p = opts->filter; *p;) {
        size_t len = strcspn(p, ",");
        if (len && len < sizeof token) {
            memcpy(token, p, len);
            token[len] = '\0';
            if (strstr(name, token)) return 1;
        }
        p += len;
        if (*p == ',') p++;
    }
    return 0;
}
