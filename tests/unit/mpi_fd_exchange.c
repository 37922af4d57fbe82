/* The descriptor exchange (src/fd_exchange.c) under mpirun, on any descriptors (memfds holding
 * "rank R round N"), no GPU needed:
 *   - exchanges: every rank receives every peer's object (read back through the descriptor),
 *     ranks that offer none give -1, and the process's descriptor count is the same before and
 *     after 200 exchanges; the private directory is mode 0700 while used and removed after;
 *   - intruders: (as root) a process of another user cannot connect at all; a forked process
 *     of the same user (the worst case: the directory does not stop it, only the pid check does)
 *     connects to every socket in the job's directory (one holds the connection without
 *     sending, one sends garbage, one sends a well-formed message with a descriptor); the ranks
 *     themselves (pids that pass the check) send garbage, too many descriptors, a message
 *     claiming another rank, and hold a connection without sending. Every exchange must still
 *     succeed, well within the deadline, with nothing leaked; and a background process that
 *     connects to whatever it finds during a run of exchanges changes nothing;
 *   - a peer that never connects: the others end at the (shortened) deadline with a warning
 *     naming it, every rank fails, and nothing is left open.
 * Every rank's $TMPDIR is a fresh directory of this test; it must be empty at the end. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <mpi.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "fd_exchange.h"
#include "unit/unit.h"

#define ROUNDS 200
#define INTRUDED_ROUNDS 10
#define BACKGROUND_ROUNDS 40
#define SHORT_DEADLINE_MS 1000
#define MAX_RANKS 64

static int rank, size;
static char base[64];   /* this test's $TMPDIR */

/* Rank 0 prints one line per part: ok when no check of any rank failed in it. */
static void report(int failures_before, const char *fmt, ...)
{
    int mine = unit_failures - failures_before, all = 0;
    va_list ap;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank != 0) return;
    printf("%-6s ", all ? "FAIL" : "ok");
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
}

static long now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static int open_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    struct dirent *e;
    int n = 0;
    while (d && (e = readdir(d))) n += e->d_name[0] != '.';
    if (d) closedir(d);
    return n - 1; /* the directory stream's own */
}

static int object(int owner, int round)
{
    char text[64];
    int fd = memfd_create("fd-exchange-test", MFD_CLOEXEC);
    int n = snprintf(text, sizeof text, "rank %d round %d", owner, round);
    if (fd < 0 || write(fd, text, (size_t)n + 1) != n + 1) return -1;
    return fd;
}

static int holds(int fd, int owner, int round)
{
    char text[64], expected[64];
    snprintf(expected, sizeof expected, "rank %d round %d", owner, round);
    memset(text, 0, sizeof text);
    return fd >= 0 && pread(fd, text, sizeof text - 1, 0) > 0 && strcmp(text, expected) == 0;
}

static int base_empty(void)
{
    DIR *d = opendir(base);
    struct dirent *e;
    int n = 0;
    while (d && (e = readdir(d))) n += e->d_name[0] != '.';
    if (d) closedir(d);
    return d && n == 0;
}

/* One exchange: every rank offers a fresh object (odd ranks none when `some_none`); checks what
 * arrived and closes it. Returns the status; *ms the time it took on this rank. */
static mcoll_result exchange(int round, int some_none, long *ms)
{
    int fds[MAX_RANKS], mine = some_none && rank % 2 ? -1 : object(rank, round), i;
    long start = now_ms();
    mcoll_result rc = mcoll_fd_allgather(MPI_COMM_WORLD, mine, fds);
    *ms = now_ms() - start;
    for (i = 0; i < size; i++) {
        if (rc != MCOLL_SUCCESS) {
            CHECK(fds[i] == -1);
            continue;
        }
        if (some_none && i % 2) CHECK(fds[i] == -1);
        else CHECK(holds(fds[i], i, round));
        if (i == rank && mine >= 0) CHECK(fds[i] != mine);
        if (fds[i] >= 0) close(fds[i]);
    }
    if (mine >= 0) close(mine);
    return rc;
}

/* ---------------------------------------------------------------------------------------------
 * Plain exchanges
 * ------------------------------------------------------------------------------------------- */
static void private_dir_checked(const char *dir)
{
    struct stat st;
    char path[256];
    int i;
    CHECK(strncmp(dir, base, strlen(base)) == 0);
    CHECK(lstat(dir, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 0777) == 0700 && st.st_uid == geteuid());
    for (i = 0; i < size; i++) {
        snprintf(path, sizeof path, "%s/%d", dir, i);
        CHECK(lstat(path, &st) == 0 && S_ISSOCK(st.st_mode));
    }
}

static void plain_exchanges(void)
{
    mcoll_fd_exchange_test_hooks hooks = {0, 0, private_dir_checked};
    long ms, slowest = 0;
    int before, round, failures = 0, checks = unit_failures;

    mcoll_fd_exchange_set_test_hooks(&hooks);
    exchange(0, 0, &ms); /* MPI may open what it needs at the first collectives */
    mcoll_fd_exchange_set_test_hooks(NULL);
    before = open_fds();
    for (round = 1; round <= ROUNDS; round++) {
        failures += exchange(round, round % 50 == 0, &ms) != MCOLL_SUCCESS;
        if (ms > slowest) slowest = ms;
    }
    CHECK(failures == 0);
    CHECK(open_fds() == before);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) CHECK(base_empty());
    report(checks, "%d exchanges, slowest %ld ms, %d failed", ROUNDS, slowest, failures);
}

/* ---------------------------------------------------------------------------------------------
 * Intruders
 * ------------------------------------------------------------------------------------------- */
typedef struct {
    int32_t rank;
    int32_t fds;
} message; /* the exchange's message: the sender's rank, descriptors attached */

static int connect_to(const char *path)
{
    struct sockaddr_un addr;
    int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    memset(&addr, 0, sizeof addr);
    addr.sun_family = AF_UNIX;
    snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path);
    if (s >= 0 && connect(s, (struct sockaddr *)&addr, sizeof addr) == 0) return s;
    if (s >= 0) close(s);
    return -1;
}

/* Send `bytes` of `data` with `count` fresh memfds attached; the memfds are closed here. */
static void send_with_fds(int s, const void *data, size_t bytes, int count)
{
    union {
        struct cmsghdr align;
        char bytes[CMSG_SPACE(8 * sizeof(int))];
    } control;
    struct iovec iov = {(void *)data, bytes};
    struct msghdr msg;
    int fds[8], i;

    memset(&msg, 0, sizeof msg);
    memset(&control, 0, sizeof control);
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    for (i = 0; i < count; i++) fds[i] = object(-1, -1);
    if (count) {
        struct cmsghdr *c;
        msg.msg_control = control.bytes;
        msg.msg_controllen = CMSG_SPACE((size_t)count * sizeof(int));
        c = CMSG_FIRSTHDR(&msg);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN((size_t)count * sizeof(int));
        memcpy(CMSG_DATA(c), fds, (size_t)count * sizeof(int));
    }
    (void)sendmsg(s, &msg, MSG_NOSIGNAL); /* a refused connection may be closed already */
    for (i = 0; i < count; i++) close(fds[i]);
}

/* Every socket in `dir`, by path, into paths[]; the count. */
static int sockets_in(const char *dir, char paths[][160], int most)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;
    while (d && n < most && (e = readdir(d)))
        if (e->d_name[0] != '.') snprintf(paths[n++], sizeof paths[0], "%.100s/%.16s", dir, e->d_name);
    if (d) closedir(d);
    return n;
}

/* Connections to `path` in every way a stranger might try; those held open go into held[]. */
static int intrude(const char *path, int claimed, int *held)
{
    message m = {claimed, 1};
    int s, n = 0;
    if ((s = connect_to(path)) >= 0) held[n++] = s;                     /* connect, never send */
    if ((s = connect_to(path)) >= 0) { send_with_fds(s, "GARBAGE", 3, 0); held[n++] = s; }
    if ((s = connect_to(path)) >= 0) { send_with_fds(s, &m, sizeof m, 1); held[n++] = s; }
    return n;
}

/* As root: a process of another user cannot even connect (the directory is closed to it).
 * 1 when refused everywhere (or not root: nothing to try). */
static int other_user_refused(char paths[][160], int n)
{
    int status = -1, i;
    pid_t pid;
    if (geteuid() != 0) return 1;
    pid = fork();
    if (pid == 0) {
        if (setgid(65534) != 0 || setuid(65534) != 0) _exit(2);
        for (i = 0; i < n; i++) {
            int s = connect_to(paths[i]);
            if (s >= 0 || errno != EACCES) _exit(3);
        }
        _exit(0);
    }
    return waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static pid_t child;
static int child_hold = -1;
static int own_held[64], own_count;

/* Called while every rank listens and before any connects. */
static void intruders(const char *dir)
{
    char paths[MAX_RANKS][160];
    int n = sockets_in(dir, paths, MAX_RANKS), ready[2], hold[2], i, j, s;
    char c;

    CHECK(n == size);
    CHECK(other_user_refused(paths, n));
    /* A process of the same user, not a rank: refused at accept. */
    if (pipe2(ready, O_CLOEXEC) != 0 || pipe2(hold, O_CLOEXEC) != 0) return;
    child = fork();
    if (child == 0) {
        int held[3 * MAX_RANKS], count = 0;
        close(ready[0]);
        close(hold[1]);
        alarm(30);
        for (i = 0; i < n; i++) count += intrude(paths[i], (i + 1) % n, held + count);
        if (write(ready[1], "r", 1) != 1) _exit(1);
        if (read(hold[0], &c, 1) < 0) _exit(1); /* until the rank closes its end */
        _exit(count == 3 * n ? 0 : 2);
    }
    close(ready[1]);
    close(hold[0]);
    CHECK(read(ready[0], &c, 1) == 1);
    close(ready[0]);
    child_hold = hold[1];

    /* This rank's own process: its pid passes the check, so what it sends is validated. */
    own_count = 0;
    for (i = 0; i < n; i++) {
        message wrong_count = {rank, 3}, other = {(rank + 1) % size, 1};
        const struct {
            const void *data;
            size_t bytes;
            int fds;
        } sends[4] = {{"xyz", 3, 0}, {&wrong_count, sizeof wrong_count, 3}, {&wrong_count, sizeof wrong_count, 6},
                      {&other, sizeof other, 1}};
        if ((s = connect_to(paths[i])) >= 0) own_held[own_count++] = s; /* never sends */
        for (j = 0; j < 4; j++) {
            if ((s = connect_to(paths[i])) < 0) continue;
            send_with_fds(s, sends[j].data, sends[j].bytes, sends[j].fds);
            own_held[own_count++] = s;
        }
    }
    CHECK(own_count == 5 * n);
}

static void intruders_gone(void)
{
    int status = -1, i;
    for (i = 0; i < own_count; i++) close(own_held[i]);
    own_count = 0;
    if (child_hold >= 0) close(child_hold);
    child_hold = -1;
    CHECK(waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* A process that, until killed, connects to every socket it finds under `base` and intrudes;
 * it writes a byte to `tally` for every connection made (a listener was there). */
static pid_t background_intruder(int tally)
{
    pid_t pid = fork();
    if (pid != 0) return pid;
    alarm(60);
    for (;;) {
        DIR *d = opendir(base);
        struct dirent *e;
        while (d && (e = readdir(d))) {
            char dir[128], paths[MAX_RANKS][160];
            int held[3], n, i, j, k;
            if (strncmp(e->d_name, "mcoll-", 6) != 0) continue;
            snprintf(dir, sizeof dir, "%s/%.16s", base, e->d_name);
            n = sockets_in(dir, paths, MAX_RANKS);
            for (i = 0; i < n; i++) {
                k = intrude(paths[i], (i + 1) % n, held);
                for (j = 0; j < k; j++) close(held[j]);
                if (k && write(tally, held, (size_t)k) < 0) {} /* a full pipe drops the count */
            }
        }
        if (d) closedir(d);
        usleep(200);
    }
}

/* Bytes waiting in the nonblocking pipe `fd`. */
static long drain(int fd)
{
    char buffer[4096];
    long total = 0;
    ssize_t n;
    while ((n = read(fd, buffer, sizeof buffer)) > 0) total += n;
    return total;
}

static void intruded_exchanges(void)
{
    mcoll_fd_exchange_test_hooks hooks = {3000, 0, intruders};
    long ms, slowest = 0;
    int before = open_fds(), round, failures = 0, status, tally[2], checks = unit_failures;
    long connections;
    pid_t background;

    mcoll_fd_exchange_set_test_hooks(&hooks);
    for (round = 1; round <= INTRUDED_ROUNDS; round++) {
        failures += exchange(round, 0, &ms) != MCOLL_SUCCESS;
        intruders_gone();
        if (ms > slowest) slowest = ms;
    }
    CHECK(failures == 0);
    CHECK(slowest < hooks.deadline_ms);
    CHECK(open_fds() == before);
    report(checks, "%d exchanges against intruders, slowest %ld ms", INTRUDED_ROUNDS, slowest);
    checks = unit_failures;

    hooks.listening = NULL;
    mcoll_fd_exchange_set_test_hooks(&hooks);
    CHECK(pipe2(tally, O_CLOEXEC | O_NONBLOCK) == 0);
    background = background_intruder(tally[1]);
    slowest = 0;
    failures = 0;
    for (round = 1; round <= BACKGROUND_ROUNDS; round++) {
        failures += exchange(round, 0, &ms) != MCOLL_SUCCESS;
        if (ms > slowest) slowest = ms;
    }
    kill(background, SIGKILL);
    CHECK(waitpid(background, &status, 0) == background);
    close(tally[1]);
    connections = drain(tally[0]);
    close(tally[0]);
    CHECK(failures == 0);
    CHECK(slowest < hooks.deadline_ms);
    CHECK(open_fds() == before);
    mcoll_fd_exchange_set_test_hooks(NULL);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) CHECK(base_empty());
    report(checks, "%d exchanges beside a background intruder (%ld connections on rank 0), slowest %ld ms",
           BACKGROUND_ROUNDS, connections, slowest);
}

/* ---------------------------------------------------------------------------------------------
 * A peer that never connects
 * ------------------------------------------------------------------------------------------- */
static void missing_peer(void)
{
    int absent = size - 1;
    mcoll_fd_exchange_test_hooks hooks = {SHORT_DEADLINE_MS, rank == absent, NULL};
    char named[64], warning[512];
    long ms, failed_ms;
    int before = open_fds(), checks = unit_failures;

    snprintf(named, sizeof named, "local rank %d", rank == absent ? 0 : absent);
    mcoll_fd_exchange_set_test_hooks(&hooks);
    CHECK(exchange(1, 0, &failed_ms) == MCOLL_ERR_SYSTEM);
    mcoll_fd_exchange_set_test_hooks(NULL);
    snprintf(warning, sizeof warning, "%s", mcoll_last_warning());
    CHECK(strstr(warning, named) != NULL);
    if (rank != absent) CHECK(strstr(warning, "accept") != NULL);
    if (rank != absent) CHECK(failed_ms >= SHORT_DEADLINE_MS);
    CHECK(failed_ms < SHORT_DEADLINE_MS + 2000);
    CHECK(open_fds() == before);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) CHECK(base_empty());
    CHECK(exchange(2, 0, &ms) == MCOLL_SUCCESS); /* and the next one works */
    report(checks, "a peer that never connects: failed after %ld ms (%s)", failed_ms, warning);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2 || size > MAX_RANKS) {
        if (rank == 0) printf("skip: needs 2 to %d ranks, got %d\n", MAX_RANKS, size);
        MPI_Finalize();
        return 77;
    }
    if (rank == 0) {
        snprintf(base, sizeof base, "/tmp/fd-exchange-test-XXXXXX");
        if (!mkdtemp(base) || chmod(base, 01777) != 0) base[0] = '\0'; /* open to all, as /tmp is */
    }
    MPI_Bcast(base, sizeof base, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (!base[0]) MPI_Abort(MPI_COMM_WORLD, 1);
    setenv("TMPDIR", base, 1);

    plain_exchanges();
    intruded_exchanges();
    missing_peer();

    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        CHECK(base_empty());
        rmdir(base);
    }
    MPI_Finalize();
    return unit_exit("mpi_fd_exchange");
}
