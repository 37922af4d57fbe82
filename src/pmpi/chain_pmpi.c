/* The PMPI_<Name> functions mcoll answers (chain_calls.h), so that a PMPI tool loaded in front
 * of mcoll, whose wrapper of MPI_<Name> calls PMPI_<Name>, still reaches mcoll (chain.h). Each
 * runs mcoll's own MPI_<Name>, except inside a call mcoll passed on, where a tool behind mcoll
 * is calling down to the MPI. Only in the shared library (src/build.mk). */
#define _GNU_SOURCE /* dladdr, RTLD_NOLOAD */
#include <dlfcn.h>
#include <pthread.h>
#include <string.h>
#include "chain.h"

#define CHAIN_POINTER(name, params, args) int (*name) params;
static struct { MCOLL_CHAIN_ANSWERED(CHAIN_POINTER) } own; /* mcoll's MPI_<Name> */
static pthread_once_t found = PTHREAD_ONCE_INIT;
static const char anchor; /* an address inside this library */

/* mcoll's own MPI_<Name> is looked up in this library itself: by plain name the process's
 * lookup order would give the tool in front, and that would call PMPI_<Name> again. */
#define CHAIN_FIND_OWN(name, params, args)                          \
    {                                                               \
        void *p = self ? dlsym(self, "MPI_" #name) : NULL;          \
        if (p) memcpy(&own.name, &p, sizeof p);                     \
        else own.name = __wrap_PMPI_##name; /* the MPI's, at worst */ \
    }

static void find_own(void)
{
    Dl_info info;
    void *self = NULL;
    if (dladdr(&anchor, &info) && info.dli_fname) self = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
    MCOLL_CHAIN_ANSWERED(CHAIN_FIND_OWN)
}

#define CHAIN_ANSWER(name, params, args)                                        \
    int PMPI_##name params                                                      \
    {                                                                           \
        pthread_once(&found, find_own);                                         \
        return mcoll_chain_passing() ? __wrap_PMPI_##name args : own.name args; \
    }
MCOLL_CHAIN_ANSWERED(CHAIN_ANSWER)
