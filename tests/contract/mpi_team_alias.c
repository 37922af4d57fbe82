/* The tests' multimem emulation (src/team/multimem_alias.c) against the contract driver, under
 * mpirun: this program stands in for the GPU tests' multicast guard (it exports
 * mcoll_guard_active, linked with --export-dynamic) and sets MCOLL_TEST_EMULATE_MULTIMEM=1. A
 * team then maps every rank's memory a second time, with no cuMulticast* call; the kernels'
 * view of the aliases passes the model's checks, and teardown leaves nothing behind. With
 * multicast switched on the real object wins and no alias is made. */
#define _GNU_SOURCE
#include <stdlib.h>
#include "config.h"
#include "contract/kernel_view.h"
#include "contract/team_common.h"

/* What libmcoll_guard.so exports; the library honours the test switch only when it finds it. */
__attribute__((visibility("default"))) const int mcoll_guard_active = 1;

static void alias_case(const char *name, mcoll_tristate nvls, size_t buffer_size)
{
    mcoll_config config = team_config(nvls);
    mcoll_comm *comm = NULL;
    mcoll_comm_info_t info;
    long multicast_calls = mcoll_contract_calls("cuMulticast");
    int violations = mcoll_contract_violations();
    config.buffer_size = buffer_size;
    case_begin();
    CHECK(mcoll_comm_create(MPI_COMM_WORLD, &config, &comm) == MCOLL_SUCCESS);
    if (comm) {
        const mcoll_dev_team *t = &comm->team->dev;
        CHECK(mcoll_comm_info(comm, &info) == MCOLL_SUCCESS);
        /* The agreed limits, as the kernels see them. */
        CHECK(info.oneshot_max == t->oneshot_max && info.oneshot_max == mcoll_settings_get()->oneshot_max);
        CHECK(info.ll_max == t->ll_max && info.ll_max <= mcoll_settings_get()->ll_max);
        /* MCOLL_LL_MAX=auto (the default): 8 KiB for two ranks on two GPUs, 4 KiB for four on
         * four, else 2 KiB (team.c). */
        if (mcoll_settings_get()->ll_max == MCOLL_SIZE_AUTO) {
            const int own_gpu = info.ranks_per_gpu == 1;
            const size_t want = own_gpu && info.team_size == 2   ? 8u << 10
                                : own_gpu && info.team_size == 4 ? 4u << 10
                                                                 : 2u << 10;
            CHECK(info.ll_max == (want < mcoll_ll_capacity(info.team_size) ? want : mcoll_ll_capacity(info.team_size)));
        }
        CHECK(info.max_blocks == t->max_blocks && info.max_blocks <= mcoll_settings_get()->max_blocks);
        CHECK(info.zero_copy_blocks == (t->direct_blocks > t->max_blocks ? t->direct_blocks : t->max_blocks) &&
              info.zero_copy_blocks <= mcoll_settings_get()->zero_copy_blocks);
        CHECK(info.store_inputs == t->store_inputs && info.store_inputs == mcoll_settings_get()->store_inputs);
        CHECK(info.poll_pause_ns == (unsigned)mcoll_settings_get()->poll_pause_ns);
        CHECK(info.pdl == t->pdl && (!info.pdl || mcoll_settings_get()->pdl));
        if (nvls == MCOLL_OFF) {
            CHECK(strstr(info.nvls_reason, "multimem emulated") != NULL);
            CHECK(info.engine == MCOLL_ENGINE_UNICAST);
            CHECK(t->mc_data && t->mc_stride == kernel_slot_bytes(t));
            CHECK(mcoll_contract_calls("cuMulticast") == multicast_calls);
        } else {
            CHECK(info.engine == MCOLL_ENGINE_NVLS && t->mc_stride == 0);
        }
        check_kernel_view(comm);
        CHECK(mcoll_comm_destroy(comm) == MCOLL_SUCCESS);
    }
    CHECK(mcoll_contract_violations() == violations);
    CHECK(mcoll_contract_live("mapping") == 0 && mcoll_contract_live("reservation") == 0);
    case_end(name);
}

int main(int argc, char **argv)
{
    int rc;
    setenv("MCOLL_TEST_EMULATE_MULTIMEM", "1", 1);
    rc = team_test_start(&argc, &argv, "mpi_team_alias");
    if (rc) return rc;
    alias_case("emulated multimem: aliases mapped, no multicast call", MCOLL_OFF, 4 * TEAM_MIB);
    alias_case("emulated multimem: a real multicast object wins", MCOLL_ON, 4 * TEAM_MIB);
    /* Slots of 24 MiB on devices of 2 and 8 MiB granules: the aliases must sit on multiples of
     * the largest granule, with an alignment that is a power of two. */
    CHECK(mcoll_contract_set_granularity(1, 8 * TEAM_MIB, 8 * TEAM_MIB) == 0);
    alias_case("emulated multimem: 24 MiB slots, devices with different granularities", MCOLL_OFF, 24 * TEAM_MIB);
    CHECK(mcoll_contract_set_granularity(1, 0, 0) == 0);
    rc = team_test_exit("mpi_team_alias");
    MPI_Finalize();
    return rc;
}
