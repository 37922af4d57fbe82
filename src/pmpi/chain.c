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

/* The MPI's PMPI_<Name>, as mcoll's own calls reach it. In the shared library the linker has
 * turned this file's references to PMPI_<Name> into __wrap_PMPI_<Name> (src/build.mk), so the
 * name means this very file and the MPI's is looked up after mcoll. In the static archive the
 * name is whatever the program links: the MPI's, or a hook of its own in front of it (as the
 * contract tests have). */
#define CHAIN_LOAD_BELOW(name, params, args)                                                 \
    {                                                                                        \
        int (*volatile named) params = PMPI_##name; /* read as linked, never folded away */  \
        void *found = after_mcoll("PMPI_", #name);                                           \
        if (named == __wrap_PMPI_##name && found) memcpy(&below.name, &found, sizeof found); \
        else below.name = named;                                                             \
    }
/* A tool behind mcoll is an MPI_<Name> after mcoll that is not the MPI's own (in Open MPI and
 * MPICH a weak alias of PMPI_<Name>, at the same address); without one, the user's call goes where
 * mcoll's own calls go. */
#define CHAIN_LOAD_NEXT(name, params, args)                                                  \
    {                                                                                        \
        void *found = after_mcoll("MPI_", #name);                                            \
        if (found && found != after_mcoll("PMPI_", #name)) memcpy(&next.name, &found, sizeof found); \
        else next.name = below.name;                                                         \
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
