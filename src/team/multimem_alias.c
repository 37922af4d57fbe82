/* Tests only: the multimem layer on GPUs without multicast. Instead of a multicast object,
 * every rank maps every rank's symmetric memory a second time, in one more reservation laid
 * out like the first, and the kernels' multimem layer sends its requests through those aliases
 * (collectives/multimem_port.cuh). No cuMulticast* entry point is involved.
 *
 * Users can never select it: it needs MCOLL_TEST_EMULATE_MULTIMEM=1 AND the multicast guard
 * of the GPU tests (libmcoll_guard.so, which exports mcoll_guard_active) in the process. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include "agree.h"
#include "checks.h"
#include "team.h"
#include "vmm.h"

int mcoll_alias_wanted(void)
{
    const char *v = getenv("MCOLL_TEST_EMULATE_MULTIMEM");
    const int *guard;
    if (!v || strcmp(v, "1") != 0) return 0;
    guard = (const int *)dlsym(RTLD_DEFAULT, "mcoll_guard_active");
    if (!guard || *guard != 1) {
        MCOLL_WARN("MCOLL_TEST_EMULATE_MULTIMEM=1 ignored: only the GPU tests (under libmcoll_guard.so) may set it");
        return 0;
    }
    return 1;
}

/* Rank i's memory mapped again at base + i * size, readable and writable: the emulated
 * multimem.st writes through the aliases as the real one writes through the multicast mapping. */
static int map_aliases(mcoll_team *team)
{
    mcoll_symmetric *s = &team->symm;
    mcoll_multimem_alias *a = &team->alias;
    size_t bytes = s->size * (size_t)team->size;
    /* The largest power of two dividing the slot size: a multiple of every device's granularity,
     * since the size is a multiple of the agreed (largest) one. */
    size_t alignment = s->size & (~s->size + 1);
    int i;
    if (mcoll_cu.cuMemAddressReserve(&a->base, bytes, alignment, 0, 0) != CUDA_SUCCESS) return 0;
    a->reserved = bytes;
    for (i = 0; i < team->size; i++) {
        CUdeviceptr at = a->base + (CUdeviceptr)i * s->size;
        if (mcoll_cu.cuMemMap(at, s->size, 0, s->peers[i], 0) != CUDA_SUCCESS) return 0;
        a->mapped[i] = 1;
        if (mcoll_set_access(team->device, at, s->size) != CUDA_SUCCESS) return 0;
    }
    return 1;
}

mcoll_result mcoll_alias_setup(mcoll_team *team)
{
    memset(&team->alias, 0, sizeof team->alias);
    if (!mcoll_team_agree(team->comm, map_aliases(team))) {
        MCOLL_WARN("multimem emulation: mapping the aliases failed on some rank; unicast layer");
        mcoll_alias_destroy(team);
        return MCOLL_ERR_CUDA;
    }
    team->alias.active = 1;
    MCOLL_INFO("multimem emulation: every rank's symmetric memory aliased at a second address range (tests)");
    return MCOLL_SUCCESS;
}

void mcoll_alias_destroy(mcoll_team *team)
{
    mcoll_multimem_alias *a = &team->alias;
    int i;
    for (i = 0; i < team->size; i++)
        if (a->mapped[i]) CU_WARN(cuMemUnmap(a->base + (CUdeviceptr)i * team->symm.size, team->symm.size));
    if (a->reserved) CU_WARN(cuMemAddressFree(a->base, a->reserved));
    memset(a, 0, sizeof *a);
}
