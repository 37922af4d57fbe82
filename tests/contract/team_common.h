/* Helpers shared by the mpi_team_* contract tests: reading the contract driver's call log,
 * comparing values across the ranks of MPI_COMM_WORLD, capturing what mcoll logs during one call,
 * and reporting one line per case.
 *
 * The tests drive the real team code through the native API (mcoll_comm_create / _info /
 * _destroy) and look at the driver only through the model: its call log, its live-object counts
 * and its violations. They do not reach into mcoll's private structures; the one thing the log
 * is used to recover is where the symmetric memory is mapped, whose layout (rank i's memory at
 * base + i * size, src/team/team.h) is what the kernels are built on. */
#ifndef MCOLL_CONTRACT_TEAM_COMMON_H
#define MCOLL_CONTRACT_TEAM_COMMON_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "mcoll.h"
#include "contract/check.h"

#define TEAM_MIB ((size_t)1 << 20)

static int world_rank, world_size;

/* Install the contract driver, start MPI and check the rank count: 0 to go on, else the exit
 * code (77, skipped) after MPI_Finalize. */
static int team_test_start(int *argc, char ***argv, const char *test)
{
    mcoll_contract_install();
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    if (world_size >= 2 && world_size <= 8) return 0;
    if (world_rank == 0) printf("skip: %s needs 2 to 8 ranks, got %d\n", test, world_size);
    MPI_Finalize();
    return 77;
}

/* ---------------------------------------------------------------------------------------------
 * The call log
 * ------------------------------------------------------------------------------------------- */
static inline long log_end(void)
{
    return (long)mcoll_contract_log_length();
}

static inline int log_is(long index, const char *call)
{
    const char *name = index >= 0 ? mcoll_contract_log_call((size_t)index) : NULL;
    return name && strcmp(name, call) == 0;
}

/* The first entry named exactly `call` in [from, log_end()); -1 if none. */
static inline long log_find(const char *call, long from)
{
    long end = log_end();
    for (long i = from < 0 ? 0 : from; i < end; i++)
        if (log_is(i, call)) return i;
    return -1;
}

/* Entries named `call` in [from, to). */
static inline int log_count(const char *call, long from, long to)
{
    int n = 0;
    if (to < 0 || to > log_end()) to = log_end();
    for (long i = from < 0 ? 0 : from; i < to; i++) n += log_is(i, call);
    return n;
}

/* The value of `key` ("size", "mcHandle", ...) in the arguments of entry `index`; `fallback` when
 * the entry or the key is absent. Numbers are read in C syntax (0x... for handles). */
static inline unsigned long long log_arg(long index, const char *key, unsigned long long fallback)
{
    const char *line = index >= 0 ? mcoll_contract_log_line((size_t)index) : NULL;
    size_t length = strlen(key);
    if (!line) return fallback;
    for (const char *at = strstr(line, key); at; at = strstr(at + 1, key)) {
        if (at > line && (at[-1] == '(' || at[-1] == ' ') && at[length] == '=')
            return strtoull(at + length + 1, NULL, 0);
    }
    return fallback;
}

static inline int log_succeeded(long index)
{
    return index >= 0 && mcoll_contract_log_result((size_t)index) == CUDA_SUCCESS;
}

/* Entries failed on purpose in [from, end); *first receives the first one's index. */
static inline int log_injected(long from, long *first)
{
    int n = 0;
    *first = -1;
    for (long i = from, end = log_end(); i < end; i++) {
        const char *line = mcoll_contract_log_line((size_t)i);
        if (line && strstr(line, "[injected]")) {
            if (n++ == 0) *first = i;
        }
    }
    return n;
}

/* The first entry named `call` at or after `from` whose argument `key` equals `value`; -1 if none. */
static inline long log_find_arg(const char *call, long from, const char *key, unsigned long long value)
{
    for (long i = log_find(call, from); i >= 0; i = log_find(call, i + 1))
        if (log_arg(i, key, ~0ull) == value) return i;
    return -1;
}

/* ---------------------------------------------------------------------------------------------
 * Across ranks
 * ------------------------------------------------------------------------------------------- */
/* 1 on every rank when `ok` is non-zero on every rank. */
static inline int all_ranks(int ok)
{
    int all = 0;
    ok = ok != 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return all;
}

/* 1 on every rank when every rank passes the same value. */
static inline int same_on_all_ranks(long long value)
{
    long long low = 0, high = 0;
    MPI_Allreduce(&value, &low, 1, MPI_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&value, &high, 1, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
    return low == high;
}

/* The distinct ranks faults are injected on: 0, 1 and the last one. */
static inline int fault_ranks(int *ranks)
{
    int n = 0;
    int wanted[3] = {0, 1, world_size - 1};
    for (int i = 0; i < 3; i++) {
        int seen = wanted[i] >= world_size;
        for (int j = 0; j < n; j++) seen |= ranks[j] == wanted[i];
        if (!seen) ranks[n++] = wanted[i];
    }
    return n;
}

/* ---------------------------------------------------------------------------------------------
 * What mcoll logs during one call: stderr goes to a temporary file and is copied back after.
 * ------------------------------------------------------------------------------------------- */
typedef struct {
    int saved;
    FILE *file;
} stderr_capture;

static inline void capture_begin(stderr_capture *c)
{
    fflush(stderr);
    c->file = tmpfile();
    c->saved = c->file ? dup(STDERR_FILENO) : -1;
    if (c->saved >= 0) dup2(fileno(c->file), STDERR_FILENO);
}

/* The text written to stderr since capture_begin (malloc'd, never NULL); it is also written to
 * the real stderr so the test's log keeps it. */
static inline char *capture_end(stderr_capture *c)
{
    char *text = NULL;
    long length = 0;
    fflush(stderr);
    if (c->saved >= 0) {
        dup2(c->saved, STDERR_FILENO);
        close(c->saved);
    }
    if (c->file && fseek(c->file, 0, SEEK_END) == 0 && (length = ftell(c->file)) >= 0 &&
        fseek(c->file, 0, SEEK_SET) == 0) {
        text = malloc((size_t)length + 1);
        if (text) text[fread(text, 1, (size_t)length, c->file)] = '\0';
    }
    if (c->file) fclose(c->file);
    if (!text) text = calloc(1, 1);
    if (text && *text) fputs(text, stderr);
    return text;
}

/* Lines of `text` containing `needle`. */
static inline int count_lines(const char *text, const char *needle)
{
    int n = 0;
    const char *line = text;
    while (line && *line) {
        const char *end = strchr(line, '\n');
        size_t length = end ? (size_t)(end - line) : strlen(line);
        char buffer[1024];
        if (length >= sizeof buffer) length = sizeof buffer - 1;
        memcpy(buffer, line, length);
        buffer[length] = '\0';
        if (strstr(buffer, needle)) n++;
        line = end ? end + 1 : NULL;
    }
    return n;
}

/* ---------------------------------------------------------------------------------------------
 * Cases: a name printed by rank 0 with the verdict of every rank.
 * ------------------------------------------------------------------------------------------- */
static int case_failures_at_start, cases_run, cases_failed;

static inline void case_begin(void)
{
    case_failures_at_start = check_failures;
}

/* Returns 1 when the case passed on every rank. */
static inline int case_end(const char *name)
{
    int mine = check_failures - case_failures_at_start, worst = 0;
    MPI_Allreduce(&mine, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    cases_run++;
    if (worst) cases_failed++;
    if (world_rank == 0) {
        printf("%-6s %s\n", worst ? "FAIL" : "ok", name);
        fflush(stdout);
    }
    if (mine) fprintf(stderr, "rank %d: %d check(s) failed in case: %s\n", world_rank, mine, name);
    return worst == 0;
}

/* A configuration for mcoll_comm_create: small buffers keep a case fast. */
static inline mcoll_config team_config(mcoll_tristate nvls)
{
    mcoll_config config;
    mcoll_config_init(&config);
    config.nvls = nvls;
    config.buffer_size = 4 * TEAM_MIB;
    return config;
}

/* Every handle type the model offers on every device: fabric (1) or POSIX descriptors only (0). */
static inline void use_fabric(int fabric)
{
    CHECK(mcoll_contract_set_attribute(-1, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED, fabric) == 0);
    CHECK(mcoll_contract_set_attribute(-1, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED, 1) == 0);
}

/* The end of every test: per-rank verdict, the worst one as the exit status of every rank. */
static inline int team_test_exit(const char *test)
{
    char name[96];
    int status, worst = 0;
    snprintf(name, sizeof name, "%s[%d]", test, world_rank);
    status = check_exit(name);
    MPI_Allreduce(&status, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (world_rank == 0)
        printf("%s: np=%d, %d cases, %d failed\n", test, world_size, cases_run, cases_failed);
    return worst;
}

#endif /* MCOLL_CONTRACT_TEAM_COMMON_H */
