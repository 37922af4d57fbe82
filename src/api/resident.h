/* The resident kernel of a communicator (collectives/ll_run.cu): calls made through MPI that take
 * the LL protocol are written into a ring in pinned host memory and run by a kernel that stays on
 * the GPU between calls, so a call costs no launch. The kernel runs on a stream of its own that
 * does not wait for the legacy default stream and that the legacy stream does not wait for, and
 * ends after MCOLL_RESIDENT_IDLE_US without a call, so an application's own
 * cudaDeviceSynchronize waits for it at most that long.
 *
 * Blocking calls post and wait for their call; nonblocking and persistent ones post and return,
 * and their requests complete once the kernel's done count has passed their call's number
 * (mcoll_resident_test). So the ring may hold several calls: a blocking post waits for a free
 * slot, a nonblocking one that would take the last slot is launched instead. Any other launch on
 * the team first tells the kernel to end after the calls posted (an EXIT call, in the slot kept
 * for it) and makes its stream wait on the GPU until the kernel has ended (mcoll_resident_fence,
 * from mcoll_comm_enter_on): launched LL kernels continue the LL call count the resident kernel
 * keeps in device memory and must not run beside it, and a nonblocking start must not wait for
 * the peers. The kernel is started again only once the team's stream is idle, so ring calls and
 * launched ones keep the order in which they were made.
 *
 * One thread at a time posts, starts the kernel or waits for it (`lock`); the done count is read
 * without it. A forked child never touches its parent's ring (CUDA is not usable there). */
#ifndef MCOLL_RESIDENT_H
#define MCOLL_RESIDENT_H

#include <stdatomic.h>
#include <stdint.h>
#include <cuda.h>
#include "mcoll.h"
#include "launch.h"

struct mcoll_comm;

typedef struct mcoll_resident {
    mcoll_ring *ring;            /* pinned host memory, mapped */
    mcoll_ring *ring_device;     /* the device's address of it */
    CUstream stream;             /* non-blocking */
    uint64_t posted;             /* calls written to the ring (EXIT included) */
    uint64_t generation;         /* of the kernel launched last (0: none yet) */
    uint64_t exit_at;            /* number of the last EXIT posted (0: none) */
    int running;                 /* launched, and not told to end (it may have ended idle) */
    int unusable;                /* setting up or restarting failed: calls are launched instead,
                                    and calls posted but not done will never be */
    int host_waits;              /* the GPU cannot wait on the ring (cuStreamWaitValue32 refused):
                                    launches wait for it on the host, as mcoll_resident_drain */
    unsigned forks;              /* the process's fork count when the ring was made */
    atomic_int lock;             /* 1 while a thread posts, starts the kernel or waits for it */
    unsigned said;               /* INFO lines already given (one per kind of event) */
    struct mcoll_comm *next_ring;/* the process's communicators with a ring (resident.c) */
} mcoll_resident;

/* Runs `call`, an LL form from mcoll_comm_ll_form, in the resident kernel and waits for it: 1
 * when it took the call (*rc is the result), 0 when the call must be launched as usual
 * (resident kernel off, the legacy default stream or the team's stream still busy). */
int mcoll_resident_run(struct mcoll_comm *comm, const mcoll_ll_call *call, mcoll_result *rc);
/* Posts `call` for a nonblocking or persistent call and returns: 1 when posted, *ticket the
 * number the ring's done count must reach; 0 when the ring does not take it now (as for
 * mcoll_resident_run, or MCOLL_RESIDENT_NONBLOCKING=0): the caller launches it as before. */
int mcoll_resident_post(struct mcoll_comm *comm, const mcoll_ll_call *call, uint64_t *ticket);
/* Never blocks: 1 once call `ticket` is done (*rc MCOLL_SUCCESS) or can no longer be (*rc the
 * error: a peer gone, the kernel could not be started again); 0 while it is under way. A kernel
 * that ended before reaching the call is started again here. */
int mcoll_resident_test(struct mcoll_comm *comm, uint64_t ticket, mcoll_result *rc);
/* Before any other launch on the team, on `stream`: tell the kernel to end after the calls
 * posted, and make `stream` wait on the GPU until it has (where the driver cannot, the host
 * waits, as mcoll_resident_drain). Never waits for the peers itself. MCOLL_SUCCESS, or the error
 * of a host wait (the ring is unusable then). */
mcoll_result mcoll_resident_fence(struct mcoll_comm *comm, struct CUstream_st *stream);
/* Before any other use of the team that is not a launch on a stream: wait on the host until
 * every posted call is done, then tell the kernel to end. MCOLL_SUCCESS, or the error that ended
 * the wait (the ring is unusable then). */
mcoll_result mcoll_resident_drain(struct mcoll_comm *comm);
/* Drain, end the kernel, wait for it, free what it holds. */
void mcoll_resident_free(struct mcoll_comm *comm);

#endif /* MCOLL_RESIDENT_H */
