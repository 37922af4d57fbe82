/* Command-line parsing shared by the benchmarks. One table describes each option's short form
 * (-m 8:64, -m8:64, clusters like -fc) and long form (--max-bytes 1G, --max-bytes=1G); getopt_long
 * is not POSIX, so this small parser stands in for it. */
#ifndef BENCH_CLI_H
#define BENCH_CLI_H

#include <stddef.h>

typedef struct {
    char short_name;       /* 0: long form only */
    const char *long_name; /* NULL: short form only */
    int has_arg;           /* 1: the option takes a value */
} bench_opt;

typedef struct {
    int argc;
    char **argv;
    int index;        /* next argv element to read */
    const char *rest; /* the unread part of a cluster of short options */
} bench_cli;

void bench_cli_init(bench_cli *cli, int argc, char **argv);

/* The index in `opts` (ended by an all-zero entry) of the next option, with its value in *arg
 * (NULL when it takes none). -1: no more options. -2: an error, already printed to stderr.
 * Positional arguments are errors: no benchmark takes any. */
int bench_cli_next(bench_cli *cli, const bench_opt *opts, const char **arg);

/* Number parsers: 0 on success, -1 (nothing printed) when the text is not valid or out of range. */
int bench_parse_bytes(const char *text, size_t *out); /* 4096, 64K, 1M, 1G, 1GiB, 2MB (powers of 1024) */
int bench_parse_long(const char *text, long lo, long hi, long *out);
int bench_parse_double(const char *text, double lo, double hi, double *out);

/* "1 GiB", "512 KiB", "1536 B": the largest binary unit that divides `bytes` exactly. */
void bench_format_bytes(size_t bytes, char *buf, size_t len);

#endif /* BENCH_CLI_H */
