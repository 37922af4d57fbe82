/* The plug-in on communicators that span nodes, on "device" buffers of the contract driver, with
 * fake nodes (MCOLL_TEST_NODE_SIZE for the library, mcoll_contract_set_node_size for the model)
 * and NVML's cliques modelled per node:
 *   - one NVLink clique over two nodes: allreduce, bcast, reduce, allgather and
 *     reduce_scatter_block on device buffers are decided for the GPU engine (the decision as
 *     MPI_* makes it, mcoll_pmpi_prepare; no kernel is launched on the CPU), and the engine the
 *     plug-in builds for the communicator is one team over both nodes, on fabric handles;
 *   - cliques of two nodes each: the same calls take the hierarchical path over two domains of
 *     2 (NVLink clique), whose domain engine spans two nodes on fabric handles; with
 *     MCOLL_HIER=mpi every collective, root and an odd, multi-chunk count gives PMPI's result;
 *   - no fabric handles: one clique over nodes gets no engine (INFO) and its calls are staged;
 *     cliques of two nodes each are hierarchical with their steps inside the domains made
 *     through MPI; both give PMPI's results, with no broken rule of the driver.
 * Needs 4 ranks. */
#define _GNU_SOURCE
#include "comm_internal.h"
#include "config.h"
#include "contract/devmem.h"
#include "decide.h"
#include "engine.h"
#include "hier_internal.h"
#include "pmpi.h"

static int rank, size;

/* Fake nodes of k ranks for the library and the model alike, and the settings read again. */
static void fake_nodes(int k)
{
    char text[8];
    snprintf(text, sizeof text, "%d", k);
    setenv("MCOLL_TEST_NODE_SIZE", text, 1);
    mcoll_settings_reload();
    mcoll_contract_set_node_size(k);
}

/* Node n's 8 devices in clique ids[n] of cluster 1. */
static void cliques(const int *ids, int nodes)
{
    char text[1024];
    size_t used = 0;
    for (int n = 0; n < nodes; n++)
        for (int d = 0; d < 8; d++)
            used += (size_t)snprintf(text + used, sizeof text - used, "%s1:%d", d ? "," : n ? ";" : "", ids[n]);
    mcoll_contract_set_cliques(text);
}

static void set_hier(const char *mode)
{
    setenv("MCOLL_HIER", mode, 1);
    mcoll_settings_reload();
}

static void use_fabric(int on)
{
    mcoll_contract_set_attribute(-1, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED, on);
}

/* A fresh communicator: it learns its domains at its first collective. */
static MPI_Comm fresh(void)
{
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    return c;
}

/* The plug-in's decision for five collectives on device buffers of `n` floats (n per rank's
 * block for allgather and reduce_scatter_block): every one must take `path`. Returns the
 * communicator's record. */
static mcoll_comm_state *decide_five(MPI_Comm comm, mcoll_path path, const char *why, int n)
{
    float *send = d_alloc((size_t)n * (size_t)size * sizeof(float));
    float *recv = d_alloc((size_t)n * (size_t)size * sizeof(float));
    mcoll_call calls[5] = {
        {.coll = &mcoll_coll_allreduce, .sendbuf = send, .recvbuf = recv, .count = n, .type = MPI_FLOAT,
         .recvtype = MPI_FLOAT, .op = MPI_SUM, .comm = comm},
        {.coll = &mcoll_coll_bcast, .sendbuf = recv, .recvbuf = recv, .count = n, .type = MPI_FLOAT,
         .recvtype = MPI_FLOAT, .op = MPI_OP_NULL, .root = size - 1, .comm = comm},
        {.coll = &mcoll_coll_reduce, .sendbuf = send, .recvbuf = recv, .count = n, .type = MPI_FLOAT,
         .recvtype = MPI_FLOAT, .op = MPI_MAX, .root = 1, .comm = comm},
        {.coll = &mcoll_coll_allgather, .sendbuf = send, .recvbuf = recv, .count = n, .recvcount = n,
         .type = MPI_FLOAT, .recvtype = MPI_FLOAT, .op = MPI_OP_NULL, .comm = comm},
        {.coll = &mcoll_coll_reduce_scatter_block, .sendbuf = send, .recvbuf = recv, .count = n,
         .type = MPI_FLOAT, .recvtype = MPI_FLOAT, .op = MPI_SUM, .comm = comm},
    };
    mcoll_comm_state *cs = NULL;
    for (int k = 0; k < 5; k++) {
        mcoll_decision d;
        ct_checks++;
        if (mcoll_pmpi_prepare(&calls[k], &d) != MPI_SUCCESS || d.path != path || (why && !strstr(d.why, why)))
            CT_FAIL("%s of %d floats: path %d (%s), wanted %d (%s)", calls[k].coll->name, n, (int)d.path,
                    d.why ? d.why : "-", (int)path, why ? why : "any reason");
        cs = calls[k].cs;
    }
    d_release(send);
    d_release(recv);
    return cs;
}

/* The team of an engine: `ranks` ranks over `nodes` nodes, on fabric handles. */
static void check_engine(const mcoll_comm *e, int ranks, int nodes, const char *what)
{
    mcoll_comm_info_t info;
    ct_checks++;
    if (!e) {
        CT_FAIL("%s: no engine", what);
        return;
    }
    if (mcoll_comm_info(e, &info) != MCOLL_SUCCESS || info.team_size != ranks || e->team->nodes != nodes ||
        strcmp(info.handle_type, "fabric") != 0)
        CT_FAIL("%s: a team of %d ranks on %d nodes with %s handles, wanted %d on %d with fabric ones", what,
                info.team_size, e->team->nodes, info.handle_type, ranks, nodes);
}

/* Results against PMPI on host copies (colltest.h): every hierarchical collective, every root,
 * odd counts, one cut into several chunks of MCOLL_STAGE_CHUNK (64K here). */
static void check_results(MPI_Comm comm, const ct_type *t)
{
    static const int counts[] = {1, 7, 1001, (200 << 10) / 4 + 7};
    for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) {
        int n = counts[k];
        for (int in_place = 0; in_place < 2; in_place++) {
            ct_check(&device_mem, comm, CT_ALLREDUCE, t, MPI_SUM, "SUM", n, in_place, 0);
            ct_check(&device_mem, comm, CT_RSB, t, MPI_MAX, "MAX", n / 4 + 1, in_place, 0);
            ct_check(&device_mem, comm, CT_ALLGATHER, t, MPI_OP_NULL, "-", n / 4 + 1, in_place, 0);
            for (int root = 0; root < size; root++)
                ct_check(&device_mem, comm, CT_REDUCE, t, MPI_SUM, "SUM", n, in_place, root);
        }
        for (int root = 0; root < size; root++) ct_check(&device_mem, comm, CT_BCAST, t, MPI_OP_NULL, "-", n, 0, root);
    }
}

int main(int argc, char **argv)
{
    static const int one[] = {7}, pairs[] = {7, 7, 8, 8};
    ct_type types[64], *flt = NULL;
    mcoll_comm_state *cs;
    mcoll_comm *domain_engine = NULL;
    MPI_Comm comm;
    CUdevice dev;
    int ntypes;

    setenv("MCOLL_DEBUG", "INFO", 0);
    setenv("MCOLL_CUDA_AWARE", "0", 1);
    setenv("MCOLL_STAGE_CHUNK", "64K", 1);
    devmem_install();
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 4) {
        if (rank == 0) printf("skip: mpi_span needs 4 ranks\n");
        MPI_Finalize();
        return 77;
    }
    devmem_start(rank, &dev);
    (void)check_host; /* no PMPI hooks here: the staged path's own checks (mpi_staged) cover that */
    ntypes = ct_types(types);
    for (int t = 0; t < ntypes; t++)
        if (types[t].type == MPI_FLOAT) flt = &types[t];

    /* One clique over two nodes of two ranks: one domain, the engine's. */
    fake_nodes(2);
    cliques(one, 1);
    comm = fresh();
    cs = decide_five(comm, MCOLL_PATH_ENGINE, "device buffers", 1000);
    if (cs && cs->one_domain != 1) CT_FAIL("one clique over two nodes is not one domain");
    check_engine(cs ? mcoll_engine_of(cs) : NULL, size, 2, "the communicator's engine");
    MPI_Comm_free(&comm);
    checkpoint();

    /* Every rank a node, cliques of two: two domains that span nodes. */
    fake_nodes(1);
    cliques(pairs, 4);
    set_hier("mpi");
    comm = fresh();
    cs = decide_five(comm, MCOLL_PATH_HIER, "2 domains of 2 (NVLink clique)", 1000);
    if (cs && cs->hier) {
        /* The engine a domain builds for its steps (under MCOLL_HIER=auto) spans its two nodes. */
        if (mcoll_comm_create(cs->hier->domain, NULL, &domain_engine) != MCOLL_SUCCESS) domain_engine = NULL;
        check_engine(domain_engine, 2, 2, "a domain's engine");
        if (domain_engine) mcoll_comm_destroy(domain_engine);
    }
    if (flt) check_results(comm, flt);
    MPI_Comm_free(&comm);
    checkpoint();

    /* Without fabric handles: no team over nodes, and the calls still right. */
    use_fabric(0);
    set_hier("auto");
    comm = fresh(); /* cliques of two nodes each: domain steps through MPI */
    cs = decide_five(comm, MCOLL_PATH_HIER, "(NVLink clique)", 1000);
    if (flt) check_results(comm, flt);
    if (cs && cs->hier && (!cs->hier->engine_tried || cs->hier->engine))
        CT_FAIL("a domain over two nodes without fabric handles has an engine");
    MPI_Comm_free(&comm);
    fake_nodes(2);
    cliques(one, 1);
    comm = fresh(); /* one clique over two nodes: staged */
    cs = decide_five(comm, MCOLL_PATH_ENGINE, "device buffers", 1000);
    if (cs && mcoll_engine_of(cs)) CT_FAIL("an engine over two nodes without fabric handles");
    if (flt) check_results(comm, flt);
    MPI_Comm_free(&comm);
    use_fabric(1);
    checkpoint();

    unsetenv("MCOLL_TEST_NODE_SIZE");
    mcoll_settings_reload();
    mcoll_contract_set_node_size(0);
    return devmem_finish("mpi_span", dev);
}
