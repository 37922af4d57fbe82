/* The native memory calls (include/mcoll.h, "Memory"): argument checks, the team's context,
 * then src/mem/. */
#include "checks.h"
#include "comm_internal.h"
#include "import.h"

/* Collective calls check what every rank sees alike before anything else, and give up
 * together on a communicator whose peer is gone. */
static mcoll_result enter_collective(mcoll_comm *comm)
{
    if (!comm) return MCOLL_ERR_INVALID_ARG;
    return mcoll_comm_enter(comm);
}

mcoll_result mcoll_mem_alloc(mcoll_comm *comm, size_t bytes, void **ptr)
{
    if (!ptr) return MCOLL_ERR_INVALID_ARG;
    *ptr = NULL;
    MC_RETURN(enter_collective(comm));
    return mcoll_window_alloc(comm->team, &comm->windows, bytes, ptr);
}

mcoll_result mcoll_mem_free(mcoll_comm *comm, void *ptr)
{
    MC_RETURN(enter_collective(comm));
    return mcoll_window_free(comm->team, &comm->windows, ptr);
}

mcoll_result mcoll_mem_register(mcoll_comm *comm, void *ptr, size_t bytes, mcoll_mem_handle *handle)
{
    if (!handle) return MCOLL_ERR_INVALID_ARG;
    *handle = 0;
    MC_RETURN(enter_collective(comm));
    /* A bad pointer or size on one rank is refused there and agreed with the others. */
    return mcoll_window_register(comm->team, &comm->windows, ptr, ptr ? bytes : 0, handle);
}

mcoll_result mcoll_mem_deregister(mcoll_comm *comm, mcoll_mem_handle handle)
{
    MC_RETURN(enter_collective(comm));
    return mcoll_window_deregister(comm->team, &comm->windows, handle);
}

mcoll_result mcoll_mem_import_external(int fd, size_t size, size_t offset, size_t bytes, void **ptr)
{
    return mcoll_external_import(fd, size, offset, bytes, ptr);
}

mcoll_result mcoll_mem_release_external(void *ptr)
{
    return mcoll_external_release(ptr);
}
