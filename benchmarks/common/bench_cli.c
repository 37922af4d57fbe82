/* Option parsing over getopt_long; see bench_cli.h. */
#include "bench_cli.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *bench_prog_name(const char *argv0)
{
    const char *slash = argv0 ? strrchr(argv0, '/') : NULL;
    return slash ? slash + 1 : (argv0 ? argv0 : "benchmark");
}

static int has_letter(const char *optstring, int c)
{
    for (const char *p = optstring; *p; p++)
        if (*p == c)
            return 1;
    return 0;
}

int bench_cli_init(bench_cli *cli, int argc, char **argv, const bench_opt *opts, int quiet)
{
    struct option *lo;
    size_t n = 0, used = 0;
    memset(cli, 0, sizeof *cli);
    cli->argc = argc;
    cli->argv = argv;
    cli->opts = opts;
    cli->quiet = quiet;
    while (opts[n].id)
        n++;
    if (n > BENCH_MAX_OPTS || !(lo = calloc(n + 1, sizeof *lo)))
        return -1;
    /* '+': stop at the first word that is not an option (none is expected, and it is reported);
     * ':': a missing value returns ':' instead of a message from getopt. */
    cli->optstring[used++] = '+';
    cli->optstring[used++] = ':';
    for (size_t i = 0, k = 0; i < n; i++) {
        int id = opts[i].id;
        if (id < BENCH_LONG_ONLY && !has_letter(cli->optstring + 2, id)) {
            cli->optstring[used++] = (char)id;
            if (opts[i].has_arg != BENCH_NO_ARG)
                cli->optstring[used++] = ':';
            if (opts[i].has_arg == BENCH_OPTIONAL_ARG)
                cli->optstring[used++] = ':';
        }
        if (opts[i].long_name) {
            lo[k].name = opts[i].long_name;
            lo[k].has_arg = opts[i].has_arg == BENCH_NO_ARG ? no_argument
                            : opts[i].has_arg == BENCH_REQUIRED_ARG ? required_argument : optional_argument;
            lo[k].flag = NULL;
            lo[k].val = id;
            k++;
        }
    }
    cli->optstring[used] = '\0';
    cli->longopts = lo;
    opterr = 0;
    optind = 1;
    return 0;
}

void bench_cli_fini(bench_cli *cli)
{
    free(cli->longopts);
    cli->longopts = NULL;
}

const char *bench_cli_name(const bench_cli *cli, int id)
{
    static char buf[80];
    const char *lname = NULL;
    for (const bench_opt *o = cli->opts; o->id; o++)
        if (o->id == id && o->long_name) {
            lname = o->long_name;
            break;
        }
    if (id < BENCH_LONG_ONLY && id > ' ')
        snprintf(buf, sizeof buf, "-%c", id);
    else
        snprintf(buf, sizeof buf, "--%s", lname ? lname : "?");
    return buf;
}

static int error(const bench_cli *cli, const char *fmt, const char *what)
{
    if (!cli->quiet) {
        fprintf(stderr, "%s: ", bench_prog_name(cli->argv[0]));
        fprintf(stderr, fmt, what);
        fprintf(stderr, " (see --help)\n");
    }
    return -2;
}

int bench_cli_next(bench_cli *cli, const char **arg)
{
    int c, prev = optind;
    *arg = NULL;
    c = getopt_long(cli->argc, cli->argv, cli->optstring, cli->longopts, NULL);
    if (c == -1) {
        if (optind < cli->argc)
            return error(cli, "unexpected argument '%s'", cli->argv[optind]);
        return -1;
    }
    /* The word getopt stopped at: a long option that went wrong is named as typed. */
    const char *word = prev < cli->argc ? cli->argv[prev] : "";
    if (c == ':') {
        if (optopt == 0 || optopt >= BENCH_LONG_ONLY || strncmp(word, "--", 2) == 0)
            return error(cli, "option %s needs a value", word);
        return error(cli, "option %s needs a value", bench_cli_name(cli, optopt));
    }
    if (c == '?') {
        if (strncmp(word, "--", 2) == 0) {
            char name[64];
            size_t len = strcspn(word, "=");
            snprintf(name, sizeof name, "%.*s", (int)(len < 63 ? len : 63), word);
            if (word[len] == '=' && optopt != 0)
                return error(cli, "option %s takes no value", name);
            return error(cli, "unknown or ambiguous option %s", name);
        }
        if (optopt > ' ' && optopt < 127) {
            char name[3] = { '-', (char)optopt, '\0' };
            return error(cli, "unknown option %s", name);
        }
        return error(cli, "unknown option %s", word);
    }
    *arg = optarg;
    return c;
}

int bench_parse_bytes(const char *text, size_t *out)
{
    char *end;
    errno = 0;
    if (!text || *text == '-' || *text == '\0')
        return -1;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno || end == text)
        return -1;
    unsigned shift = 0;
    switch (*end) {
    case 'k': case 'K': shift = 10; end++; break;
    case 'm': case 'M': shift = 20; end++; break;
    case 'g': case 'G': shift = 30; end++; break;
    case 't': case 'T': shift = 40; end++; break;
    default: break;
    }
    /* Accept the unit spellings people type: 1G, 1GB, 1GiB, 8B. */
    if (shift && (strcmp(end, "iB") == 0 || strcmp(end, "ib") == 0))
        end += 2;
    else if (*end == 'B' || *end == 'b')
        end++;
    if (*end != '\0')
        return -1;
    if (shift && v > (unsigned long long)SIZE_MAX >> shift)
        return -1;
    if (v > (unsigned long long)SIZE_MAX)
        return -1;
    *out = (size_t)(v << shift);
    return 0;
}

int bench_parse_long(const char *text, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    if (!text)
        return -1;
    long v = strtol(text, &end, 10);
    if (errno || end == text || *end != '\0' || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

int bench_parse_double(const char *text, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    if (!text)
        return -1;
    double v = strtod(text, &end);
    if (errno || end == text || *end != '\0' || !(v >= lo && v <= hi))
        return -1;
    *out = v;
    return 0;
}

void bench_format_bytes(size_t bytes, char *buf, size_t len)
{
    static const char *units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
    int u = 0;
    size_t v = bytes;
    while (u < 4 && v >= 1024 && v % 1024 == 0) {
        v /= 1024;
        u++;
    }
    snprintf(buf, len, "%zu %s", v, units[u]);
}
