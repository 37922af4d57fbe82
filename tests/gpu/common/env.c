/* Launcher environment, safety checks and GPU selection; see env.h. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>
#include "env.h"

/* Launcher-specific names first: inside a Slurm allocation SLURM_LOCALID describes the batch
 * step, not the processes mpirun starts. */
static const char *const local_vars[] = {"OMPI_COMM_WORLD_LOCAL_RANK", "MV2_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID",
                                         "PMI_LOCAL_RANK", "PMIX_LOCAL_RANK", "PALS_LOCAL_RANKID", "SLURM_LOCALID", NULL};
static const char *const world_vars[] = {"OMPI_COMM_WORLD_RANK", "MV2_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK",
                                         "PALS_RANKID", "SLURM_PROCID", NULL};

static int first_rank(const char *const *names)
{
    int i;
    for (i = 0; names[i]; i++) {
        const char *text = getenv(names[i]);
        char *end;
        long v;
        if (!text || !*text) continue;
        v = strtol(text, &end, 10);
        if (!*end && v >= 0 && v < (1L << 30)) return (int)v;
    }
    return -1;
}

int env_local_rank(void) { return first_rank(local_vars); }
int env_world_rank(void) { return first_rank(world_vars); }
int env_is_printer(void) { return env_world_rank() <= 0; }

/* Case-insensitive equality; strcasecmp is POSIX, not C11. */
static int same_word(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b)) return 0;
    return *a == *b;
}

const char *env_multicast_hazard(void)
{
    static char why[200];
    const char *nccl = getenv("NCCL_NVLS_ENABLE");
    const char *nvls = getenv("MCOLL_NVLS");
    const char *engine = getenv("MCOLL_ENGINE");
    static const char *const on_words[] = {"1", "on", "yes", "true", "enable", NULL};
    int i;

    if (!nccl) return "NCCL_NVLS_ENABLE is not set; these tests run only with NCCL_NVLS_ENABLE=0 (multicast off)";
    if (strcmp(nccl, "0")) {
        snprintf(why, sizeof why, "NCCL_NVLS_ENABLE=%s; these tests run only with NCCL_NVLS_ENABLE=0 (multicast off)", nccl);
        return why;
    }
    for (i = 0; nvls && on_words[i]; i++)
        if (same_word(nvls, on_words[i])) {
            snprintf(why, sizeof why, "MCOLL_NVLS=%s asks for multicast; unset it or set it to 0", nvls);
            return why;
        }
    if (engine && same_word(engine, "nvls")) return "MCOLL_ENGINE=nvls asks for multicast; unset it";
    return NULL;
}

int env_guard_loaded(void)
{
    char line[4096];
    int found = 0;
    FILE *maps = fopen("/proc/self/maps", "r");
    if (!maps) return 0;
    while (!found && fgets(line, sizeof line, maps))
        found = strstr(line, "libmcoll_guard") != NULL;
    fclose(maps);
    return found;
}

static int env_is_one(const char *name)
{
    const char *v = getenv(name);
    return v && !strcmp(v, "1");
}

int env_emulate_multimem(void)
{
    return env_is_one("MCOLL_TEST_EMULATE_MULTIMEM");
}

int env_guard_required(void)
{
    return env_is_one("MCOLL_TEST_REQUIRE_GUARD");
}

int env_select_device(char *why, size_t len)
{
    int count = 0, local, device;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess) {
        snprintf(why, len, "no usable CUDA GPU (cudaGetDeviceCount: %s)", cudaGetErrorString(err));
        return -1;
    }
    if (count <= 0) {
        snprintf(why, len, "no CUDA GPU visible (CUDA_VISIBLE_DEVICES=%s)",
                 getenv("CUDA_VISIBLE_DEVICES") ? getenv("CUDA_VISIBLE_DEVICES") : "unset");
        return -1;
    }
    local = env_local_rank();
    device = (local < 0 ? 0 : local) % count;
    err = cudaSetDevice(device);
    if (err == cudaSuccess) err = cudaFree(NULL); /* create the context now, before MPI and mcoll look */
    if (err != cudaSuccess) {
        snprintf(why, len, "cannot use GPU %d: %s", device, cudaGetErrorString(err));
        return -1;
    }
    return device;
}
