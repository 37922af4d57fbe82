/* The body of the mpi_team_killswitch* programs: the multicast switches, read once at start-up,
 * against the contract driver (which reports multicast support on every device), under mpirun.
 * Each program sets its switches in its own environment with setenv before MPI_Init, since
 * mcoll reads them once: one setting per program (define _GNU_SOURCE before including this).
 *
 * With the switch off, for every configuration a communicator may ask for (the defaults,
 * multicast on, the NVLS engine) and both handle kinds:
 *   - every rank's team runs the unicast engine, and nvls_reason names the switch;
 *   - the contract driver counts ZERO cuMulticast* calls, not even a granularity query;
 *   - the multicast entries of mcoll's driver table were never filled in (the model offers them);
 *   - nothing breaks a rule, and mcoll_comm_destroy leaves nothing alive. */
#ifndef MCOLL_CONTRACT_TEAM_KILLSWITCH_H
#define MCOLL_CONTRACT_TEAM_KILLSWITCH_H

#include <dlfcn.h>
#include "config.h"
#include "contract/team_common.h"

typedef struct {
    const char *test;            /* program name */
    const char *nccl_nvls;       /* NCCL_NVLS_ENABLE, or NULL: unset */
    const char *mcoll_nvls;      /* MCOLL_NVLS, or NULL: unset */
    int killed;                  /* NCCL_NVLS_ENABLE=0 is in force */
    const char *reason;          /* what nvls_reason must name */
} killswitch_variant;

/* A real NVIDIA driver and GPU on this machine. */
static inline int real_gpu_present(void)
{
    void *libcuda;
    if (access("/dev/nvidia0", F_OK) != 0) return 0;
    libcuda = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
    if (!libcuda) return 0;
    dlclose(libcuda);
    return 1;
}

static inline int table_has_no_multicast_entry(const mcoll_driver *table)
{
    int none = 1;
#define KILLSWITCH_NULL(name, version) none &= table->name == NULL;
    MCOLL_DRIVER_MULTICAST(KILLSWITCH_NULL)
#undef KILLSWITCH_NULL
    return none;
}

static inline int table_has_every_multicast_entry(const mcoll_driver *table)
{
    int all = 1;
#define KILLSWITCH_SET(name, version) all &= table->name != NULL;
    MCOLL_DRIVER_MULTICAST(KILLSWITCH_SET)
#undef KILLSWITCH_SET
    return all;
}

static inline void killswitch_case(const killswitch_variant *v, const char *name, int fabric, mcoll_tristate nvls,
                                   mcoll_engine engine)
{
    mcoll_config config;
    mcoll_comm *comm = NULL;
    mcoll_comm_info_t info;

    case_begin();
    mcoll_config_init(&config);
    CHECK(config.nvls == MCOLL_OFF);  /* what the environment gives every communicator */
    if (nvls != MCOLL_OFF) config.nvls = nvls;
    config.engine = engine;
    config.buffer_size = 4 * TEAM_MIB;
    use_fabric(fabric);
    MPI_Barrier(MPI_COMM_WORLD);
    long calls_before = mcoll_contract_calls("cuMulticast");
    mcoll_result rc = mcoll_comm_create(MPI_COMM_WORLD, &config, &comm);
    CHECK(rc == MCOLL_SUCCESS && comm);
    CHECK(all_ranks(rc == MCOLL_SUCCESS));
    if (rc == MCOLL_SUCCESS && comm) {
        CHECK(mcoll_comm_info(comm, &info) == MCOLL_SUCCESS);
        CHECK(info.engine == MCOLL_ENGINE_UNICAST);
        CHECK(info.team_size == world_size);
        CHECK(strstr(info.nvls_reason, "off:") == info.nvls_reason);
        CHECK(strstr(info.nvls_reason, v->reason) != NULL);
        if (check_failures) fprintf(stderr, "rank %d: nvls_reason \"%s\"\n", world_rank, info.nvls_reason);
        CHECK(mcoll_comm_destroy(comm) == MCOLL_SUCCESS);
    }
    CHECK(mcoll_contract_calls("cuMulticast") == calls_before);
    CHECK(all_ranks(mcoll_contract_calls("cuMulticast") == 0));
    CHECK(table_has_no_multicast_entry(&mcoll_cu));
    CHECK(mcoll_contract_live_objects() == 0 && mcoll_contract_live("context") == 0);
    CHECK(mcoll_contract_violations() == 0);
    case_end(name);
}

static inline int killswitch_main(int argc, char **argv, const killswitch_variant *v)
{
    /* Touching the multicast switches by hand is for this CPU-only model; never where a GPU
     * could see it. */
    if (((v->mcoll_nvls && strcmp(v->mcoll_nvls, "0") != 0) || !v->nccl_nvls) && real_gpu_present()) {
        printf("skip: %s changes the multicast switches and runs only where no NVIDIA driver and GPU are present\n",
               v->test);
        return 77;
    }
    if (v->nccl_nvls) setenv("NCCL_NVLS_ENABLE", v->nccl_nvls, 1);
    else unsetenv("NCCL_NVLS_ENABLE");
    if (v->mcoll_nvls) setenv("MCOLL_NVLS", v->mcoll_nvls, 1);
    else unsetenv("MCOLL_NVLS");

    int skip = team_test_start(&argc, &argv, v->test);
    if (skip) return skip;

    case_begin();
    const mcoll_settings *settings = mcoll_settings_get();
    CHECK(settings->nvls_killed == v->killed);
    CHECK(settings->nvls == MCOLL_OFF);
    /* The model offers multicast everywhere: only the switch keeps mcoll from it. */
    const mcoll_driver *model = mcoll_contract_driver();
    int supported = 0;
    CHECK_OK(model->cuDeviceGetAttribute(&supported, CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED, world_rank));
    CHECK(supported == 1);
    CHECK(table_has_every_multicast_entry(model));
    CHECK(mcoll_driver_available());
    CHECK(table_has_no_multicast_entry(&mcoll_cu));
    CHECK(mcoll_cu.cuMemCreate != NULL);
    case_end("switch read at start-up; the model offers multicast, mcoll's table has none of it");

    static const struct {
        const char *name;
        int fabric;
        mcoll_tristate nvls;
        mcoll_engine engine;
    } cases[] = {
        {"defaults from the environment, fabric handles", 1, MCOLL_OFF, MCOLL_ENGINE_AUTO},
        {"defaults from the environment, POSIX descriptors", 0, MCOLL_OFF, MCOLL_ENGINE_AUTO},
        {"configuration asks for multicast (nvls = on)", 1, MCOLL_ON, MCOLL_ENGINE_AUTO},
        {"configuration asks for multicast (nvls = auto)", 0, MCOLL_TRISTATE_AUTO, MCOLL_ENGINE_AUTO},
        {"configuration asks for the NVLS engine", 1, MCOLL_ON, MCOLL_ENGINE_NVLS},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char name[160];
        snprintf(name, sizeof name, "%s: %s", v->reason, cases[i].name);
        killswitch_case(v, name, cases[i].fabric, cases[i].nvls, cases[i].engine);
    }
    int status = team_test_exit(v->test);
    MPI_Finalize();
    return status;
}

#endif /* MCOLL_CONTRACT_TEAM_KILLSWITCH_H */
