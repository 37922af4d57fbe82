/* The communicator report; see info.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>
#include "info.h"
#include "report.h"

static const char *engine_name(mcoll_engine e)
{
    switch (e) {
    case MCOLL_ENGINE_AUTO: return "auto";
    case MCOLL_ENGINE_UNICAST: return "unicast";
    case MCOLL_ENGINE_NVLS: return "nvls";
    case MCOLL_ENGINE_STAGED: return "staged";
    }
    return "?";
}

/* The team's devices are distinct: one GPU per rank. */
static void check_devices(const mcoll_comm_info_t *info, MPI_Comm comm, int size)
{
    int *devices = malloc((size_t)size * sizeof *devices), r, q;
    char line[256];
    size_t used = 0;
    if (!devices) return;
    MPI_Allgather(&info->device, 1, MPI_INT, devices, 1, MPI_INT, comm);
    for (r = 0; r < size; r++) {
        for (q = 0; q < r; q++)
            if (devices[q] == devices[r]) case_fail("ranks %d and %d share GPU %d", q, r, devices[r]);
        if (used < sizeof line) used += (size_t)snprintf(line + used, sizeof line - used, " %d->%d", r, devices[r]);
    }
    say("team rank -> GPU:%s", line);
    free(devices);
}

/* mcoll_comm_describe must stay within a short buffer and terminate it. */
static void check_describe(mcoll_comm *mc)
{
    char line[512], small[16];
    mcoll_result rc = mcoll_comm_describe(mc, line, sizeof line);
    if (rc != MCOLL_SUCCESS) case_fail("mcoll_comm_describe returned %d", (int)rc);
    else if (!line[0]) case_fail("mcoll_comm_describe gave an empty line");
    else say("describe: %s", line);
    memset(small, 'Z', sizeof small);
    rc = mcoll_comm_describe(mc, small, 8);
    if (rc != MCOLL_SUCCESS) case_fail("mcoll_comm_describe(len 8) returned %d", (int)rc);
    else if (memchr(small, '\0', 8) == NULL) case_fail("mcoll_comm_describe(len 8) did not terminate the text");
    else if (small[8] != 'Z') case_fail("mcoll_comm_describe(len 8) wrote past the buffer");
}

void check_comm_info(const char *name, mcoll_comm *mc, MPI_Comm comm)
{
    mcoll_comm_info_t info;
    mcoll_result rc;
    int rank, size, device = -1;

    if (!case_begin("%s", name)) return;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    cudaGetDevice(&device);
    memset(&info, 0, sizeof info);
    rc = mcoll_comm_info(mc, &info);
    if (rc != MCOLL_SUCCESS) {
        case_fail("mcoll_comm_info returned %d", (int)rc);
        info.device = -1 - rank; /* keep the device check collective and quiet */
    } else {
        say("info: engine=%s team_size=%d rank=%d device=%d symmetric_bytes=%zu peer_mapped_bytes=%zu handles=%s",
            engine_name(info.engine), info.team_size, info.rank, info.device, info.symmetric_bytes,
            info.peer_mapped_bytes, info.handle_type);
        say("info: multicast: %s", info.nvls_reason);
        if (info.engine != MCOLL_ENGINE_UNICAST)
            case_fail("engine is %s, want unicast (NCCL_NVLS_ENABLE=0)", engine_name(info.engine));
        if (!memchr(info.nvls_reason, '\0', sizeof info.nvls_reason) || !info.nvls_reason[0])
            case_fail("nvls_reason is empty or not terminated");
        else if (!strstr(info.nvls_reason, "NCCL_NVLS_ENABLE") && !strstr(info.nvls_reason, "kill switch"))
            case_fail("nvls_reason \"%s\" does not name the NCCL_NVLS_ENABLE=0 kill switch", info.nvls_reason);
        if (info.team_size != size) case_fail("team_size %d, want %d", info.team_size, size);
        if (info.rank != rank) case_fail("rank %d, want %d", info.rank, rank);
        if (info.device != device) case_fail("device %d, but the current GPU is %d", info.device, device);
        if (info.symmetric_bytes == 0) case_fail("symmetric_bytes is 0");
        if (size > 1 && info.peer_mapped_bytes == 0) case_fail("peer_mapped_bytes is 0 in a team of %d", size);
        if (strcmp(info.handle_type, "fabric") && strcmp(info.handle_type, "posix-fd"))
            case_fail("handle_type \"%.16s\", want fabric or posix-fd", info.handle_type);
    }
    check_devices(&info, comm, size);
    check_describe(mc);
    case_end();
}
