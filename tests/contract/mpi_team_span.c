/* Teams that span nodes, on the contract driver, with fake nodes on one machine: the library's
 * testing aid MCOLL_TEST_NODE_SIZE and the model's nodes (mcoll_contract_set_node_size) cut the
 * ranks alike, each node with GPUs of its own; NVML's fabric info is modelled per node
 * (mcoll_contract_set_cliques). The model refuses a POSIX descriptor or a CUDA IPC handle
 * imported on another node than its exporter's, and lets fabric handles cross.
 *   - one NVLink clique over two nodes: the team is built, with fabric handles for the symmetric
 *     memory and for the multicast object (the model's; nothing here runs on a GPU), the same
 *     steps as on one node; every rank's slot is the memory its owner writes, read across the
 *     nodes; the kernels' view of it is mapped and writable (the model checks the accesses);
 *     with multicast off the unicast engine; memory of mcoll_mem_alloc spans the nodes too,
 *     cudaMalloc memory is refused (CUDA IPC stays on one node);
 *   - cliques that differ: no team over them (INFO), but one per clique, and each of those
 *     spans two nodes (the domains of a hierarchical communicator);
 *   - no fabric handles (attribute off, or a rank whose probe is not permitted), or no fabric
 *     info: no team, one INFO line naming why, nothing left allocated, no broken rule;
 *   - the model's side: a library that does not know of the nodes (no MCOLL_TEST_NODE_SIZE) and
 *     has only POSIX descriptors is caught crossing nodes.
 * Needs an even number of ranks, at least 4 (two nodes of at least two ranks). */
#define _GNU_SOURCE
#include <stdlib.h>
#include "comm_internal.h"
#include "config.h"
#include "contract/kernel_view.h"
#include "team_common.h"

static int node_size;

/* Fake nodes of k ranks for the library and the model alike (0: the one real node). */
static void fake_nodes(int k)
{
    char text[8];
    snprintf(text, sizeof text, "%d", k);
    if (k) setenv("MCOLL_TEST_NODE_SIZE", text, 1);
    else unsetenv("MCOLL_TEST_NODE_SIZE");
    mcoll_settings_reload();
    mcoll_contract_set_node_size(k);
}

/* Node n's 8 devices in clique ids[n] of cluster 1, for `nodes` nodes. */
static const char *cliques(const int *ids, int nodes)
{
    static char text[1024];
    size_t used = 0;
    for (int n = 0; n < nodes; n++)
        for (int d = 0; d < 8; d++)
            used += (size_t)snprintf(text + used, sizeof text - used, "%s1:%d", d ? "," : n ? ";" : "", ids[n]);
    return text;
}

/* No import or export of this rank's log since `start` used a POSIX descriptor, and every peer
 * of a team of `ranks` was imported with fabric handles. */
static void check_fabric_imports(long start, int ranks)
{
    int fabric = 0;
    for (long i = log_find("cuMemImportFromShareableHandle", start); i >= 0;
         i = log_find("cuMemImportFromShareableHandle", i + 1)) {
        CHECK(log_arg(i, "type", 0) == CU_MEM_HANDLE_TYPE_FABRIC);
        fabric++;
    }
    for (long i = log_find("cuMemExportToShareableHandle", start); i >= 0;
         i = log_find("cuMemExportToShareableHandle", i + 1))
        CHECK(log_arg(i, "type", 0) == CU_MEM_HANDLE_TYPE_FABRIC);
    CHECK(fabric >= ranks - 1);
}

/* Every rank writes its slot's data area through its own mapping; every rank reads every slot
 * through its view of it, across the nodes. */
static void check_slots(const mcoll_comm *mc)
{
    const mcoll_dev_team *t = &mc->team->dev;
    const size_t words = 64;
    uint64_t *mine = (uint64_t *)t->peer_data[t->rank];
    for (size_t k = 0; k < words; k++) mine[k] = ((uint64_t)t->rank << 32) | k;
    MPI_Barrier(MPI_COMM_WORLD);
    for (int p = 0; p < t->size; p++) {
        const uint64_t *theirs = (const uint64_t *)t->peer_data[p];
        size_t wrong = 0;
        for (size_t k = 0; k < words; k++) wrong += theirs[k] != (((uint64_t)p << 32) | k);
        if (wrong) fprintf(stderr, "rank %d: %zu words of rank %d's slot differ\n", world_rank, wrong, p);
        CHECK(wrong == 0);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

static void case_one_clique(mcoll_tristate nvls, const char *name)
{
    static const int same[] = {7, 7, 7, 7, 7, 7, 7, 7};
    mcoll_config config = team_config(nvls);
    mcoll_comm_info_t info;
    mcoll_comm *mc = NULL;
    long start, multicast_calls = mcoll_contract_calls("cuMulticast");

    case_begin();
    fake_nodes(node_size);
    mcoll_contract_set_cliques(cliques(same, 1));
    start = log_end();
    CHECK(mcoll_comm_create(MPI_COMM_WORLD, &config, &mc) == MCOLL_SUCCESS);
    if (mc) {
        CHECK(mcoll_comm_info(mc, &info) == MCOLL_SUCCESS);
        CHECK(strcmp(info.handle_type, "fabric") == 0);
        CHECK(info.team_size == world_size && info.gpus == world_size && info.ranks_per_gpu == 1);
        CHECK(info.engine == (nvls == MCOLL_OFF ? MCOLL_ENGINE_UNICAST : MCOLL_ENGINE_NVLS));
        CHECK(mc->team->nodes == world_size / node_size);
        CHECK(info.device == world_rank % node_size); /* its rank on its node picks the GPU */
        check_fabric_imports(start, world_size);
        /* The multicast object: rank 0 creates it exportable as fabric, every rank imports it. */
        if (nvls != MCOLL_OFF && world_rank == 0) {
            long create = log_find("cuMulticastCreate", start);
            CHECK(create >= 0 && log_arg(create, "handleTypes", 0) == CU_MEM_HANDLE_TYPE_FABRIC);
        }
        if (nvls == MCOLL_OFF) CHECK(mcoll_contract_calls("cuMulticast") == multicast_calls);
        check_kernel_view(mc);
        check_slots(mc);
        CHECK(mcoll_comm_destroy(mc) == MCOLL_SUCCESS);
    }
    CHECK(mcoll_contract_violations() == 0);
    CHECK(mcoll_contract_live_objects() == 0);
    case_end(name);
}

/* mcoll_mem_alloc memory is shared as the team's own (fabric); cudaMalloc memory cannot be. */
static void case_memory(void)
{
    static const int same[] = {7, 7, 7, 7, 7, 7, 7, 7};
    const mcoll_driver *cu = mcoll_contract_driver();
    mcoll_config config = team_config(MCOLL_OFF);
    mcoll_comm *mc = NULL;
    mcoll_mem_handle handle;
    CUdeviceptr plain = 0;
    void *ptr = NULL;
    long start, ipc_opens = mcoll_contract_calls("cuIpcOpenMemHandle");

    case_begin();
    fake_nodes(node_size);
    mcoll_contract_set_cliques(cliques(same, 1));
    CHECK(mcoll_comm_create(MPI_COMM_WORLD, &config, &mc) == MCOLL_SUCCESS);
    if (mc) {
        start = log_end();
        CHECK(mcoll_mem_alloc(mc, 2 * TEAM_MIB, &ptr) == MCOLL_SUCCESS);
        check_fabric_imports(start, world_size);
        if (ptr) CHECK(mcoll_mem_free(mc, ptr) == MCOLL_SUCCESS);
        CHECK_OK(cu->cuMemAlloc(&plain, 1 << 20));
        CHECK(mcoll_mem_register(mc, (void *)(uintptr_t)plain, 1 << 20, &handle) == MCOLL_ERR_UNSUPPORTED);
        CHECK(mcoll_contract_calls("cuIpcOpenMemHandle") == ipc_opens);
        if (plain) CHECK_OK(cu->cuMemFree(plain));
        CHECK(mcoll_comm_destroy(mc) == MCOLL_SUCCESS);
    }
    CHECK(mcoll_contract_violations() == 0);
    CHECK(mcoll_contract_live_objects() == 0);
    case_end("one clique over nodes: mcoll_mem_alloc memory shared by fabric handles, cudaMalloc memory refused");
}

/* A team that must not be built: every rank gets `want`, rank 0 alone says `why` at INFO, and
 * nothing stays allocated. */
static void expect_no_team(MPI_Comm comm, mcoll_result want, const char *why)
{
    mcoll_config config = team_config(MCOLL_TRISTATE_AUTO);
    mcoll_comm *mc = NULL;
    stderr_capture cap;
    mcoll_result rc;
    char *text;
    int rank;

    MPI_Comm_rank(comm, &rank);
    capture_begin(&cap);
    rc = mcoll_comm_create(comm, &config, &mc);
    text = capture_end(&cap);
    CHECK(rc == want && mc == NULL);
    CHECK(all_ranks(rc == want));
    CHECK(count_lines(text, why) == (rank == 0));
    if (count_lines(text, why) != (rank == 0)) fprintf(stderr, "rank %d: wanted '%s' once on rank 0\n", world_rank, why);
    CHECK(mcoll_contract_live_objects() == 0);
    CHECK(mcoll_contract_violations() == 0);
    free(text);
    if (mc) mcoll_comm_destroy(mc);
}

/* Each rank a node; cliques of two nodes each. */
static void case_cliques_differ(void)
{
    int ids[8];
    mcoll_comm *mc = NULL;
    mcoll_comm_info_t info;
    MPI_Comm clique;
    long start;

    case_begin();
    for (int r = 0; r < world_size && r < 8; r++) ids[r] = 7 + r / 2;
    fake_nodes(1);
    mcoll_contract_set_cliques(cliques(ids, world_size));
    expect_no_team(MPI_COMM_WORLD, MCOLL_ERR_UNSUPPORTED, "GPUs of several cliques");
    /* The team of each clique spans its two nodes. */
    MPI_Comm_split(MPI_COMM_WORLD, world_rank / 2, world_rank, &clique);
    start = log_end();
    CHECK(mcoll_comm_create(clique, NULL, &mc) == MCOLL_SUCCESS);
    if (mc) {
        CHECK(mcoll_comm_info(mc, &info) == MCOLL_SUCCESS);
        CHECK(strcmp(info.handle_type, "fabric") == 0 && info.team_size == 2 && mc->team->nodes == 2);
        check_fabric_imports(start, 2);
        check_kernel_view(mc);
        CHECK(mcoll_comm_destroy(mc) == MCOLL_SUCCESS);
    }
    MPI_Comm_free(&clique);
    CHECK(mcoll_contract_violations() == 0);
    CHECK(mcoll_contract_live_objects() == 0);
    case_end("cliques that differ: no team over them; one per clique, spanning two nodes each, with fabric handles");
}

static void case_without_fabric(void)
{
    static const int same[] = {7, 7, 7, 7, 7, 7, 7, 7};
    long start;
    case_begin();
    fake_nodes(node_size);
    mcoll_contract_set_cliques(cliques(same, 1));
    use_fabric(0);
    start = log_end();
    expect_no_team(MPI_COMM_WORLD, MCOLL_ERR_UNSUPPORTED, "cannot share memory by fabric handles");
    CHECK(log_count("cuMemImportFromShareableHandle", start, -1) == 0 && log_count("cuMemCreate", start, -1) == 0);
    use_fabric(1);
    case_end("one clique over nodes without fabric handles: no team (POSIX descriptors do not cross nodes)");

    case_begin();
    /* The last rank's fabric probe is not permitted (no IMEX channel there). */
    if (world_rank == world_size - 1) CHECK(mcoll_contract_fail("cuMemCreate", 1, CUDA_ERROR_NOT_PERMITTED) == 0);
    {
        char why[64];
        snprintf(why, sizeof why, "but rank %d cannot share memory by fabric handles", world_size - 1);
        expect_no_team(MPI_COMM_WORLD, MCOLL_ERR_UNSUPPORTED, why);
    }
    mcoll_contract_fail_clear();
    case_end("one clique over nodes, fabric handles not permitted on one rank: no team, that rank named");

    case_begin();
    mcoll_contract_set_cliques("");
    expect_no_team(MPI_COMM_WORLD, MCOLL_ERR_UNSUPPORTED, "no GPU fabric info on some rank");
    case_end("nodes without GPU fabric info: no team");
}

/* The model catches a team whose library takes the nodes for one and shares POSIX descriptors. */
static void case_model_refuses_descriptors(void)
{
    static const int same[] = {7, 7, 7, 7, 7, 7, 7, 7};
    mcoll_config config = team_config(MCOLL_OFF);
    mcoll_comm *mc = NULL;
    mcoll_result rc;

    case_begin();
    fake_nodes(0);
    mcoll_contract_set_node_size(node_size); /* the model's nodes only */
    mcoll_contract_set_cliques(cliques(same, 1));
    use_fabric(0);
    mcoll_contract_set_quiet(1);
    rc = mcoll_comm_create(MPI_COMM_WORLD, &config, &mc);
    CHECK(rc != MCOLL_SUCCESS && mc == NULL);
    CHECK(all_ranks(mcoll_contract_violations_matching("does not cross nodes") > 0));
    CHECK(mcoll_contract_live_objects() == 0);
    if (mc) mcoll_comm_destroy(mc);
    mcoll_contract_reset();
    mcoll_contract_set_quiet(0);
    use_fabric(1);
    mcoll_contract_set_node_size(0);
    case_end("model: POSIX descriptors shared across nodes by a library that does not know them are refused");
}

int main(int argc, char **argv)
{
    int rc;
    setenv("MCOLL_DEBUG", "INFO", 1);
    rc = team_test_start(&argc, &argv, "mpi_team_span");
    if (rc) return rc == 77 ? 77 : 1;
    if (world_size < 4 || world_size % 2) {
        if (world_rank == 0) printf("skip: mpi_team_span needs an even number of ranks, at least 4\n");
        MPI_Finalize();
        return 77;
    }
    node_size = world_size / 2;
    case_one_clique(MCOLL_TRISTATE_AUTO, "one clique over two nodes: fabric handles, multicast (modelled) over the nodes");
    case_one_clique(MCOLL_OFF, "one clique over two nodes, multicast off: unicast engine, fabric handles");
    case_memory();
    case_cliques_differ();
    case_without_fabric();
    case_model_refuses_descriptors();
    fake_nodes(0);
    rc = team_test_exit("mpi_team_span");
    MPI_Finalize();
    return rc;
}
