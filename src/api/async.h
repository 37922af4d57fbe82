/* The launcher thread: launches queued on behalf of nonblocking and persistent calls.
 *
 * A nonblocking call has decided what to run by the time it would launch; the launch itself
 * (several microseconds of driver work on the host) need not happen before the call returns.
 * So such calls hand a prepared job to one thread per process, which runs the jobs in the order
 * they were queued. After its last job it polls the queue for MCOLL_ASYNC_SPIN_US (so calls in a
 * steady loop find it awake), then sleeps on a condition variable. Queuing a job signals the
 * thread only when it is asleep, so while it is busy or awake a call costs a lock and no system
 * call. A caller about to block on queued jobs runs them itself (mcoll_async_help).
 *
 * Order. Every other launch (blocking calls, native calls, the resident kernel) passes
 * mcoll_comm_enter_context (run.c), which first waits until every job queued before it, on any
 * communicator, has run (mcoll_async_wait_earlier). Kernels then reach the GPU in the order the
 * calls were made, as when every call launches in its caller: within one communicator, as its
 * stream requires, and across communicators too. Waiting only for the communicator's own jobs
 * let a blocking call's kernel overtake another communicator's queued kernel on some ranks and
 * not on others; kernels that wait for their peers hold their multiprocessors, and past the
 * bound of docs/choices.md ("Kernels of several communicators") calls of two communicators in
 * different orders wait for each other for ever (the likely cause of hangs seen at 4 ranks on one
 * GPU under MPS, docs/pmpi.md).
 * Each native communicator also has a lane: the count of its jobs queued or running, which its
 * teardown and the persistent windows wait for (mcoll_async_wait_lane). The launcher thread
 * itself does not wait: its own jobs are that order.
 *
 * Fork: the child has no launcher thread, and the parent's queue must not run twice; in the
 * child every job still queued (or running in the parent's thread) is abandoned (its `abandon`
 * callback tells its owner) and the lanes are emptied. */
#ifndef MCOLL_ASYNC_H
#define MCOLL_ASYNC_H

#include <stdatomic.h>

/* One communicator's jobs queued or running (zero-initialised: empty). */
typedef struct {
    atomic_int queued;
} mcoll_async_lane;

typedef struct mcoll_async_job mcoll_async_job;
struct mcoll_async_job {
    mcoll_async_lane *lane;
    void (*run)(mcoll_async_job *job);     /* in the launcher thread */
    void (*abandon)(mcoll_async_job *job); /* in a forked child, for a job it will never run */
    mcoll_async_job *next;                 /* the queue's */
};

/* Queue `job` (lane, run and abandon set) behind every job queued before it. 0, or -1 when no
 * launcher thread can be started (nothing queued: the caller runs the job itself). */
int mcoll_async_submit(mcoll_async_job *job);

/* Run queued jobs in the calling thread, in order (after the job the thread is running, if
 * any), until none of `lane` (NULL: none at all) is left in the queue: for a caller about to
 * block on them anyway, waiting for the sleeping thread to wake (several microseconds) only
 * delays it. Does nothing in the launcher thread. */
void mcoll_async_help(mcoll_async_lane *lane);

/* Wait until every job queued before the call (any communicator's) has run, running queued jobs
 * here; at once in the launcher thread. */
void mcoll_async_wait_earlier(void);

/* Wait until `lane` has nothing queued or running, running queued jobs here
 * (mcoll_async_help); at once in the launcher thread. */
void mcoll_async_wait_lane(mcoll_async_lane *lane);

/* Run every job queued, then end and join the launcher thread (a later submit starts a new
 * one). For MPI_Finalize, once no more jobs can come. */
void mcoll_async_shutdown(void);

/* 1 in the launcher thread, and in a caller while it runs a queued job (mcoll_async_help). */
int mcoll_async_in_launcher(void);

/* Whether a launcher thread is running now, and how often the thread fell asleep and was
 * woken since the process started (tests: that an idle thread sleeps, that a busy one is not
 * signalled). */
int mcoll_async_running(void);
void mcoll_async_counts(unsigned long *sleeps, unsigned long *signals);

#endif /* MCOLL_ASYNC_H */
