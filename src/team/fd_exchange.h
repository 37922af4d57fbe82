/* Passing file descriptors between the ranks of a node: Unix-domain sockets with SCM_RIGHTS.
 * Rank 0 makes a private directory (mkdtemp: mode 0700, under $TMPDIR or /tmp) and broadcasts
 * its path; each rank listens on <dir>/<rank>, so no process of another user can connect.
 * Every connection is still checked with SO_PEERCRED on both ends (same user, the pid of a rank
 * of this exchange). All I/O is nonblocking in one poll loop per rank, bounded by one deadline;
 * rank 0 removes the directory once every rank is done. */
#ifndef MCOLL_FD_EXCHANGE_H
#define MCOLL_FD_EXCHANGE_H

#include <mpi.h>
#include "mcoll.h"

/* Collective over `comm` (ranks of one node). Every rank offers `my_fd` (or -1 for none);
 * on return peer_fds[i] is a new descriptor for rank i's fd (-1 where rank i offered none, and
 * peer_fds[rank] = dup(my_fd)). The caller closes what it receives. Returns the same status on
 * every rank; on failure no descriptor is left open, and every rank has logged a warning (the
 * rank where a step failed names the peer, the step and the error). */
mcoll_result mcoll_fd_allgather(MPI_Comm comm, int my_fd, int *peer_fds);

/* For tests only: the library never sets these, and no environment variable reaches them.
 * `deadline_ms` replaces the overall deadline (0: the default, 30 s); `skip_sends` makes this
 * rank connect to nobody, as a peer that never arrives would; `listening`, when set, is called
 * on every rank with the directory's path once every rank listens and before any connects.
 * NULL restores the defaults. */
typedef struct {
    int deadline_ms;
    int skip_sends;
    void (*listening)(const char *dir);
} mcoll_fd_exchange_test_hooks;

void mcoll_fd_exchange_set_test_hooks(const mcoll_fd_exchange_test_hooks *hooks);

#endif /* MCOLL_FD_EXCHANGE_H */
