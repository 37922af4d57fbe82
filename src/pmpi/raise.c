/* Raising the errors of the user's calls (see raise.h). */
#define _POSIX_C_SOURCE 200809L /* gethostname */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "raise.h"
#include "validate.h"

const char *mcoll_mpi_name(const char *lower, char *buf, size_t size)
{
    size_t n = strlen(lower);
    int extension = 0;
#if MCOLL_PCOLL == 2
    extension = n > 5 && !strcmp(lower + n - 5, "_init"); /* Open MPI 4: MPIX_Allreduce_init */
#endif
    snprintf(buf, size, "%s%c%s", extension ? "MPIX_" : "MPI_", toupper((unsigned char)lower[0]), n ? lower + 1 : "");
    return buf;
}

const char *mcoll_call_name(const mcoll_call *c, char *buf, size_t size)
{
    char lower[64];
    snprintf(lower, sizeof lower, "%s%s%s", c->form == MCOLL_CALL_NONBLOCKING ? "i" : "", c->coll->name,
             c->form == MCOLL_CALL_PERSISTENT ? "_init" : "");
    return mcoll_mpi_name(lower, buf, size);
}

/* What the handler of `comm` does on an error: 0 returns or calls the user's function, else
 * the text the MPI prints for it as it aborts. */
static const char *fatal_handler(MPI_Comm comm)
{
    MPI_Errhandler handler = MPI_ERRHANDLER_NULL;
    const char *fatal = NULL;
    if (PMPI_Comm_get_errhandler(comm, &handler) != MPI_SUCCESS) return NULL;
    if (handler == MPI_ERRORS_ARE_FATAL)
        fatal = "MPI_ERRORS_ARE_FATAL (processes in this communicator will now abort,\n"
                "%s    and potentially your MPI job)";
#ifdef MPI_ERRORS_ABORT
    if (handler == MPI_ERRORS_ABORT) fatal = "MPI_ERRORS_ABORT (processes in this communicator will now abort)%s";
#endif
    PMPI_Errhandler_free(&handler); /* MPI_Comm_get_errhandler gave a reference */
    return fatal;
}

/* The MPI's report of a fatal error (Open MPI's layout), with the user's call in it; one write,
 * so that the lines of several ranks do not interleave. */
static void report_fatal(const char *fn, MPI_Comm comm, int errclass, const char *handler)
{
    char host[64] = "?", prefix[96], comm_name[MPI_MAX_OBJECT_NAME] = "", text[MPI_MAX_ERROR_STRING] = "";
    char handler_text[256], report[1024];
    int len = 0, rank = -1;

    gethostname(host, sizeof host - 1);
    snprintf(prefix, sizeof prefix, "[%s:%d] ***", host, (int)getpid());
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (PMPI_Comm_get_name(comm, comm_name, &len) != MPI_SUCCESS || !comm_name[0])
        snprintf(comm_name, sizeof comm_name, "(unnamed)");
    if (PMPI_Error_string(errclass, text, &len) != MPI_SUCCESS) snprintf(text, sizeof text, "error class %d", errclass);
    snprintf(handler_text, sizeof handler_text, handler, prefix);
    snprintf(report, sizeof report,
             "%s An error occurred in %s\n%s reported by process [rank %d of MPI_COMM_WORLD]\n"
             "%s on communicator %s\n%s %s\n%s %s\n",
             prefix, fn, prefix, rank, prefix, comm_name, prefix, text, prefix, handler_text);
    fputs(report, stderr);
    fflush(stderr);
}

int mcoll_raise_in(const char *fn, MPI_Comm comm, int errclass)
{
    const char *fatal;
    if (mcoll_comm_is_null(comm)) comm = MPI_COMM_WORLD;
    fatal = fn ? fatal_handler(comm) : NULL;
    if (fatal) {
        report_fatal(fn, comm, errclass, fatal);
        /* What the fatal handlers do (Open MPI: ompi_mpi_abort on the communicator). */
        PMPI_Abort(comm, errclass);
    }
    PMPI_Comm_call_errhandler(comm, errclass);
    return errclass;
}

int mcoll_raise(MPI_Comm comm, int errclass) { return mcoll_raise_in(NULL, comm, errclass); }
