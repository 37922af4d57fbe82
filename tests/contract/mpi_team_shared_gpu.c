/* Ranks that share a GPU, on the contract driver: the model gives every process the same UUID for
 * the same ordinal, so with fewer devices than ranks (rank r on device r % devices) ranks share.
 *   - without MPS the team is refused on every rank, with one INFO line naming the ranks, and
 *     nothing is allocated;
 *   - under MPS the team is built, reports GPUs, ranks per GPU and MPS truthfully, leaves
 *     multicast off without ever calling cuMulticast*, and keeps within its share of the
 *     per-GPU memory limit;
 *   - settings that decide the kernels' layout or algorithm are agreed: a rank whose value lost
 *     says which value won;
 *   - ranks sharing a GPU launch at most their share of its SMs as blocks, so that every rank's
 *     grid can be resident at once (their blocks wait for each other). */
#define _GNU_SOURCE
#include <stdlib.h>
#include "team_common.h"

#define LIMIT_MIB 16

static void set_devices_sms(int devices, int mps, int sms)
{
    mcoll_contract_config config;
    mcoll_contract_get_config(&config);
    config.device_count = devices;
    config.mps_enabled = mps;
    config.multiprocessor_count = sms;
    CHECK(mcoll_contract_configure(&config) == 0);
}

static void set_devices(int devices, int mps) { set_devices_sms(devices, mps, 132); }

/* Ranks on the device of `rank` when rank r uses device r % devices. */
static int sharers_of(int rank, int devices)
{
    int n = 0;
    for (int r = 0; r < world_size; r++) n += r % devices == rank % devices;
    return n;
}

static void case_refused_without_mps(void)
{
    int devices = world_size / 2, creates;
    long start = log_end();
    stderr_capture cap;
    mcoll_comm *mc = NULL;
    mcoll_config config = team_config(MCOLL_TRISTATE_AUTO);
    mcoll_result rc;
    char *text;

    case_begin();
    set_devices(devices, 0);
    capture_begin(&cap);
    rc = mcoll_comm_create(MPI_COMM_WORLD, &config, &mc);
    text = capture_end(&cap);
    CHECK(rc == MCOLL_ERR_UNSUPPORTED);
    CHECK(mc == NULL);
    creates = log_count("cuMemCreate", start, -1);
    CHECK(creates == 0);
    CHECK(mcoll_contract_live_objects() == 0);
    /* One line, on rank 0, naming ranks 0 and `devices` (both on device 0). */
    if (world_rank == 0) {
        char ranks[32];
        snprintf(ranks, sizeof ranks, "ranks 0,%d", devices);
        CHECK(count_lines(text, "without MPS") == 1);
        CHECK(strstr(text, ranks) != NULL);
    } else {
        CHECK(count_lines(text, "without MPS") == 0);
    }
    free(text);
    case_end("GPU shared without MPS: no team, one INFO line naming the ranks");
}

static void case_shared_under_mps(void)
{
    int devices = world_size / 2, per_gpu = sharers_of(0, devices);
    long start = log_end();
    mcoll_comm *mc = NULL;
    mcoll_comm_info_t info;
    mcoll_config config = team_config(MCOLL_TRISTATE_AUTO);

    case_begin();
    set_devices(devices, 1);
    config.buffer_size = LIMIT_MIB * TEAM_MIB; /* more than the share of the limit */
    CHECK(mcoll_comm_create(MPI_COMM_WORLD, &config, &mc) == MCOLL_SUCCESS);
    if (mc) {
        CHECK(mcoll_comm_info(mc, &info) == MCOLL_SUCCESS);
        CHECK(info.gpus == devices);
        CHECK(info.ranks_per_gpu == per_gpu);
        CHECK(info.gpu_sharers == sharers_of(world_rank, devices));
        CHECK(info.mps == 1);
        CHECK(info.device == world_rank % devices);
        CHECK(strstr(info.nvls_reason, "off") != NULL);
        CHECK(strstr(info.nvls_reason, "share a GPU") || strstr(info.nvls_reason, "NCCL_NVLS_ENABLE"));
        /* MCOLL_MEMORY_LIMIT is per GPU: every sharer gets at most its part. */
        CHECK(info.symmetric_bytes > 0);
        CHECK(info.symmetric_bytes <= (size_t)LIMIT_MIB * TEAM_MIB / (size_t)per_gpu);
        CHECK(same_on_all_ranks((long long)info.symmetric_bytes));
        CHECK(mcoll_comm_destroy(mc) == MCOLL_SUCCESS);
    }
    CHECK(log_count("cuMulticastCreate", start, -1) == 0);
    CHECK(log_count("cuMulticastAddDevice", start, -1) == 0);
    CHECK(log_count("cuMulticastGetGranularity", start, -1) == 0);
    CHECK(mcoll_contract_live_objects() == 0);
    case_end("GPU shared under MPS: team built, sharing reported, multicast off, memory split");
}

static void case_one_gpu_per_rank(void)
{
    mcoll_comm *mc = NULL;
    mcoll_comm_info_t info;
    mcoll_config config = team_config(MCOLL_TRISTATE_AUTO);

    case_begin();
    set_devices(world_size, 0);
    CHECK(mcoll_comm_create(MPI_COMM_WORLD, &config, &mc) == MCOLL_SUCCESS);
    if (mc) {
        CHECK(mcoll_comm_info(mc, &info) == MCOLL_SUCCESS);
        CHECK(info.gpus == world_size);
        CHECK(info.ranks_per_gpu == 1);
        CHECK(info.gpu_sharers == 1);
        CHECK(info.mps == 0);
        CHECK(mcoll_comm_destroy(mc) == MCOLL_SUCCESS);
    }
    case_end("one GPU per rank without MPS: team built, nothing shared");
}

/* mcoll_comm_create with `config`, capturing what it writes: its text (freed by the caller). */
static char *create_capturing(const mcoll_config *config, mcoll_comm **mc)
{
    stderr_capture cap;
    mcoll_result rc;
    char *text;
    capture_begin(&cap);
    rc = mcoll_comm_create(MPI_COMM_WORLD, config, mc);
    text = capture_end(&cap);
    CHECK(rc == MCOLL_SUCCESS);
    return text;
}

/* Rank 0 asks for fewer blocks than the others: the smallest count wins everywhere, and only the
 * ranks that asked for more say so. */
static void case_agreed_blocks(void)
{
    mcoll_comm *mc = NULL;
    mcoll_config config = team_config(MCOLL_TRISTATE_AUTO);
    char *text;

    case_begin();
    set_devices(world_size, 0);
    config.max_blocks = world_rank == 0 ? 4 : 16;
    text = create_capturing(&config, &mc);
    if (world_rank == 0) CHECK(count_lines(text, "MCOLL_MAX_BLOCKS") == 0);
    else CHECK(count_lines(text, "ranks differ in MCOLL_MAX_BLOCKS: 4 blocks") == 1);
    free(text);
    if (mc) CHECK(mcoll_comm_destroy(mc) == MCOLL_SUCCESS);
    case_end("block counts that differ between ranks: the smallest is used, the others say so");
}

/* A GPU of 40 SMs shared by `per_gpu` ranks that ask for 32 blocks each: each gets 40 / per_gpu
 * and says so; alone on a GPU of 40, nobody is cut to fewer than 32, and only the zero-copy
 * kernels' 64 blocks are cut to the 40 SMs. */
static void case_blocks_fit_shared_gpu(int devices)
{
    const int per_gpu = sharers_of(0, devices), fit = 40 / sharers_of(0, devices);
    char want[96];
    mcoll_comm *mc = NULL;
    mcoll_config config = team_config(MCOLL_TRISTATE_AUTO);
    char *text;

    case_begin();
    set_devices_sms(devices, 1, 40);
    config.max_blocks = 32;
    text = create_capturing(&config, &mc);
    snprintf(want, sizeof want, "%d blocks per kernel instead of 32: %d ranks share a GPU of 40 SMs", fit, per_gpu);
    if (per_gpu > 1 && fit < 32) {
        CHECK(count_lines(text, want) == 1);
    } else {
        CHECK(count_lines(text, "blocks per kernel instead of 32") == 0);
        CHECK(count_lines(text, "MCOLL_ZERO_COPY_BLOCKS: 40 blocks per kernel instead of 64: the GPU has 40 SMs") == 1);
    }
    free(text);
    if (mc) CHECK(mcoll_comm_destroy(mc) == MCOLL_SUCCESS);
    set_devices(world_size, 0);
    case_end(per_gpu > 1 ? "ranks sharing a GPU: blocks cut to their share of its SMs"
                         : "one rank per GPU: blocks not cut");
}

int main(int argc, char **argv)
{
    char limit[32];
    int rc;
    /* Read once, at the first use of the settings. */
    setenv("MCOLL_DEBUG", "INFO", 1);
    snprintf(limit, sizeof limit, "%dM", LIMIT_MIB);
    setenv("MCOLL_MEMORY_LIMIT", limit, 1);
    rc = team_test_start(&argc, &argv, "mpi_team_shared_gpu");
    if (rc) return rc == 77 ? 77 : 1;
    if (world_size < 4) {
        if (world_rank == 0) printf("skip: mpi_team_shared_gpu needs at least 4 ranks\n");
        MPI_Finalize();
        return 77;
    }
    case_refused_without_mps();
    case_shared_under_mps();
    case_one_gpu_per_rank();
    case_agreed_blocks();
    case_blocks_fit_shared_gpu(world_size / 2);
    case_blocks_fit_shared_gpu(world_size);
    rc = team_test_exit("mpi_team_shared_gpu");
    MPI_Finalize();
    return rc;
}
