/* The next definitions in the PMPI chain (see chain.h), looked up once. */
#define _GNU_SOURCE /* RTLD_NEXT */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include "chain.h"

#define CHAIN_POINTER(name, params, args) int (*name) params;
static struct { MCOLL_CHAIN_ANSWERED(CHAIN_POINTER) } below; /* the MPI's PMPI_<Name> */
static struct { MCOLL_CHAIN_PASSED(CHAIN_POINTER) } next;    /* the next MPI_<Name> */
static pthread_once_t loaded = PTHREAD_ONCE_INIT;
static _Thread_local int passing;

/* The first definition of prefix+name in the objects loaded after mcoll; NULL if none. */
static void *after_mcoll(const char *prefix, const char *name)
{
    char symbol[64];
    snprintf(symbol, sizeof symbol, "%s%s", prefix, name);
    return dlsym(RTLD_NEXT, symbol);
}

/* A program linked statically to both mcoll and the MPI has no dynamic symbols to look up: its
 * PMPI_<Name> is the MPI's (only the shared library answers PMPI_* itself). */
#define CHAIN_LOAD_BELOW(name, params, args)                   \
    {                                                          \
        void *found = after_mcoll("PMPI_", #name);             \
        if (found) memcpy(&below.name, &found, sizeof found);  \
        else below.name = PMPI_##name;                         \
    }
/* No MPI_<Name> after mcoll (an MPI without the weak MPI_ names): the MPI's PMPI_<Name>. */
#define CHAIN_LOAD_NEXT(name, params, args)                    \
    {                                                          \
        void *found = after_mcoll("MPI_", #name);              \
        if (found) memcpy(&next.name, &found, sizeof found);   \
        else next.name = below.name;                           \
    }

static void load(void)
{
    MCOLL_CHAIN_ANSWERED(CHAIN_LOAD_BELOW)
    MCOLL_CHAIN_PASSED(CHAIN_LOAD_NEXT)
}

#define CHAIN_DEFINE_NEXT(name, params, args) \
    int mcoll_next_##name params              \
    {                                         \
        int rc;                               \
        pthread_once(&loaded, load);          \
        passing++;                            \
        rc = next.name args;                  \
        passing--;                            \
        return rc;                            \
    }
MCOLL_CHAIN_PASSED(CHAIN_DEFINE_NEXT)

#define CHAIN_DEFINE_BELOW(name, params, args) \
    int __wrap_PMPI_##name params              \
    {                                          \
        pthread_once(&loaded, load);           \
        return below.name args;                \
    }
MCOLL_CHAIN_ANSWERED(CHAIN_DEFINE_BELOW)

int mcoll_chain_passing(void) { return passing > 0; }
