/* The decisions a communicator has reported. MCOLL_DEBUG=INFO says each distinct decision
 * (which call, which path, and why) once per communicator: a loop of a million allreduces logs
 * one line per rank, and a line that differs from the ones before stands out. MCOLL_DEBUG=TRACE
 * logs every call, the first one of each decision at INFO and the others at TRACE. */
#ifndef MCOLL_REPORTED_H
#define MCOLL_REPORTED_H

#include <mpi.h>
#include "log.h"

/* One decision as the INFO line names it. Its parts are static tables and strings, so they are
 * compared by address (two equal texts at different addresses cost one line more, never one
 * less). */
typedef struct {
    const void *call;       /* the collective's mcoll_coll, or the name of a call without one */
    int form;               /* blocking, nonblocking or persistent (mcoll_call_form) */
    int path;               /* mcoll_path */
    const char *why;
    const char *engine_why;
} mcoll_decision_key;

/* A handful of decisions per communicator is the common case; a communicator that has seen more
 * reports each further one at INFO every time rather than hide it. */
#define MCOLL_REPORTED_MAX 16

typedef struct {
    int count;
    mcoll_decision_key keys[MCOLL_REPORTED_MAX];
} mcoll_reported;

/* The level to log the decision `key` at: MCOLL_LOG_INFO the first time `set` sees it (NULL: no
 * record, always INFO), MCOLL_LOG_TRACE afterwards. Thread-safe. */
int mcoll_reported_level(mcoll_reported *set, const mcoll_decision_key *key);

/* The same for a call without buffers (a barrier), which always goes to MPI: keyed by its name
 * on the record of `comm`. */
int mcoll_reported_level_of(MPI_Comm comm, const char *name);

/* The line of a call without buffers, logged like the decisions of the others. */
#define MCOLL_REPORT_NO_BUFFERS(comm, name)                                                                    \
    do {                                                                                                       \
        if (mcoll_log_level >= MCOLL_LOG_INFO)                                                                 \
            mcoll_log_print(mcoll_reported_level_of(comm, name), __FILE__, __LINE__, "%s: mpi (no buffers)", name); \
    } while (0)

#endif /* MCOLL_REPORTED_H */
