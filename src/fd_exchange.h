/* Passing file descriptors between the ranks of a node: Unix-domain sockets with SCM_RIGHTS.
 * Sockets live in the abstract namespace under a name with a 64-bit random part drawn by rank
 * 0, so nothing appears in the file system; each accepted peer is checked with SO_PEERCRED
 * (same uid, and a pid belonging to the job's ranks). All sockets are closed on return. */
#ifndef MCOLL_FD_EXCHANGE_H
#define MCOLL_FD_EXCHANGE_H

#include <mpi.h>
#include "mcoll.h"

/* Collective over `comm` (ranks of one node). Every rank offers `my_fd` (or -1 for none);
 * on return peer_fds[i] is a new descriptor for rank i's fd (-1 where rank i offered none, and
 * peer_fds[rank] = dup(my_fd)). The caller closes what it receives. Returns the same status on
 * every rank; on failure no descriptor is left open. */
mcoll_result mcoll_fd_allgather(MPI_Comm comm, int my_fd, int *peer_fds);

#endif /* MCOLL_FD_EXCHANGE_H */
