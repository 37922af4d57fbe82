/* The resident kernel of a communicator (collectives/ll_run.cu): blocking calls made through
 * MPI that take the LL protocol are written into a ring in pinned host memory and run by a
 * kernel that stays on the GPU between calls, so a call costs no launch. The kernel runs on a
 * stream of its own that does not wait for the legacy default stream and that the legacy stream
 * does not wait for, and ends after MCOLL_RESIDENT_IDLE_US without a call, so an application's
 * own cudaDeviceSynchronize waits for it at most that long. Any other launch on the team ends it
 * first (mcoll_comm_enter), and it is started again only once the team's stream is idle, so its
 * calls and the launched ones keep the order in which they were made. */
#ifndef MCOLL_RESIDENT_H
#define MCOLL_RESIDENT_H

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
    int running;                 /* launched, and neither told to end nor seen ended */
    int unusable;                /* setting up failed once: calls are launched instead */
    unsigned said;               /* INFO lines already given (one per kind of event) */
} mcoll_resident;

/* Runs `call`, an LL form from mcoll_comm_ll_form, in the resident kernel and waits for it: 1
 * when it took the call (*rc is the result), 0 when the call must be launched as usual
 * (resident kernel off, the legacy default stream or the team's stream still busy). */
int mcoll_resident_run(struct mcoll_comm *comm, const mcoll_ll_call *call, mcoll_result *rc);
/* Tell a running kernel to end after its calls; returns at once. */
void mcoll_resident_quiesce(struct mcoll_comm *comm);
/* End it, wait for it, free what it holds. */
void mcoll_resident_free(struct mcoll_comm *comm);

#endif /* MCOLL_RESIDENT_H */
