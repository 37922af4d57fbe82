/* A communicator's NVLink domains as the plug-in learns them (src/hier/hier_learn.c), under
 * mpirun on one node, with NVML's fabric info modelled by the contract driver (cliques per
 * device, model/cliques.c) and MCOLL_DOMAIN_SIZE set per case: one clique on the node (one
 * domain), cliques that differ on the node or exist on some ranks only (a warning, the node),
 * simulated domains of 2 and 3 ranks (equal and unequal, the sub-communicators), and ranks that
 * disagree on the setting or on MCOLL_HIER (a warning, the node); and fake nodes (MCOLL_TEST_NODE_SIZE,
 * the model's nodes alike): nodes without fabric info, one clique over the nodes (one domain),
 * a clique per node, cliques of two nodes each (domains that span nodes). Every case ends in one
 * domain or a record, on every rank alike, never a hang. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "contract/model/contract.h"
#include "config.h"
#include "hier_internal.h"

static int rank, size, failures;

#define EXPECT(cond, ...)                                                                     \
    do {                                                                                      \
        if (!(cond)) {                                                                        \
            fprintf(stderr, "rank %d: FAIL %s:%d: ", rank, __FILE__, __LINE__);               \
            fprintf(stderr, __VA_ARGS__);                                                     \
            fprintf(stderr, "\n");                                                            \
            failures++;                                                                       \
        }                                                                                     \
    } while (0)

/* Learn MPI_COMM_WORLD's domains with this setting and these cliques. */
static mcoll_hier *learn(const char *domain_size, const char *cliques, int *one_domain)
{
    mcoll_hier *h = NULL;
    if (domain_size) setenv("MCOLL_DOMAIN_SIZE", domain_size, 1);
    else unsetenv("MCOLL_DOMAIN_SIZE");
    mcoll_settings_reload();
    mcoll_contract_set_cliques(cliques);
    *one_domain = mcoll_hier_learn(MPI_COMM_WORLD, &h);
    return h;
}

/* Fake nodes of k world ranks, for the library (MCOLL_TEST_NODE_SIZE, read by learn's reload)
 * and for the model alike (0: the one real node). */
static void fake_nodes(int k)
{
    char text[8];
    snprintf(text, sizeof text, "%d", k);
    if (k) setenv("MCOLL_TEST_NODE_SIZE", text, 1);
    else unsetenv("MCOLL_TEST_NODE_SIZE");
    mcoll_contract_set_node_size(k);
}

/* A clique list for modelled nodes: node i's 8 devices all in clique ids[i] of cluster 1. */
static const char *per_node(const int *ids, int nodes)
{
    static char text[512];
    size_t used = 0;
    int i, d;
    for (i = 0; i < nodes; i++)
        for (d = 0; d < 8; d++)
            used += (size_t)snprintf(text + used, sizeof text - used, "%s1:%d", d ? "," : i ? ";" : "", ids[i]);
    return text;
}

static int cross_size(const mcoll_hier *h)
{
    int n = 0;
    if (h->cross != MPI_COMM_NULL) MPI_Comm_size(h->cross, &n);
    return n;
}

int main(int argc, char **argv)
{
    mcoll_hier *h;
    int one_domain;
    CUcontext ctx;
    CUdevice dev;
    const mcoll_driver *cu;
    char mine[8];

    mcoll_contract_install();
    cu = mcoll_contract_driver();
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    cu->cuDeviceGet(&dev, rank % 8);
    cu->cuDevicePrimaryCtxRetain(&ctx, dev);
    cu->cuCtxSetCurrent(ctx); /* the device each rank's fabric info is asked of */

    h = learn(NULL, "", &one_domain);
    EXPECT(one_domain == 1 && h == NULL, "no fabric info, no setting: the node is one domain");

    h = learn(NULL, "1:7,1:7,1:7,1:7,1:7,1:7,1:7,1:7", &one_domain);
    EXPECT(one_domain == 1 && h == NULL, "one clique over the node: one domain");

    h = learn(NULL, "1:7,1:7,1:8,1:8,1:8,1:8,1:8,1:8", &one_domain);
    EXPECT(h == NULL, "cliques that differ on one node: the node is the domain");
    if (rank == 0)
        EXPECT(strstr(mcoll_last_warning(), "differs between ranks of one node") != NULL,
               "no warning for differing fabric info: '%s'", mcoll_last_warning());

    h = learn(NULL, "1:7,1:7,-,-,-,-,-,-", &one_domain);
    EXPECT(h == NULL, "fabric info on some ranks only: the node is the domain");
    if (rank == 0)
        EXPECT(strstr(mcoll_last_warning(), "on some ranks only") != NULL, "no warning: '%s'", mcoll_last_warning());

    h = learn(NULL, "0:7,0:7,0:7,0:7,0:7,0:7,0:7,0:7", &one_domain);
    EXPECT(h == NULL, "GPUs outside any NVLink cluster (zero UUID): the node");

    h = learn("2", "", &one_domain);
    EXPECT(one_domain == 0 && h != NULL, "MCOLL_DOMAIN_SIZE=2: a record");
    if (h) {
        EXPECT(h->domains == (size + 1) / 2 && h->my_domain == rank / 2 && h->local_rank == rank % 2,
               "domains %d, mine %d, local rank %d", h->domains, h->my_domain, h->local_rank);
        EXPECT(h->equal == (size % 2 == 0), "equal %d", h->equal);
        if (h->equal) EXPECT(cross_size(h) == size / 2, "cross communicator of %d ranks", cross_size(h));
        EXPECT(h->kind == MCOLL_DOMAINS_SPLIT && mcoll_hier_useful(h), "kind %d", (int)h->kind);
        mcoll_hier_free(h);
    }

    h = learn("3", "1:7,1:7,1:7,1:7,1:7,1:7,1:7,1:7", &one_domain);
    EXPECT(h != NULL, "MCOLL_DOMAIN_SIZE=3: a record (the setting wins over the clique)");
    if (h && size == 4) {
        EXPECT(!h->equal && h->smallest == 1 && h->largest == 3, "sizes %d..%d", h->smallest, h->largest);
        EXPECT(h->local_size == (rank < 3 ? 3 : 1), "local size %d", h->local_size);
        /* Unequal domains: the first rank of each domain is in the cross communicator. */
        EXPECT(cross_size(h) == (rank == 0 || rank == 3 ? 2 : 0), "cross communicator of %d", cross_size(h));
        EXPECT(h->rank_at[h->domain_first[1]] == 3, "domain 1 starts at rank %d", h->rank_at[h->domain_first[1]]);
    }
    mcoll_hier_free(h);

    /* Ranks disagree: rank 0 asks for 2, the others for 3. */
    snprintf(mine, sizeof mine, "%d", rank == 0 ? 2 : 3);
    h = learn(mine, "", &one_domain);
    EXPECT(h == NULL && one_domain == 1, "ranks disagreeing on MCOLL_DOMAIN_SIZE: the node");
    if (rank == 0)
        EXPECT(strstr(mcoll_last_warning(), "disagree on MCOLL_DOMAIN_SIZE") != NULL, "no warning: '%s'",
               mcoll_last_warning());

    /* Nodes (fake ones: MCOLL_TEST_NODE_SIZE), at 4 ranks. */
    if (size == 4) {
        static const int same[] = {7, 7, 7, 7}, by_node[] = {7, 8}, by_pair[] = {7, 7, 8, 8};
        fake_nodes(2);
        h = learn(NULL, "", &one_domain);
        EXPECT(one_domain == 0 && h && h->domains == 2 && h->kind == MCOLL_DOMAINS_NODE && h->my_domain == rank / 2,
               "two nodes without fabric info: the nodes are the domains");
        mcoll_hier_free(h);
        h = learn(NULL, per_node(same, 1), &one_domain);
        EXPECT(one_domain == 1 && h == NULL, "two nodes of one NVLink clique: one domain across them");
        h = learn(NULL, per_node(by_node, 2), &one_domain);
        EXPECT(one_domain == 0 && h && h->domains == 2 && h->kind == MCOLL_DOMAINS_CLIQUE && h->my_domain == rank / 2,
               "a clique per node: the cliques are the domains");
        mcoll_hier_free(h);
        h = learn(NULL, "1:7,1:8,1:7,1:7,1:7,1:7,1:7,1:7;1:7,1:7,1:7,1:7,1:7,1:7,1:7,1:7", &one_domain);
        EXPECT(one_domain == 0 && h && h->kind == MCOLL_DOMAINS_NODE && h->domains == 2,
               "cliques that differ on one node: the nodes are the domains");
        mcoll_hier_free(h);
        /* Every rank a node; two cliques of two nodes each: domains that span nodes. */
        fake_nodes(1);
        h = learn(NULL, per_node(by_pair, 4), &one_domain);
        EXPECT(one_domain == 0 && h && h->domains == 2 && h->equal && h->kind == MCOLL_DOMAINS_CLIQUE &&
                   h->my_domain == rank / 2 && h->local_rank == rank % 2,
               "cliques of two nodes each: two domains of 2");
        if (h) EXPECT(cross_size(h) == 2, "cross communicator of %d", cross_size(h));
        mcoll_hier_free(h);
        h = learn(NULL, per_node(same, 4), &one_domain);
        EXPECT(one_domain == 1 && h == NULL, "four nodes of one NVLink clique: one domain");
        fake_nodes(0);
    }

    EXPECT(mcoll_contract_violations() == 0, "%d violations of the driver contract", mcoll_contract_violations());
    /* Ranks disagree on MCOLL_HIER: the node again, never a record some ranks lack. */
    setenv("MCOLL_HIER", rank == 0 ? "mpi" : "auto", 1);
    h = learn("2", "", &one_domain);
    EXPECT(h == NULL, "ranks disagreeing on MCOLL_HIER: the node");
    if (rank == 0)
        EXPECT(strstr(mcoll_last_warning(), "disagree on MCOLL_HIER") != NULL, "no warning: '%s'", mcoll_last_warning());
    unsetenv("MCOLL_HIER");
    mcoll_settings_reload();

    MPI_Allreduce(MPI_IN_PLACE, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    cu->cuDevicePrimaryCtxRelease(dev);
    if (rank == 0) printf("mpi_hier_domains: %s\n", failures ? "FAIL" : "PASS");
    return failures != 0;
}
