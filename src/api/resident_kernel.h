/* The resident kernel's life (resident.c) as the ring's calls (ring.c) use it. */
#ifndef MCOLL_RESIDENT_KERNEL_H
#define MCOLL_RESIDENT_KERNEL_H

#include "comm_internal.h"

/* Events worth one INFO line per communicator. */
enum {
    MCOLL_SAID_STARTED = 1, MCOLL_SAID_LEGACY_BUSY = 2, MCOLL_SAID_TEAM_BUSY = 4, MCOLL_SAID_NONBLOCKING = 8,
    MCOLL_SAID_RING_FULL = 16
};
void mcoll_resident_say(mcoll_resident *r, unsigned what, const char *text);

/* One thread at a time (resident.h). */
void mcoll_resident_lock(mcoll_resident *r);
int mcoll_resident_trylock(mcoll_resident *r);
void mcoll_resident_unlock(mcoll_resident *r);

/* The ring was made by the parent of this forked process: never touch it. */
int mcoll_resident_forked(const mcoll_resident *r);

/* The checks before a call goes to the ring (setting, the legacy default stream, the team's
 * stream when the kernel must be started), the ring made and the kernel started where needed:
 * 1 with the lock held, or 0 (the caller launches the call as before). */
int mcoll_resident_take(mcoll_comm *comm);
/* With the lock held, in the team's context: launch the kernel (again); 0 when that failed. */
int mcoll_resident_start(mcoll_comm *comm);
/* Calls before the last EXIT are not all done: a kernel must still run them and end there. */
int mcoll_resident_exit_owed(const mcoll_resident *r);

/* `visit` on every communicator of the process that has a ring (the list locked meanwhile; a
 * visitor may only trylock a ring, never wait for one). */
void mcoll_resident_each(void (*visit)(mcoll_comm *comm, void *arg), void *arg);

#endif /* MCOLL_RESIDENT_KERNEL_H */
