/* SCM_RIGHTS exchange of file descriptors between the ranks of one node. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include "fd_exchange.h"
#include "log.h"

#define ACCEPT_TIMEOUT_MS 30000

/* Abstract-namespace address: a leading NUL, then the job's random tag and the rank. */
static socklen_t socket_address(struct sockaddr_un *addr, uint64_t tag, int rank)
{
    int len;
    memset(addr, 0, sizeof *addr);
    addr->sun_family = AF_UNIX;
    len = snprintf(addr->sun_path + 1, sizeof addr->sun_path - 1, "mcoll-%016llx-%d", (unsigned long long)tag, rank);
    return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + len);
}

static int agree(MPI_Comm comm, int ok)
{
    int all = 0;
    if (PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS) return 0;
    return all;
}

/* Send our rank and, if we have one, our descriptor to rank `peer`. */
static int send_fd(uint64_t tag, int peer, int rank, int fd)
{
    struct sockaddr_un addr;
    socklen_t len = socket_address(&addr, tag, peer);
    char control[CMSG_SPACE(sizeof(int))];
    struct iovec iov = {&rank, sizeof rank};
    struct msghdr msg;
    int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int ok = 0;

    if (s < 0) return 0;
    if (connect(s, (struct sockaddr *)&addr, len) == 0) {
        memset(&msg, 0, sizeof msg);
        msg.msg_iov = &iov;
        msg.msg_iovlen = 1;
        if (fd >= 0) {
            struct cmsghdr *cmsg;
            memset(control, 0, sizeof control);
            msg.msg_control = control;
            msg.msg_controllen = sizeof control;
            cmsg = CMSG_FIRSTHDR(&msg);
            cmsg->cmsg_level = SOL_SOCKET;
            cmsg->cmsg_type = SCM_RIGHTS;
            cmsg->cmsg_len = CMSG_LEN(sizeof(int));
            memcpy(CMSG_DATA(cmsg), &fd, sizeof fd);
        }
        ok = sendmsg(s, &msg, MSG_NOSIGNAL) == (ssize_t)sizeof rank;
    }
    if (!ok) MCOLL_WARN("sending a descriptor to local rank %d failed: %s", peer, strerror(errno));
    close(s);
    return ok;
}

/* Accept one connection from a process of this job and take its rank and descriptor. */
static int receive_fd(int listener, const pid_t *pids, int size, int *peer_fds)
{
    struct pollfd pfd = {listener, POLLIN, 0};
    struct ucred cred;
    socklen_t cred_len = sizeof cred;
    char control[CMSG_SPACE(sizeof(int))];
    int src = -1, fd = -1, i, known = 0, s;
    struct iovec iov = {&src, sizeof src};
    struct msghdr msg;
    struct cmsghdr *cmsg;

    if (poll(&pfd, 1, ACCEPT_TIMEOUT_MS) != 1) {
        MCOLL_WARN("no peer connected within %d s to pass its memory handle", ACCEPT_TIMEOUT_MS / 1000);
        return 0;
    }
    s = accept4(listener, NULL, NULL, SOCK_CLOEXEC);
    if (s < 0) return 0;
    if (getsockopt(s, SOL_SOCKET, SO_PEERCRED, &cred, &cred_len) != 0 || cred.uid != getuid()) {
        MCOLL_WARN("refused a handle-exchange connection from another user");
        close(s);
        return 0;
    }
    for (i = 0; i < size; i++) known |= pids[i] == cred.pid;
    if (!known) {
        MCOLL_WARN("refused a handle-exchange connection from pid %d, not a rank of this job", (int)cred.pid);
        close(s);
        return 0;
    }
    memset(&msg, 0, sizeof msg);
    memset(control, 0, sizeof control);
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    if (recvmsg(s, &msg, MSG_CMSG_CLOEXEC) != (ssize_t)sizeof src || src < 0 || src >= size ||
        pids[src] != cred.pid || peer_fds[src] != -1) {
        close(s);
        return 0;
    }
    cmsg = CMSG_FIRSTHDR(&msg);
    if (cmsg && cmsg->cmsg_level == SOL_SOCKET && cmsg->cmsg_type == SCM_RIGHTS) memcpy(&fd, CMSG_DATA(cmsg), sizeof fd);
    peer_fds[src] = fd;
    close(s);
    return 1;
}

mcoll_result mcoll_fd_allgather(MPI_Comm comm, int my_fd, int *peer_fds)
{
    struct sockaddr_un addr;
    uint64_t tag = 0;
    pid_t me = getpid(), *pids = NULL;
    int rank, size, i, listener = -1, ok = 1;
    socklen_t len;

    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);
    for (i = 0; i < size; i++) peer_fds[i] = -1;
    pids = malloc(sizeof(pid_t) * (size_t)size);
    if (!pids) ok = 0;
    if (rank == 0 && getrandom(&tag, sizeof tag, 0) != (ssize_t)sizeof tag) tag = ((uint64_t)me << 32) ^ (uint64_t)(uintptr_t)&tag;
    if (PMPI_Bcast(&tag, 1, MPI_UINT64_T, 0, comm) != MPI_SUCCESS) ok = 0;
    if (ok && PMPI_Allgather(&me, sizeof me, MPI_BYTE, pids, sizeof me, MPI_BYTE, comm) != MPI_SUCCESS) ok = 0;

    if (ok) {
        listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        len = socket_address(&addr, tag, rank);
        if (listener < 0 || bind(listener, (struct sockaddr *)&addr, len) != 0 || listen(listener, size) != 0) {
            MCOLL_WARN("cannot open the handle-exchange socket: %s", strerror(errno));
            ok = 0;
        }
    }
    /* Everyone listens before anyone connects. */
    if (!agree(comm, ok)) goto fail;

    for (i = 1; i < size && ok; i++) ok = send_fd(tag, (rank + i) % size, rank, my_fd);
    for (i = 1; i < size && ok; i++) ok = receive_fd(listener, pids, size, peer_fds);
    if (ok && my_fd >= 0) {
        peer_fds[rank] = fcntl(my_fd, F_DUPFD_CLOEXEC, 0);
        ok = peer_fds[rank] >= 0;
    }
    close(listener);
    listener = -1;
    if (agree(comm, ok)) {
        free(pids);
        return MCOLL_SUCCESS;
    }

fail:
    if (listener >= 0) close(listener);
    for (i = 0; i < size; i++)
        if (peer_fds[i] >= 0) { close(peer_fds[i]); peer_fds[i] = -1; }
    free(pids);
    return MCOLL_ERR_SYSTEM;
}
