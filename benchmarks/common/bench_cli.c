/* Option parsing; see bench_cli.h. */
#include "bench_cli.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void bench_cli_init(bench_cli *cli, int argc, char **argv)
{
    cli->argc = argc;
    cli->argv = argv;
    cli->index = 1;
    cli->rest = NULL;
}

static const char *prog_name(const bench_cli *cli)
{
    const char *slash = cli->argc > 0 ? strrchr(cli->argv[0], '/') : NULL;
    return slash ? slash + 1 : (cli->argc > 0 ? cli->argv[0] : "benchmark");
}

static int next_short(bench_cli *cli, const bench_opt *opts, const char **arg)
{
    char c = *cli->rest++;
    for (int i = 0; opts[i].short_name || opts[i].long_name; i++) {
        if (opts[i].short_name != c)
            continue;
        if (!opts[i].has_arg) {
            if (*cli->rest == '\0')
                cli->rest = NULL;
            return i;
        }
        if (*cli->rest != '\0') { /* -m8:64 */
            *arg = cli->rest;
        } else if (cli->index < cli->argc) {
            *arg = cli->argv[cli->index++];
        } else {
            fprintf(stderr, "%s: option -%c needs a value (see -h)\n", prog_name(cli), c);
            return -2;
        }
        cli->rest = NULL;
        return i;
    }
    fprintf(stderr, "%s: unknown option -%c (see -h)\n", prog_name(cli), c);
    return -2;
}

static int next_long(bench_cli *cli, const bench_opt *opts, const char *word, const char **arg)
{
    const char *eq = strchr(word, '=');
    size_t len = eq ? (size_t)(eq - word) : strlen(word);
    for (int i = 0; opts[i].short_name || opts[i].long_name; i++) {
        if (!opts[i].long_name || strlen(opts[i].long_name) != len || strncmp(opts[i].long_name, word, len) != 0)
            continue;
        if (!opts[i].has_arg) {
            if (eq) {
                fprintf(stderr, "%s: option --%s takes no value\n", prog_name(cli), opts[i].long_name);
                return -2;
            }
            return i;
        }
        if (eq) {
            *arg = eq + 1;
        } else if (cli->index < cli->argc) {
            *arg = cli->argv[cli->index++];
        } else {
            fprintf(stderr, "%s: option --%s needs a value (see --help)\n", prog_name(cli), opts[i].long_name);
            return -2;
        }
        return i;
    }
    fprintf(stderr, "%s: unknown option --%.*s (see --help)\n", prog_name(cli), (int)len, word);
    return -2;
}

int bench_cli_next(bench_cli *cli, const bench_opt *opts, const char **arg)
{
    *arg = NULL;
    if (cli->rest)
        return next_short(cli, opts, arg);
    if (cli->index >= cli->argc)
        return -1;
    const char *word = cli->argv[cli->index++];
    if (strcmp(word, "--") == 0)
        return -1;
    if (word[0] == '-' && word[1] == '-')
        return next_long(cli, opts, word + 2, arg);
    if (word[0] == '-' && word[1] != '\0') {
        cli->rest = word + 1;
        return next_short(cli, opts, arg);
    }
    fprintf(stderr, "%s: unexpected argument '%s' (see -h)\n", prog_name(cli), word);
    return -2;
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
