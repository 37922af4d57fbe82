/* Sharing allocation and multicast handles between the ranks of a team: fabric handles are
 * plain bytes sent through MPI; POSIX descriptors travel over Unix sockets (fd_exchange.c). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "agree.h"
#include "checks.h"
#include "fd_exchange.h"
#include "team.h"
#include "vmm.h"

typedef struct {
    int valid;
    CUmemFabricHandle bytes;
} fabric_record;

/* Remember the first step of this rank that failed, for the caller's report. */
static void failed(mcoll_team *team, mcoll_share_failure step, CUresult rc)
{
    if (team->share_failure != MCOLL_SHARE_OK) return;
    team->share_failure = step;
    team->share_error = rc;
}

static int import_one(mcoll_team *team, void *shareable, CUmemGenericAllocationHandle *out)
{
    CUmemAllocationHandleType type = mcoll_handle_type(team->handle_kind);
    CUresult rc = mcoll_cu.cuMemImportFromShareableHandle(out, shareable, type);
    if (rc != CUDA_SUCCESS) {
        MCOLL_WARN("cuMemImportFromShareableHandle failed: %s", mcoll_cu_errname(rc));
        failed(team, MCOLL_SHARE_IMPORT, rc);
        return 0;
    }
    return 1;
}

static int share_fabric(mcoll_team *team, int have_mine, CUmemGenericAllocationHandle mine, int import_self,
                        CUmemGenericAllocationHandle *imported, int *have_imported)
{
    fabric_record local, *all;
    int ok = 1, i;

    memset(&local, 0, sizeof local);
    if (have_mine) {
        CUresult rc = mcoll_cu.cuMemExportToShareableHandle(&local.bytes, mine, CU_MEM_HANDLE_TYPE_FABRIC, 0);
        if (rc != CUDA_SUCCESS) {
            MCOLL_WARN("fabric handle export failed: %s", mcoll_cu_errname(rc));
            failed(team, MCOLL_SHARE_EXPORT, rc);
            ok = 0;
        }
        local.valid = ok;
    }
    all = calloc((size_t)team->size, sizeof *all);
    if (!all) {
        failed(team, MCOLL_SHARE_EXCHANGE, CUDA_ERROR_OUT_OF_MEMORY);
        ok = 0;
    }
    if (!mcoll_team_agree(team->comm, ok)) { free(all); return 0; }
    if (PMPI_Allgather(&local, sizeof local, MPI_BYTE, all, sizeof local, MPI_BYTE, team->comm) != MPI_SUCCESS) {
        failed(team, MCOLL_SHARE_EXCHANGE, CUDA_ERROR_OPERATING_SYSTEM);
        ok = 0;
    }
    for (i = 0; ok && i < team->size; i++) {
        if (!all[i].valid || (i == team->rank && !import_self)) continue;
        ok = import_one(team, &all[i].bytes, &imported[i]);
        have_imported[i] = ok;
    }
    free(all);
    return ok;
}

static int share_fd(mcoll_team *team, int have_mine, CUmemGenericAllocationHandle mine, int import_self,
                    CUmemGenericAllocationHandle *imported, int *have_imported)
{
    int my_fd = -1, fds[MCOLL_MAX_RANKS], ok = 1, i;

    if (have_mine) {
        CUresult rc = mcoll_cu.cuMemExportToShareableHandle(&my_fd, mine, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0);
        if (rc != CUDA_SUCCESS) {
            MCOLL_WARN("POSIX descriptor export failed: %s", mcoll_cu_errname(rc));
            failed(team, MCOLL_SHARE_EXPORT, rc);
            ok = 0;
            my_fd = -1;
        }
    }
    if (!mcoll_team_agree(team->comm, ok)) {
        if (my_fd >= 0) close(my_fd);
        return 0;
    }
    ok = mcoll_fd_allgather(team->comm, my_fd, fds) == MCOLL_SUCCESS;
    if (my_fd >= 0) close(my_fd);
    if (!ok) {
        failed(team, MCOLL_SHARE_EXCHANGE, CUDA_ERROR_OPERATING_SYSTEM);
        return 0;
    }
    for (i = 0; i < team->size; i++) {
        if (fds[i] < 0) continue;
        if (ok && (i != team->rank || import_self)) {
            ok = import_one(team, (void *)(uintptr_t)fds[i], &imported[i]);
            have_imported[i] = ok;
        }
        close(fds[i]);
    }
    return ok;
}

mcoll_result mcoll_handle_allgather(mcoll_team *team, int have_mine, CUmemGenericAllocationHandle mine,
                                    int import_self, CUmemGenericAllocationHandle *imported, int *have_imported)
{
    int ok, i;
    for (i = 0; i < team->size; i++) have_imported[i] = 0;
    team->share_failure = MCOLL_SHARE_OK;
    team->share_error = CUDA_SUCCESS;
    ok = team->handle_kind == MCOLL_HANDLE_FABRIC
             ? share_fabric(team, have_mine, mine, import_self, imported, have_imported)
             : share_fd(team, have_mine, mine, import_self, imported, have_imported);
    if (mcoll_team_agree(team->comm, ok)) return MCOLL_SUCCESS;
    for (i = 0; i < team->size; i++)
        if (have_imported[i]) { CU_WARN(cuMemRelease(imported[i])); have_imported[i] = 0; }
    return MCOLL_ERR_CUDA;
}
