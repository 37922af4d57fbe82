/* The completion word of a communicator: how a call through MPI learns that the kernel it
 * launched is done without synchronizing or querying the stream (each of which cost about 1.5 us
 * more than a spin on host memory on an H200; collectives/completion.cuh).
 *
 * One 64-bit word in pinned host memory mapped into the device. Launches on the team's stream
 * are armed (mcoll_word_arm, from mcoll_comm_enter_on): each gets the next value of a sequence,
 * and its kernel's last block stores that value into the word when every block is done. Only the
 * team's two streams for calls through MPI carry armed launches, and their launches run one
 * after another (call_streams.c), so they end in the order of their values and one word serves
 * every call in flight: call v is done once the word is v or more. Launches on other
 * streams (native calls, graphs) are not armed and their kernels skip the store.
 *
 * A kernel that faults, or one that ends without the store, must not leave the host waiting:
 * the waits below ask the stream every MCOLL_WORD_CHECK_NS of waiting. An error fails the call;
 * a stream that has finished without the word counts as done (the stream is the ground truth),
 * said once at INFO. The host stays as fast as it can for the first MCOLL_WORD_SPIN_NS of a
 * wait, then yields the core between polls. There is no deadline: a peer may arrive minutes
 * late; the watchdog (watchdog.h) ends a wait on a dead peer or past MCOLL_TIMEOUT as it ends a
 * stream synchronization. One thread at a time arms a communicator's launches (the order of its
 * launches, comm_internal.h); any thread may test the word. */
#ifndef MCOLL_COMPLETION_WORD_H
#define MCOLL_COMPLETION_WORD_H

#include <stdint.h>
#include <cuda.h>
#include "launch.h"
#include "mcoll.h"
#include "team.h"

#define MCOLL_WORD_CHECK_NS 100000ull /* between stream queries while the word has not come */
#define MCOLL_WORD_SPIN_NS 1000000ull /* of waiting before polls yield the core */

typedef struct mcoll_word {
    volatile uint64_t *host;     /* the word (cuMemHostAlloc, DEVICEMAP), or NULL */
    uint64_t *device;            /* the kernels' view of it */
    uint64_t issued;             /* the value of the last armed launch */
    int armed;                   /* the launches being made get `dev` */
    int unusable;                /* the word could not be made: calls synchronize the stream */
    int said;                    /* the INFO line about a word that never came: once (any thread) */
    mcoll_dev_team dev;          /* the team as an armed launch gets it */
} mcoll_word;

/* Before launches on `stream`: armed with the next value when it is one of the team's streams and the
 * setting (MCOLL_COMPLETION_WORD) is on, else not armed. The word is made on first use, in the
 * current context. Forgets what mcoll_launch_word_taken would have said (launch.h). */
void mcoll_word_arm(mcoll_word *w, const mcoll_team *team, CUstream stream);
/* What the launches after mcoll_word_arm get: the armed team, or the team itself. */
const mcoll_dev_team *mcoll_word_dev(const mcoll_word *w, const mcoll_team *team);

/* 1 once the launch armed with `value` is done by its word. */
static inline int mcoll_word_reached(const mcoll_word *w, uint64_t value)
{
    return __atomic_load_n(w->host, __ATOMIC_ACQUIRE) >= value;
}

/* Whether a test that did not find the word should ask the stream now: *since is the time of the
 * first such test (0 before it; set here), moved on at each check. */
int mcoll_word_check_due(uint64_t *since);

typedef enum { MCOLL_WORD_RUNNING = 0, MCOLL_WORD_DONE, MCOLL_WORD_FAILED } mcoll_word_state;
/* The stream's answer for a launch whose word has not come (in the stream's context): RUNNING,
 * DONE (finished: with the word, or without it, which is said once at INFO), or FAILED (an error,
 * logged with `what`). */
mcoll_word_state mcoll_word_stream(mcoll_word *w, CUstream stream, uint64_t value, const char *what);

/* Blocking wait for the launch armed with `value` on the team's stream, in the team's context:
 * MCOLL_SUCCESS, MCOLL_ERR_ABORTED (the watchdog's flag: a peer gone, MCOLL_TIMEOUT), or
 * MCOLL_ERR_CUDA (the stream failed). */
mcoll_result mcoll_word_wait(mcoll_word *w, mcoll_team *team, uint64_t value);

/* Frees the word (after the team's work has ended); idempotent. */
void mcoll_word_free(mcoll_word *w);

#endif /* MCOLL_COMPLETION_WORD_H */
