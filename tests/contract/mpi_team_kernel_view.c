/* What the kernels rely on once a team is built, checked by the contract driver at the point a
 * kernel would use it (kernel_view.h), under mpirun (2 to 8 ranks):
 *   - access: every unicast slot and the multicast mapping writable over the whole symmetric
 *     size, and this device's memory bound under every byte of the multicast mapping;
 *   - signal pads zero although new memory holds garbage;
 *   - teardown (mcoll_comm_destroy, and mcoll_team_destroy on its own) waits for the kernels
 *     in flight before unmapping, and unmaps the multicast range before unbinding (model rules);
 *   - devices with different allocation granularities, and ranks with different buffer sizes
 *     (memory limits): every rank still maps every peer's whole allocation, none past it.
 * Every case ends with no violation and no live object. */
#define _GNU_SOURCE
#include <stdlib.h>
#include "config.h"
#include "contract/kernel_view.h"
#include "contract/team_common.h"

#define BIG_GRANULE (8 * TEAM_MIB)

/* Create a team with `config`, check the kernels' view, leave a kernel in flight, destroy. */
static void team_cycle(const char *name, mcoll_config config, mcoll_engine want)
{
    mcoll_comm *comm = NULL;
    mcoll_comm_info_t info;
    int violations = mcoll_contract_violations();
    case_begin();
    CHECK(mcoll_comm_create(MPI_COMM_WORLD, &config, &comm) == MCOLL_SUCCESS);
    if (comm) {
        CHECK(mcoll_comm_info(comm, &info) == MCOLL_SUCCESS && info.engine == want);
        check_kernel_view(comm);
        CHECK(same_on_all_ranks((long long)comm->team->dev.data_bytes));
        CHECK(comm->team->dev.mc_stride == 0);
        CHECK(mcoll_comm_destroy(comm) == MCOLL_SUCCESS);
    }
    CHECK(mcoll_contract_violations() == violations);
    CHECK(mcoll_contract_live("mapping") == 0 && mcoll_contract_live("reservation") == 0);
    case_end(name);
}

/* mcoll_team_destroy stands alone (it also undoes half-built teams, and its callers may own
 * the streams the team's kernels run on): with a kernel in flight, it waits before unmapping. */
static void team_destroy_waits(void)
{
    mcoll_config config = team_config(MCOLL_ON);
    mcoll_comm *comm = NULL;
    int violations = mcoll_contract_violations();
    case_begin();
    CHECK(mcoll_comm_create(MPI_COMM_WORLD, &config, &comm) == MCOLL_SUCCESS);
    if (comm) {
        check_kernel_view(comm);
        MPI_Barrier(MPI_COMM_WORLD); /* what mcoll_comm_destroy adds: no peer still reads */
        mcoll_team_destroy(comm->team);
        free(comm);
    }
    CHECK(mcoll_contract_violations() == violations);
    CHECK(mcoll_contract_live("mapping") == 0 && mcoll_contract_live("reservation") == 0);
    case_end("team teardown waits for its kernels");
}

/* The team's inputs-by-stores flag under MCOLL_STORE_INPUTS=`rank0` on rank 0 and `others`
 * elsewhere: the kernels' protocol, so every rank must hold the same value. */
static int store_inputs_with(const char *rank0, const char *others)
{
    mcoll_config config = team_config(MCOLL_OFF);
    mcoll_comm *comm = NULL;
    int flag = -1;
    setenv("MCOLL_STORE_INPUTS", world_rank == 0 ? rank0 : others, 1);
    mcoll_settings_reload();
    CHECK(mcoll_comm_create(MPI_COMM_WORLD, &config, &comm) == MCOLL_SUCCESS);
    if (comm) {
        flag = comm->team->dev.store_inputs;
        CHECK(same_on_all_ranks(flag));
        CHECK(mcoll_comm_destroy(comm) == MCOLL_SUCCESS);
    }
    unsetenv("MCOLL_STORE_INPUTS");
    mcoll_settings_reload();
    return flag;
}

static void store_inputs_agreed(void)
{
    case_begin();
    CHECK(store_inputs_with("1", "1") == 1);
    CHECK(store_inputs_with("0", "1") == 0);
    CHECK(store_inputs_with("1", "0") == 0);
    case_end("MCOLL_STORE_INPUTS: on only when every rank asks");
}

int main(int argc, char **argv)
{
    int rc = team_test_start(&argc, &argv, "mpi_team_kernel_view");
    mcoll_config config;
    if (rc) return rc;

    team_cycle("kernel view: multicast team", team_config(MCOLL_ON), MCOLL_ENGINE_NVLS);
    team_cycle("kernel view: unicast team", team_config(MCOLL_OFF), MCOLL_ENGINE_UNICAST);
    team_destroy_waits();
    store_inputs_agreed();

    /* Device 1's memory comes in larger granules than the others': every size and address of
     * the team must suit the largest (its cuMemCreate and every rank's cuMemMap of it). */
    CHECK(mcoll_contract_set_granularity(1, BIG_GRANULE, BIG_GRANULE) == 0);
    team_cycle("devices with different granularities", team_config(MCOLL_ON), MCOLL_ENGINE_NVLS);
    CHECK(mcoll_contract_set_granularity(1, 0, 0) == 0);

    /* Ranks ask for different sizes (as different MCOLL_BUFFER_SIZE or memory left under
     * MCOLL_MEMORY_LIMIT would): all must take the smallest. */
    config = team_config(MCOLL_ON);
    config.buffer_size = (size_t)(world_rank + 1) * 4 * TEAM_MIB;
    team_cycle("ranks with different sizes", config, MCOLL_ENGINE_NVLS);

    /* The tests' multimem emulation is not for users: without the GPU tests' guard in the
     * process, asking for it changes nothing. */
    setenv("MCOLL_TEST_EMULATE_MULTIMEM", "1", 1);
    team_cycle("emulation switch ignored without the guard", team_config(MCOLL_OFF), MCOLL_ENGINE_UNICAST);
    unsetenv("MCOLL_TEST_EMULATE_MULTIMEM");

    rc = team_test_exit("mpi_team_kernel_view");
    MPI_Finalize();
    return rc;
}
