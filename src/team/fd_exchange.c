/* SCM_RIGHTS exchange of file descriptors between the ranks of one node (design in the header).
 * Each rank runs one poll loop that connects to every peer and sends, and accepts and receives
 * from every peer, all nonblocking: a slow, missing or misbehaving peer, or a stranger's
 * connection, holds up nothing else, and the loop ends at one deadline. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include "agree.h"
#include "clock.h"
#include "fd_exchange.h"
#include "log.h"

/* The whole exchange, first connect to last receive, ends within this many milliseconds. The
 * ranks enter it together (an MPI collective just before) and a healthy exchange takes
 * milliseconds; 30 s leaves room for a node so loaded that ranks are descheduled for seconds. */
#define EXCHANGE_DEADLINE_MS 30000
/* Delays between tries of a connect refused or a listener momentarily full: doubling from the
 * first to the last. */
#define RETRY_FIRST_MS 1
#define RETRY_LAST_MS 50
/* Connections from ranks accepted but not yet read, beyond one per peer; more wait in the
 * listener's backlog until one is read. */
#define EXTRA_PENDING 8
/* Room for this many descriptors per message, so that a message with too many is received
 * whole and closed rather than truncated. */
#define MAX_MESSAGE_FDS 4

typedef struct {
    pid_t pid;
    int has_fd;
} rank_card; /* what every rank learns of every other before connecting */

typedef struct {
    int32_t rank;
    int32_t fds; /* descriptors attached: 0 or 1 */
} message; /* what each rank sends each peer */

enum { OUT_WAIT, OUT_CONNECTING, OUT_SENDING, OUT_DONE, OUT_FAILED };

typedef struct {
    int state;
    int sock;
    int last_error;  /* of the last refused try, for the timeout warning */
    long retry_at;   /* OUT_WAIT: when to try again */
    long backoff;
} outgoing;

typedef struct {
    int sock;
    pid_t pid; /* SO_PEERCRED at accept: the pid of one of the ranks */
} incoming;

typedef struct {
    int rank, size, my_fd, deadline_ms;
    const char *dir;
    const rank_card *cards;
    int *peer_fds;
    int *received;      /* [size] */
    outgoing *out;      /* [size] */
    incoming *in;       /* [max_in] */
    int max_in, n_in;
    int listener;       /* -1 once closed or after an accept error */
    int refused;        /* connections closed at accept: not from a rank */
    pid_t refused_pid;
    uid_t refused_uid;
} exchange;

static mcoll_fd_exchange_test_hooks hooks;

void mcoll_fd_exchange_set_test_hooks(const mcoll_fd_exchange_test_hooks *h)
{
    if (h) hooks = *h;
    else memset(&hooks, 0, sizeof hooks);
}

static long now_ms(void) { return (long)(mcoll_now_ns() / 1000000u); }

/* The single form of every failure: which peer, which step, what error. */
static void warn_peer(const char *step, int peer, int err, const char *detail)
{
    MCOLL_WARN("descriptor exchange: %s, local rank %d: %s%s%s", step, peer, strerror(err), detail[0] ? "; " : "",
               detail);
}

static socklen_t socket_address(struct sockaddr_un *addr, const char *dir, int rank)
{
    int len;
    memset(addr, 0, sizeof *addr);
    addr->sun_family = AF_UNIX;
    len = snprintf(addr->sun_path, sizeof addr->sun_path, "%s/%d", dir, rank);
    return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + (size_t)len + 1);
}

/* ---------------------------------------------------------------------------------------------
 * The private directory
 * ------------------------------------------------------------------------------------------- */
#define DIR_MAX sizeof(((struct sockaddr_un *)0)->sun_path)

/* Rank 0: a new directory only this user can enter, with room for "/<rank>" in a socket path. */
static int make_private_dir(char *dir)
{
    const char *base = getenv("TMPDIR");
    if (!base || base[0] != '/' || strlen(base) + sizeof "/mcoll-XXXXXX/2147483647" > DIR_MAX) base = "/tmp";
    snprintf(dir, DIR_MAX, "%s/mcoll-XXXXXX", base);
    if (mkdtemp(dir)) return 1;
    MCOLL_WARN("descriptor exchange: cannot make a private directory %s: %s", dir, strerror(errno));
    dir[0] = '\0';
    return 0;
}

/* Other ranks: the directory rank 0 named is this user's and closed to others. */
static int private_dir(const char *dir)
{
    struct stat st;
    if (lstat(dir, &st) != 0) {
        warn_peer("directory", 0, errno, dir);
        return 0;
    }
    if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077) != 0) {
        warn_peer("directory", 0, EPERM, "not a directory of this user closed to others");
        return 0;
    }
    return 1;
}

/* Rank 0, once every rank is done: the sockets left by ranks that failed, then the directory. */
static void remove_dir(const char *dir, int size)
{
    struct sockaddr_un addr;
    int i;
    for (i = 0; i < size; i++) {
        socket_address(&addr, dir, i);
        unlink(addr.sun_path);
    }
    if (rmdir(dir) != 0) MCOLL_WARN("descriptor exchange: cannot remove %s: %s", dir, strerror(errno));
}

/* ---------------------------------------------------------------------------------------------
 * Sending: connect (retried while refused or full), check who listens, send.
 * ------------------------------------------------------------------------------------------- */
static void out_failed(exchange *x, int peer, const char *step, int err, const char *detail)
{
    outgoing *o = &x->out[peer];
    if (o->sock >= 0) close(o->sock);
    o->sock = -1;
    o->state = OUT_FAILED;
    warn_peer(step, peer, err, detail);
}

static void try_send(exchange *x, int peer)
{
    outgoing *o = &x->out[peer];
    message m = {x->rank, x->my_fd >= 0};
    union {
        struct cmsghdr align;
        char bytes[CMSG_SPACE(sizeof(int))];
    } control;
    struct iovec iov = {&m, sizeof m};
    struct msghdr msg;
    ssize_t n;

    memset(&msg, 0, sizeof msg);
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    if (x->my_fd >= 0) {
        struct cmsghdr *c;
        memset(&control, 0, sizeof control);
        msg.msg_control = control.bytes;
        msg.msg_controllen = sizeof control.bytes;
        c = CMSG_FIRSTHDR(&msg);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(c), &x->my_fd, sizeof(int));
    }
    n = sendmsg(o->sock, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n == (ssize_t)sizeof m) {
        /* The message and its descriptor wait in the peer's queue; closing does not drop them. */
        close(o->sock);
        o->sock = -1;
        o->state = OUT_DONE;
    } else if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
        o->state = OUT_SENDING;
    } else {
        out_failed(x, peer, "send", n < 0 ? errno : EIO, n < 0 ? "" : "short write");
    }
}

/* Connected: send only to the rank we meant (the listener's credentials), then send. */
static void connected(exchange *x, int peer)
{
    struct ucred cred;
    socklen_t len = sizeof cred;
    char detail[96];
    if (getsockopt(x->out[peer].sock, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) {
        out_failed(x, peer, "connect", errno, "SO_PEERCRED");
        return;
    }
    if (cred.uid != geteuid() || cred.pid != x->cards[peer].pid) {
        snprintf(detail, sizeof detail, "the listener is pid %d uid %d", (int)cred.pid, (int)cred.uid);
        out_failed(x, peer, "connect", EPERM, detail);
        return;
    }
    try_send(x, peer);
}

static int retryable(int err)
{
    /* Not listening yet or any more, or its backlog momentarily full. */
    return err == ECONNREFUSED || err == EAGAIN || err == ENOENT || err == EINTR;
}

static void connect_failed(exchange *x, int peer, int err, long now)
{
    outgoing *o = &x->out[peer];
    if (!retryable(err)) {
        out_failed(x, peer, "connect", err, "");
        return;
    }
    close(o->sock);
    o->sock = -1;
    o->state = OUT_WAIT;
    o->last_error = err;
    o->retry_at = now + o->backoff;
    o->backoff = o->backoff * 2 > RETRY_LAST_MS ? RETRY_LAST_MS : o->backoff * 2;
}

static void try_connect(exchange *x, int peer, long now)
{
    outgoing *o = &x->out[peer];
    struct sockaddr_un addr;
    socklen_t len = socket_address(&addr, x->dir, peer);

    o->sock = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (o->sock < 0) {
        out_failed(x, peer, "connect", errno, "socket");
    } else if (connect(o->sock, (struct sockaddr *)&addr, len) == 0) {
        connected(x, peer);
    } else if (errno == EINPROGRESS) {
        o->state = OUT_CONNECTING;
    } else {
        connect_failed(x, peer, errno, now);
    }
}

/* POLLOUT (or an error) on a connecting socket. */
static void connect_done(exchange *x, int peer, long now)
{
    int err = 0;
    socklen_t len = sizeof err;
    if (getsockopt(x->out[peer].sock, SOL_SOCKET, SO_ERROR, &err, &len) != 0) err = errno;
    if (err == 0) connected(x, peer);
    else connect_failed(x, peer, err, now);
}

/* ---------------------------------------------------------------------------------------------
 * Receiving: accept (ranks of this exchange only), receive, validate.
 * ------------------------------------------------------------------------------------------- */
static int rank_of_pid(const exchange *x, pid_t pid)
{
    int i;
    for (i = 0; i < x->size; i++)
        if (x->cards[i].pid == pid) return i;
    return -1;
}

/* The descriptors a message carried, however many, into fds[]; their count. */
static int message_fds(struct msghdr *msg, int *fds)
{
    struct cmsghdr *c;
    int n = 0;
    for (c = CMSG_FIRSTHDR(msg); c; c = CMSG_NXTHDR(msg, c)) {
        size_t i, count;
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
        count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (i = 0; i < count && n < MAX_MESSAGE_FDS; i++)
            memcpy(&fds[n++], CMSG_DATA(c) + i * sizeof(int), sizeof(int));
    }
    return n;
}

/* What is wrong with a message from a connection of pid `pid`; NULL when it is rank m->rank's. */
static const char *invalid(const exchange *x, ssize_t n, int flags, const message *m, pid_t pid, int nfds)
{
    if (n == 0) return "closed without a message";
    if (flags & MSG_CTRUNC) return "too many descriptors";
    if (n != (ssize_t)sizeof *m) return "a message of the wrong size";
    if (m->rank < 0 || m->rank >= x->size || m->rank == x->rank) return "no such peer";
    if (x->cards[m->rank].pid != pid) return "sent by another rank's process";
    if (x->received[m->rank]) return "a second message";
    if (m->fds != nfds || nfds != (x->cards[m->rank].has_fd ? 1 : 0)) return "the wrong number of descriptors";
    return NULL;
}

/* Read connection `j` if its message has arrived: either it is a peer's, or it is warned about
 * and dropped with whatever it carried. */
static void receive_one(exchange *x, int j)
{
    incoming *c = &x->in[j];
    message m = {-1, 0};
    union {
        struct cmsghdr align;
        char bytes[CMSG_SPACE(MAX_MESSAGE_FDS * sizeof(int))];
    } control;
    struct iovec iov = {&m, sizeof m};
    struct msghdr msg;
    int fds[MAX_MESSAGE_FDS], nfds = 0, i;
    const char *why;
    ssize_t n;

    memset(&msg, 0, sizeof msg);
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.bytes;
    msg.msg_controllen = sizeof control.bytes;
    n = recvmsg(c->sock, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
    if (n < 0) {
        warn_peer("receive", rank_of_pid(x, c->pid), errno, "");
    } else {
        nfds = message_fds(&msg, fds);
        why = invalid(x, n, msg.msg_flags, &m, c->pid, nfds);
        if (!why) {
            x->peer_fds[m.rank] = nfds ? fds[0] : -1;
            x->received[m.rank] = 1;
            nfds = 0;
        } else {
            char detail[160];
            snprintf(detail, sizeof detail, "ignored a connection of pid %d: %s", (int)c->pid, why);
            warn_peer("validate", rank_of_pid(x, c->pid), EPROTO, detail);
        }
    }
    for (i = 0; i < nfds; i++) close(fds[i]);
    close(c->sock);
    *c = x->in[--x->n_in];
}

/* Accept what waits, while there is room: strangers are counted and closed at once; a rank's
 * connection is read at once (its message is usually there already). */
static void accept_all(exchange *x)
{
    while (x->n_in < x->max_in) {
        struct ucred cred = {0, (uid_t)-1, (gid_t)-1};
        socklen_t len = sizeof cred;
        int s = accept4(x->listener, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (s < 0) {
            if (errno == EAGAIN || errno == EINTR || errno == ECONNABORTED) return;
            /* Out of descriptors, most likely; the peers not heard from are named at the end. */
            MCOLL_WARN("descriptor exchange: accept: %s", strerror(errno));
            close(x->listener);
            x->listener = -1;
            return;
        }
        if (getsockopt(s, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 || cred.uid != geteuid() ||
            rank_of_pid(x, cred.pid) < 0) {
            x->refused++;
            x->refused_pid = cred.pid;
            x->refused_uid = cred.uid;
            close(s);
            continue;
        }
        x->in[x->n_in].sock = s;
        x->in[x->n_in].pid = cred.pid;
        x->n_in++;
        receive_one(x, x->n_in - 1);
    }
}

/* ---------------------------------------------------------------------------------------------
 * The loop
 * ------------------------------------------------------------------------------------------- */
static int missing_receives(const exchange *x)
{
    int i, n = 0;
    for (i = 0; i < x->size; i++) n += i != x->rank && !x->received[i];
    return n;
}

static int sends_open(const exchange *x)
{
    int i, n = 0;
    for (i = 0; i < x->size; i++) n += x->out[i].state != OUT_DONE && x->out[i].state != OUT_FAILED;
    return n;
}

/* One pass: start what is due, wait for events until the next is due, handle them. 0 when
 * nothing is left to do or the deadline has passed. */
static int step(exchange *x, struct pollfd *fds, int *who, long deadline)
{
    long now = now_ms(), wake = deadline;
    int n = 0, i, r;

    for (i = 0; i < x->size; i++)
        if (x->out[i].state == OUT_WAIT && x->out[i].retry_at <= now) try_connect(x, i, now);
    if (!sends_open(x) && (!missing_receives(x) || (x->listener < 0 && x->n_in == 0))) return 0;
    if (now >= deadline) return 0;

    if (x->listener >= 0 && x->n_in < x->max_in && missing_receives(x)) {
        fds[n].fd = x->listener;
        fds[n].events = POLLIN;
        who[n++] = -1;
    }
    for (i = 0; i < x->n_in; i++) {
        fds[n].fd = x->in[i].sock;
        fds[n].events = POLLIN;
        who[n++] = x->size + i;
    }
    for (i = 0; i < x->size; i++) {
        outgoing *o = &x->out[i];
        if (o->state == OUT_CONNECTING || o->state == OUT_SENDING) {
            fds[n].fd = o->sock;
            fds[n].events = POLLOUT;
            who[n++] = i;
        } else if (o->state == OUT_WAIT && o->retry_at < wake) {
            wake = o->retry_at;
        }
    }
    r = poll(fds, (nfds_t)n, (int)(wake > now ? wake - now : 0));
    if (r < 0 && errno != EINTR) {
        MCOLL_WARN("descriptor exchange: poll: %s", strerror(errno));
        return 0;
    }
    now = now_ms();
    /* Connections last to first: receive_one moves the last connection into the slot it frees. */
    for (i = n - 1; i >= 0 && r > 0; i--) {
        if (!fds[i].revents) continue;
        if (who[i] >= x->size) {
            receive_one(x, who[i] - x->size);
        } else if (who[i] >= 0) {
            if (x->out[who[i]].state == OUT_CONNECTING) connect_done(x, who[i], now);
            else try_send(x, who[i]);
        }
    }
    if (n > 0 && who[0] == -1 && fds[0].revents) accept_all(x);
    return 1;
}

/* After the loop: name every peer not served or not heard from, and close what is open. */
static int finish(exchange *x)
{
    char detail[96];
    int i, j, ok = 1;
    for (i = 0; i < x->size; i++) {
        outgoing *o = &x->out[i];
        if (o->state == OUT_DONE) continue;
        ok = 0;
        if (o->state == OUT_FAILED) continue;
        snprintf(detail, sizeof detail, "not done in %d ms%s%s", x->deadline_ms, o->last_error ? "; last try: " : "",
                 o->last_error ? strerror(o->last_error) : "");
        out_failed(x, i, o->state == OUT_SENDING ? "send" : "connect", ETIMEDOUT, detail);
    }
    for (i = 0; i < x->size; i++) {
        int connected = 0;
        if (i == x->rank || x->received[i]) continue;
        for (j = 0; j < x->n_in; j++) connected |= x->in[j].pid == x->cards[i].pid;
        snprintf(detail, sizeof detail, "nothing received in %d ms", x->deadline_ms);
        warn_peer(connected ? "receive" : "accept", i, ETIMEDOUT, detail);
        ok = 0;
    }
    for (j = 0; j < x->n_in; j++) close(x->in[j].sock);
    x->n_in = 0;
    if (x->refused)
        MCOLL_WARN("descriptor exchange: closed %d connection(s) not from its ranks (last: pid %d, uid %d)", x->refused,
                   (int)x->refused_pid, (int)x->refused_uid);
    return ok;
}

static int run(exchange *x)
{
    long deadline = now_ms() + x->deadline_ms;
    int n = 1 + x->max_in + x->size, i;
    struct pollfd *fds = calloc((size_t)n, sizeof *fds);
    int *who = calloc((size_t)n, sizeof *who);

    if (!fds || !who) {
        MCOLL_WARN("descriptor exchange: out of memory");
        free(fds);
        free(who);
        return 0;
    }
    for (i = 0; i < x->size; i++) {
        x->out[i].sock = -1;
        x->out[i].backoff = RETRY_FIRST_MS;
        x->out[i].state = i == x->rank || hooks.skip_sends ? OUT_DONE : OUT_WAIT;
    }
    while (step(x, fds, who, deadline)) {}
    free(fds);
    free(who);
    return finish(x);
}

/* ---------------------------------------------------------------------------------------------
 * The collective
 * ------------------------------------------------------------------------------------------- */

/* 1 when every rank's `ok` is 1. Otherwise a rank whose own steps went well says which rank's
 * did not (the lowest), so every rank has a warning to show. */
static int agreed(MPI_Comm comm, int rank, int ok)
{
    int first = mcoll_agree_first_failure(comm, rank, ok);
    if (first < 0) return 1;
    if (first == INT_MAX) MCOLL_WARN("descriptor exchange: MPI_Allreduce failed");
    else if (ok) MCOLL_WARN("descriptor exchange: failed on local rank %d (its warning says why)", first);
    return 0;
}

static int open_listener(exchange *x)
{
    struct sockaddr_un addr;
    socklen_t len = socket_address(&addr, x->dir, x->rank);
    x->listener = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (x->listener >= 0 && bind(x->listener, (struct sockaddr *)&addr, len) == 0 &&
        listen(x->listener, SOMAXCONN) == 0)
        return 1;
    warn_peer("listen", x->rank, errno, addr.sun_path);
    return 0;
}

static void close_listener(exchange *x)
{
    struct sockaddr_un addr;
    if (x->listener < 0) return;
    close(x->listener);
    x->listener = -1;
    socket_address(&addr, x->dir, x->rank);
    unlink(addr.sun_path);
}

mcoll_result mcoll_fd_allgather(MPI_Comm comm, int my_fd, int *peer_fds)
{
    char dir[DIR_MAX] = "";
    rank_card mine, *cards;
    exchange x;
    int ok = 1, made_dir = 0, i;

    memset(&x, 0, sizeof x);
    PMPI_Comm_rank(comm, &x.rank);
    PMPI_Comm_size(comm, &x.size);
    x.my_fd = my_fd;
    x.dir = dir;
    x.peer_fds = peer_fds;
    x.listener = -1;
    x.deadline_ms = hooks.deadline_ms > 0 ? hooks.deadline_ms : EXCHANGE_DEADLINE_MS;
    x.max_in = x.size + EXTRA_PENDING;
    for (i = 0; i < x.size; i++) peer_fds[i] = -1;

    x.cards = cards = calloc((size_t)x.size, sizeof *cards);
    x.received = calloc((size_t)x.size, sizeof *x.received);
    x.out = calloc((size_t)x.size, sizeof *x.out);
    x.in = calloc((size_t)x.max_in, sizeof *x.in);
    if (!cards || !x.received || !x.out || !x.in) {
        MCOLL_WARN("descriptor exchange: out of memory");
        ok = 0;
    }
    if (x.rank == 0) ok = made_dir = ok && make_private_dir(dir);
    if (PMPI_Bcast(dir, (int)sizeof dir, MPI_CHAR, 0, comm) != MPI_SUCCESS) {
        MCOLL_WARN("descriptor exchange: MPI_Bcast failed");
        ok = 0;
    }
    /* Rank 0 alone knows whether the directory was made; the agreement tells the others. */
    if (!(ok = agreed(comm, x.rank, ok))) goto done;

    mine.pid = getpid();
    mine.has_fd = my_fd >= 0;
    if (x.rank != 0) ok = private_dir(dir);
    if (PMPI_Allgather(&mine, sizeof mine, MPI_BYTE, cards, sizeof mine, MPI_BYTE, comm) != MPI_SUCCESS) {
        MCOLL_WARN("descriptor exchange: MPI_Allgather failed");
        ok = 0;
    }
    ok = ok && open_listener(&x);
    /* Everyone listens before anyone connects. */
    if (!(ok = agreed(comm, x.rank, ok))) goto done;

    if (hooks.listening) hooks.listening(dir);
    ok = run(&x);
    close_listener(&x);
    if (ok && my_fd >= 0) {
        peer_fds[x.rank] = fcntl(my_fd, F_DUPFD_CLOEXEC, 0);
        if (peer_fds[x.rank] < 0) {
            warn_peer("dup", x.rank, errno, "this rank's own descriptor");
            ok = 0;
        }
    }
    ok = agreed(comm, x.rank, ok);

done:
    close_listener(&x);
    /* Every rank has passed the last collective above: nobody uses the directory any more. */
    if (made_dir) remove_dir(dir, x.size);
    if (!ok)
        for (i = 0; i < x.size; i++)
            if (peer_fds[i] >= 0) { close(peer_fds[i]); peer_fds[i] = -1; }
    free(cards);
    free(x.received);
    free(x.out);
    free(x.in);
    return ok ? MCOLL_SUCCESS : MCOLL_ERR_SYSTEM;
}
