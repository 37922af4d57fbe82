/* mcoll in a chain of PMPI tools (profilers such as Score-P, mpiP or TAU, and others like mcoll),
 * whichever order they are loaded in (docs/pmpi.md, "Other PMPI tools"):
 *
 *   behind mcoll   what mcoll passes on for the user (the start-up, the collectives on whatever
 *                  path they take, their nonblocking forms) goes to the next MPI_<Name> after
 *                  mcoll in the process's lookup order, dlsym(RTLD_NEXT): the tool's wrapper when
 *                  one is loaded behind mcoll, else the MPI's own;
 *   in front       such a tool's wrapper calls PMPI_<Name>, which mcoll answers for the same
 *                  calls and the completion calls (chain_pmpi.c), so the call still reaches mcoll.
 *
 * Every PMPI call mcoll makes for itself (agreements, team set-up, the completion calls' steps)
 * reaches the MPI directly: in the shared library the linker sends mcoll's references to the
 * answered names to __wrap_PMPI_<Name> (src/build.mk), and the static archive answers none. A
 * tool behind mcoll that calls PMPI_<Name> from inside a call mcoll passed on reaches the MPI
 * too, not mcoll a second time. */
#ifndef MCOLL_CHAIN_H
#define MCOLL_CHAIN_H

#include <mpi.h>
#include "chain_calls.h"

/* int mcoll_next_<Name>(...): the user's call passed on to the next MPI_<Name>. */
#define MCOLL_CHAIN_DECLARE_NEXT(name, params, args) int mcoll_next_##name params;
MCOLL_CHAIN_PASSED(MCOLL_CHAIN_DECLARE_NEXT)

/* int __wrap_PMPI_<Name>(...): the MPI's own PMPI_<Name> (the name is the linker's, --wrap). */
#define MCOLL_CHAIN_DECLARE_BELOW(name, params, args) int __wrap_PMPI_##name params;
MCOLL_CHAIN_ANSWERED(MCOLL_CHAIN_DECLARE_BELOW)

/* 1 while this thread is inside a call that mcoll passed on. */
int mcoll_chain_passing(void);

#endif /* MCOLL_CHAIN_H */
