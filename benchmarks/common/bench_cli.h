/* Command-line parsing shared by the benchmarks: one table of options handed to getopt_long, so
 * short clusters (-fc), attached values (-m8:64, -clog), optional values (-z, -z50,99), long
 * forms (--message-size 1K, --message-size=1K) and unambiguous long prefixes behave as in OSU's
 * and nccl-tests' programs, which parse with getopt_long too. Errors are reported here, once,
 * in one line naming the option. */
#ifndef BENCH_CLI_H
#define BENCH_CLI_H

#include <stddef.h>

enum { BENCH_NO_ARG, BENCH_REQUIRED_ARG, BENCH_OPTIONAL_ARG };

/* An id below 256 is also the short letter; long-only options use ids from BENCH_LONG_ONLY.
 * Several entries may share an id: the long names after the first are aliases. */
#define BENCH_LONG_ONLY 256

typedef struct {
    int id;
    const char *long_name; /* NULL: short form only */
    int has_arg;
} bench_opt;

#define BENCH_MAX_OPTS 64

typedef struct {
    int argc;
    char **argv;
    const bench_opt *opts;
    int quiet;                       /* 1: print nothing (ranks other than the printer) */
    char optstring[3 + 3 * BENCH_MAX_OPTS];
    void *longopts;                  /* struct option[], kept opaque so callers need no getopt.h */
} bench_cli;

/* `opts` ends with an entry whose id is 0. Returns 0, or -1 when the table is too large. */
int bench_cli_init(bench_cli *cli, int argc, char **argv, const bench_opt *opts, int quiet);
void bench_cli_fini(bench_cli *cli);

/* The id of the next option, its value in *arg (NULL when it has none). -1: no more options.
 * -2: an error, already printed (unknown option, missing or unexpected value, a positional
 * argument: no benchmark takes any). */
int bench_cli_next(bench_cli *cli, const char **arg);

/* "-m" or "--mem-limit": how the user can name option `id`, for messages. */
const char *bench_cli_name(const bench_cli *cli, int id);

/* The program's name without its directory. */
const char *bench_prog_name(const char *argv0);

/* Number parsers: 0 on success, -1 (nothing printed) when the text is not valid or out of range. */
int bench_parse_bytes(const char *text, size_t *out); /* 4096, 64K, 1M, 1G, 1GiB, 2MB (powers of 1024) */
int bench_parse_long(const char *text, long lo, long hi, long *out);
int bench_parse_double(const char *text, double lo, double hi, double *out);

/* "1 GiB", "512 KiB", "1536 B": the largest binary unit that divides `bytes` exactly. */
void bench_format_bytes(size_t bytes, char *buf, size_t len);

#endif /* BENCH_CLI_H */
