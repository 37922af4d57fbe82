/* The watchdog: what ends a collective whose peer is gone.
 *
 * GPU waits have no deadline (a peer may legally join minutes late). Each team instead has an
 * abort flag in mapped pinned memory that every wait polls. One thread per process, running
 * only while teams exist, checks twice a second that the processes of every team's peers on
 * this node are alive (kill(pid, 0); a team spanning nodes leaves its other nodes' peers to the
 * MPI and the launcher, and to MCOLL_TIMEOUT) and, when MCOLL_TIMEOUT is set, that no call made
 * through MPI has waited longer. Either finding raises the team's flag and is said once in a
 * WARN line naming the rank, its pid and the likely cause. The kernels then end, and the call
 * that sees the flag fails: MPI calls through the communicator's error handler (which aborts the
 * job by default), native calls with MCOLL_ERR_ABORTED. A process that does not take the
 * failure from a call within a few seconds (one blocked in a host agreement with the dead
 * peer, say) is ended by the watchdog with MPI_Abort, so no rank spins forever. */
#ifndef MCOLL_WATCHDOG_H
#define MCOLL_WATCHDOG_H

#include <sys/types.h>
#include <cuda.h>
#include <mpi.h>
#include "launch.h"
#include "mcoll.h"

typedef struct mcoll_watch {
    volatile uint32_t *flag;     /* host view of the abort flag (cuMemHostAlloc, DEVICEMAP) */
    CUdeviceptr flag_device;     /* the kernels' view */
    pid_t pids[MCOLL_MAX_RANKS]; /* every rank's process, by team rank; 0: on another node */
    int world[MCOLL_MAX_RANKS];  /* every rank's rank in MPI_COMM_WORLD; MPI_UNDEFINED: none */
    int rank, size;
    int timeout_s;               /* MCOLL_TIMEOUT as agreed; 0: no limit */
    /* Written by the calling thread and read by the watchdog under its lock. */
    double call_started;         /* monotonic seconds when a waited-for call began; 0: none */
    double raised_at;            /* when the flag was raised; 0: not raised */
    int taken;                   /* a call returned the failure to the application */
    struct mcoll_watch *next;
} mcoll_watch;

/* Allocate the flag (current context) and start watching; the thread starts with the first
 * team. pids and size must be filled. Returns MCOLL_SUCCESS or a CUDA error. */
mcoll_result mcoll_watch_start(mcoll_watch *w);
/* Stop watching and free the flag; the thread ends with the last team. Idempotent. */
void mcoll_watch_stop(mcoll_watch *w);

/* Around a host wait for the team's work (calls made through MPI). */
void mcoll_watch_call_begin(mcoll_watch *w);
void mcoll_watch_call_end(mcoll_watch *w);

/* 1 when the flag is up; the caller returns the failure to the application (marks it taken). */
int mcoll_watch_aborted(mcoll_watch *w);

/* 1 when `comm` (either group of an intercommunicator) holds a process the watchdog has seen
 * exit, *world_rank its rank in MPI_COMM_WORLD. Every collective on such a communicator would
 * wait for it for ever (in the MPI, or in a new team's creation), so the plug-in fails its calls
 * on device buffers instead. Cheap while no process has died. */
int mcoll_watch_lost_member(MPI_Comm comm, int *world_rank);

#endif /* MCOLL_WATCHDOG_H */
