/* The multicast object of a team, in the order the CUDA documents require:
 * rank 0 creates it (numDevices = team size) and exports it; every rank imports it, adds its
 * GPU; once every GPU is added, each rank binds its own symmetric allocation, reserves an
 * address range, maps the object there and sets access. Every step ends with all ranks agreeing
 * on status, so a failure anywhere makes every rank undo its part and run unicast together.
 * With the multicast switch off, nothing here calls a cuMulticast* entry point. */
#include <stdio.h>
#include <string.h>
#include "agree.h"
#include "checks.h"
#include "config.h"
#include "team.h"
#include "vmm.h"

typedef enum {
    STEP_GRANULARITY, STEP_CREATE, STEP_EXPORT, STEP_EXCHANGE, STEP_IMPORT, STEP_ADD_DEVICE, STEP_BIND,
    STEP_RESERVE, STEP_MAP, STEP_ACCESS
} setup_step;

static const char *const step_call[] = {"cuMulticastGetGranularity", "cuMulticastCreate",
                                        "cuMemExportToShareableHandle", "the handle exchange",
                                        "cuMemImportFromShareableHandle", "cuMulticastAddDevice",
                                        "cuMulticastBindMem", "cuMemAddressReserve", "cuMemMap", "cuMemSetAccess"};

static CUmulticastObjectProp object_prop(const mcoll_team *team, size_t size)
{
    CUmulticastObjectProp prop;
    memset(&prop, 0, sizeof prop);
    prop.numDevices = (unsigned int)team->size;
    prop.size = size;
    prop.handleTypes = mcoll_handle_type(team->handle_kind);
    return prop;
}

/* All ranks agree on a step. On failure rank 0 logs one warning naming the first failing
 * rank, the call and its error. Returns 1 when every rank succeeded. */
static int agree_step(mcoll_team *team, setup_step step, CUresult rc)
{
    int mine[2] = {(int)rc, (int)step}, all[2 * MCOLL_MAX_RANKS], i;
    if (PMPI_Allgather(mine, 2, MPI_INT, all, 2, MPI_INT, team->comm) != MPI_SUCCESS) {
        snprintf(team->nvls_reason, sizeof team->nvls_reason, "off: MPI failed while agreeing on %s", step_call[step]);
        return 0;
    }
    for (i = 0; i < team->size; i++) {
        if (all[2 * i] == CUDA_SUCCESS) continue;
        snprintf(team->nvls_reason, sizeof team->nvls_reason, "off: %s failed on local rank %d: %s",
                 step_call[all[2 * i + 1]], i, mcoll_cu_errname((CUresult)all[2 * i]));
        if (team->rank == 0)
            MCOLL_WARN("multicast setup: %s failed on local rank %d with %s; every rank uses the unicast engine "
                       "(is Fabric Manager running? MCOLL_NVLS=0 disables multicast)",
                       step_call[all[2 * i + 1]], i, mcoll_cu_errname((CUresult)all[2 * i]));
        return 0;
    }
    return 1;
}

int mcoll_multicast_wanted(mcoll_team *team, const mcoll_config *config, size_t *granularity)
{
    const mcoll_settings *settings = mcoll_settings_get();
    CUmulticastObjectProp prop;
    size_t minimum = 0, recommended = 0, mine[2], all[2];
    int supported = 0, ok;
    CUresult rc;
    const char *why = NULL;

    if (settings->nvls_killed) why = "off: NCCL_NVLS_ENABLE=0 (kill switch)";
    /* Read at start-up: the multicast entry points were not even loaded, whatever `config` asks. */
    else if (settings->nvls == MCOLL_OFF) why = "off: MCOLL_NVLS=0 in the environment";
    else if (config->nvls == MCOLL_OFF) why = "off: MCOLL_NVLS=0";
    else if (config->engine == MCOLL_ENGINE_UNICAST) why = "off: unicast engine requested";
    else if (!mcoll_cu.cuMulticastCreate || !mcoll_cu.cuMulticastGetGranularity) why = "off: the driver has no multicast entry points";
    else if (team->size < 2) why = "off: a team of one GPU";
    /* The object takes one allocation per GPU: ranks sharing a GPU cannot each bind theirs. */
    else if (team->sharing.ranks_per_gpu > 1) why = "off: ranks share a GPU (multicast needs one rank per GPU)";
    else if (mcoll_cu.cuDeviceGetAttribute(&supported, CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED, team->cu_device) != CUDA_SUCCESS || !supported)
        why = "off: not every GPU supports multicast (needs Hopper or later behind NVSwitch, Fabric Manager)";
    ok = why == NULL;
    if (!mcoll_team_agree(team->comm, ok)) {
        snprintf(team->nvls_reason, sizeof team->nvls_reason, "%s", why ? why : "off: not available on every rank");
        return 0;
    }

    prop = object_prop(team, 0);
    rc = mcoll_cu.cuMulticastGetGranularity(&minimum, &prop, CU_MULTICAST_GRANULARITY_MINIMUM);
    if (rc == CUDA_SUCCESS) rc = mcoll_cu.cuMulticastGetGranularity(&recommended, &prop, CU_MULTICAST_GRANULARITY_RECOMMENDED);
    /* Named like the other steps: every rank learns which rank's query failed and how. */
    if (!agree_step(team, STEP_GRANULARITY, rc)) return 0;
    mine[0] = minimum;
    mine[1] = recommended;
    if (!mcoll_agree_max(team->comm, mine, all, 2) || all[0] == 0) {
        snprintf(team->nvls_reason, sizeof team->nvls_reason, "off: no multicast granularity (cuMulticastGetGranularity)");
        return 0;
    }
    team->mc.granularity = all[0];
    /* The recommended granularity is for speed; keep it when it does not inflate the buffer. */
    *granularity = all[1] && all[1] <= config->buffer_size ? all[1] : all[0];
    snprintf(team->nvls_reason, sizeof team->nvls_reason, "on: every GPU supports multicast");
    return 1;
}

mcoll_result mcoll_multicast_setup(mcoll_team *team)
{
    mcoll_multicast *mc = &team->mc;
    CUmemGenericAllocationHandle imported[MCOLL_MAX_RANKS];
    int have[MCOLL_MAX_RANKS];
    CUresult rc = CUDA_SUCCESS;

    mc->size = team->symm.size;
    if (mc->size % mc->granularity) {
        snprintf(team->nvls_reason, sizeof team->nvls_reason, "off: buffer not a multiple of the multicast granularity");
        return MCOLL_ERR_INTERNAL;
    }
    if (team->rank == 0) {
        CUmulticastObjectProp prop = object_prop(team, mc->size);
        rc = mcoll_cu.cuMulticastCreate(&mc->created, &prop);
        mc->have_created = rc == CUDA_SUCCESS;
    }
    if (!agree_step(team, STEP_CREATE, rc)) goto fail;

    /* Every rank, rank 0 included, works on the imported handle. */
    if (mcoll_handle_allgather(team, team->rank == 0, mc->created, 1, imported, have) != MCOLL_SUCCESS) {
        setup_step step = team->share_failure == MCOLL_SHARE_EXPORT   ? STEP_EXPORT
                          : team->share_failure == MCOLL_SHARE_IMPORT ? STEP_IMPORT
                                                                      : STEP_EXCHANGE;
        /* Names the first rank whose own export, exchange or import failed, with its error. */
        if (agree_step(team, step, team->share_failure == MCOLL_SHARE_OK ? CUDA_SUCCESS : team->share_error))
            snprintf(team->nvls_reason, sizeof team->nvls_reason, "off: sharing the multicast handle failed");
        goto fail;
    }
    mc->handle = imported[0];
    mc->have_handle = have[0];

    rc = mcoll_cu.cuMulticastAddDevice(mc->handle, team->cu_device);
    mc->device_added = rc == CUDA_SUCCESS;
    /* The agreement is also the barrier the bind needs: all devices added before any bind. */
    if (!agree_step(team, STEP_ADD_DEVICE, rc)) goto fail;

    rc = mcoll_cu.cuMulticastBindMem(mc->handle, 0, team->symm.local, 0, mc->size, 0);
    mc->bound = rc == CUDA_SUCCESS;
    if (!agree_step(team, STEP_BIND, rc)) goto fail;

    rc = mcoll_cu.cuMemAddressReserve(&mc->va, mc->size, mc->granularity, 0, 0);
    mc->reserved = rc == CUDA_SUCCESS;
    if (!agree_step(team, STEP_RESERVE, rc)) goto fail;

    rc = mcoll_cu.cuMemMap(mc->va, mc->size, 0, mc->handle, 0);
    mc->mapped = rc == CUDA_SUCCESS;
    if (!agree_step(team, STEP_MAP, rc)) goto fail;

    rc = mcoll_set_access(team->device, mc->va, mc->size);
    if (!agree_step(team, STEP_ACCESS, rc)) goto fail;

    mc->active = 1;
    MCOLL_INFO("multicast: %zu bytes bound on %d GPUs (granularity %zu)", mc->size, team->size, mc->granularity);
    return MCOLL_SUCCESS;

fail:
    mcoll_multicast_unbind(team);
    mcoll_multicast_release(team);
    return MCOLL_ERR_CUDA;
}

void mcoll_multicast_unbind(mcoll_team *team)
{
    mcoll_multicast *mc = &team->mc;
    mc->active = 0;
    if (mc->mapped) CU_WARN(cuMemUnmap(mc->va, mc->size));
    if (mc->reserved) CU_WARN(cuMemAddressFree(mc->va, mc->size));
    if (mc->bound) CU_WARN(cuMulticastUnbind(mc->handle, team->cu_device, 0, mc->size));
    mc->mapped = mc->reserved = mc->bound = 0;
}

void mcoll_multicast_release(mcoll_team *team)
{
    mcoll_multicast *mc = &team->mc;
    if (mc->have_handle) CU_WARN(cuMemRelease(mc->handle));
    if (mc->have_created) CU_WARN(cuMemRelease(mc->created));
    mc->have_handle = mc->have_created = mc->device_added = 0;
}
