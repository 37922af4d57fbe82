/* Learning a communicator's domains once, and the record that keeps them (see hier.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "config.h"
#include "fabric.h"
#include "hier_op.h"
#include "log.h"
#include "nodes.h"

/* The GPU this rank will use, as the engines pick it: the current context's, else node rank
 * modulo the GPUs (see src/team/team.c). -1 without a driver. */
static int likely_device(int node_rank)
{
    CUcontext cur = NULL;
    CUdevice dev;
    int count = 0;
    if (!mcoll_driver_available()) return -1;
    if (mcoll_cu.cuCtxGetCurrent(&cur) == CUDA_SUCCESS && cur && mcoll_cu.cuCtxGetDevice(&dev) == CUDA_SUCCESS)
        return (int)dev;
    if (mcoll_cu.cuDeviceGetCount(&count) != CUDA_SUCCESS || count < 1) return -1;
    return node_rank % count;
}

/* This rank's facts: its node (lowest rank there; fake nodes included, nodes.h), rank on it,
 * fabric key and setting. */
static int my_facts(MPI_Comm comm, mcoll_domain_facts *mine, int *node_size)
{
    mcoll_node_place place;
    int ok = mcoll_node_place_of(comm, &place), device;
    *node_size = place.size;
    mine->node = place.leader;
    mine->node_rank = place.rank;
    mine->domain_size = mcoll_settings_get()->domain_size;
    device = mine->domain_size ? -1 : likely_device(place.rank);
    mine->fabric = device >= 0 ? mcoll_fabric_key(device) : -1;
    return ok;
}

/* Nodes among the facts (each node is named by its lowest rank). */
static int count_nodes(const mcoll_domain_facts *all, int size)
{
    int r, nodes = 0;
    for (r = 0; r < size; r++) nodes += all[r].node == r;
    return nodes;
}

/* Domains numbered by their lowest rank, the maps of rank <-> (domain, local rank). */
static int fill_maps(mcoll_hier *h, const int *leader)
{
    int n = h->size, r, d;
    int *index_of_leader = calloc((size_t)n, sizeof(int));
    h->domain_of = calloc((size_t)n, sizeof(int));
    h->local_of = calloc((size_t)n, sizeof(int));
    h->rank_at = calloc((size_t)n, sizeof(int));
    h->domain_size = calloc((size_t)n, sizeof(int));
    h->domain_first = calloc((size_t)n + 1, sizeof(int));
    if (!index_of_leader || !h->domain_of || !h->local_of || !h->rank_at || !h->domain_size || !h->domain_first) {
        free(index_of_leader);
        return 0;
    }
    h->domains = 0;
    for (r = 0; r < n; r++)
        if (leader[r] == r) index_of_leader[r] = h->domains++;
    for (r = 0; r < n; r++) {
        d = index_of_leader[leader[r]];
        h->domain_of[r] = d;
        h->local_of[r] = h->domain_size[d]++;
    }
    for (d = 0; d < h->domains; d++) h->domain_first[d + 1] = h->domain_first[d] + h->domain_size[d];
    for (r = 0; r < n; r++) h->rank_at[h->domain_first[h->domain_of[r]] + h->local_of[r]] = r;
    h->smallest = n;
    h->largest = 0;
    for (d = 0; d < h->domains; d++) {
        if (h->domain_size[d] < h->smallest) h->smallest = h->domain_size[d];
        if (h->domain_size[d] > h->largest) h->largest = h->domain_size[d];
    }
    h->my_domain = h->domain_of[h->rank];
    h->local_rank = h->local_of[h->rank];
    h->local_size = h->domain_size[h->my_domain];
    h->equal = h->smallest == h->largest;
    free(index_of_leader);
    h->local_major = calloc((size_t)n, sizeof(int));
    if (!h->local_major) return 0;
    for (r = 0; r < n; r++) h->local_major[r] = h->local_of[r] * h->domains + h->domain_of[r];
    return 1;
}

/* The domain's communicator and the one between domains (see hier_internal.h). */
static int split(mcoll_hier *h, MPI_Comm comm, const int *leader)
{
    int color = h->equal ? h->local_rank : h->local_rank == 0 ? 0 : MPI_UNDEFINED;
    if (PMPI_Comm_split(comm, leader[h->rank], h->rank, &h->domain) != MPI_SUCCESS) return 0;
    return PMPI_Comm_split(comm, color, h->my_domain, &h->cross) == MPI_SUCCESS;
}

static void describe(mcoll_hier *h)
{
    if (h->equal)
        snprintf(h->text, sizeof h->text, "%d ranks in %d domains of %d (%s)", h->size, h->domains, h->largest,
                 mcoll_domain_kind_name(h->kind));
    else
        snprintf(h->text, sizeof h->text, "%d ranks in %d domains of %d to %d (%s)", h->size, h->domains,
                 h->smallest, h->largest, mcoll_domain_kind_name(h->kind));
}

int mcoll_hier_learn(MPI_Comm comm, mcoll_hier **out)
{
    mcoll_domain_facts mine, *all = NULL;
    mcoll_hier *h = NULL;
    int *leader = NULL, size, rank, node_size = 0, ok, node_local, one_domain, agreed[8];
    const char *fallback = NULL;

    *out = NULL;
    PMPI_Comm_size(comm, &size);
    PMPI_Comm_rank(comm, &rank);
    ok = my_facts(comm, &mine, &node_size);
    node_local = ok && node_size == size;
    one_domain = node_local; /* unless the grouping below finds otherwise */
    /* Every rank learns every rank's facts: the grouping below is then the same everywhere,
     * disagreements included. A failure anywhere leaves the node as the only grouping known. */
    all = malloc((size_t)size * sizeof *all);
    leader = malloc((size_t)size * sizeof *leader);
    ok = ok && all && leader;
    /* One allreduce: did every rank get this far, do all run the same MCOLL_HIER (the steps
     * inside a domain must be made alike on its ranks), do all take nonblocking calls on the
     * hierarchy (MCOLL_HIER_NONBLOCKING) and reduce between domains on the GPU
     * (MCOLL_HIER_GPU_REDUCE: which MPI calls a step makes), and could the ranks be more than one
     * domain (several nodes, a setting, fabric info)? One node with neither is one domain, and
     * needs no allgather. */
    agreed[0] = !ok;
    agreed[1] = (int)mcoll_settings_get()->hier;
    agreed[2] = -agreed[1];
    agreed[3] = !node_local || mine.domain_size != 0 || mine.fabric >= 0;
    agreed[4] = !mcoll_settings_get()->hier_nonblocking; /* on where every rank has it on */
    agreed[5] = !agreed[4];
    agreed[6] = !mcoll_settings_get()->hier_gpu_reduce;
    agreed[7] = !agreed[6];
    if (PMPI_Allreduce(MPI_IN_PLACE, agreed, 8, MPI_INT, MPI_MAX, comm) != MPI_SUCCESS || agreed[0] || !agreed[3] ||
        PMPI_Allgather(&mine, 4, MPI_INT64_T, all, 4, MPI_INT64_T, comm) != MPI_SUCCESS)
        goto none;
    if (agreed[1] != -agreed[2]) {
        if (rank == 0) MCOLL_WARN("communicator of %d ranks: ranks disagree on MCOLL_HIER; its NVLink domains are its nodes", size);
        goto none;
    }
    h = calloc(1, sizeof *h);
    if (!h) goto none; /* the same on every rank only by luck: then the rest is staged */
    h->rank = rank;
    h->size = size;
    h->nonblocking = !agreed[4];
    h->gpu_reduce = !agreed[6];
    if (agreed[4] && agreed[5] && rank == 0)
        MCOLL_WARN("communicator of %d ranks: ranks disagree on MCOLL_HIER_NONBLOCKING; its nonblocking calls are staged",
                   size);
    if (agreed[6] && agreed[7] && rank == 0)
        MCOLL_WARN("communicator of %d ranks: ranks disagree on MCOLL_HIER_GPU_REDUCE; the MPI reduces between its "
                   "domains", size);
    h->domain = h->cross = MPI_COMM_NULL;
    h->kind = mcoll_domains_group(all, size, leader, &fallback);
    if (fallback && rank == 0)
        MCOLL_WARN("communicator of %d ranks: %s; its NVLink domains are its nodes", size, fallback);
    if (!fill_maps(h, leader)) goto none;
    if (h->domains < 2) {
        /* One NVLink clique over several nodes: one domain, whose team spans the nodes. */
        if (!node_local && h->kind == MCOLL_DOMAINS_CLIQUE) {
            one_domain = 1;
            if (rank == 0)
                MCOLL_INFO("communicator of %d ranks on %d nodes: one NVLink domain (NVLink clique)", size,
                           count_nodes(all, size));
        }
        goto none;
    }
    if (!split(h, comm, leader)) goto none;
    one_domain = 0;
    describe(h);
    if (rank == 0) MCOLL_INFO("communicator of %s", h->text);
    free(all);
    free(leader);
    *out = h;
    return one_domain;
none:
    mcoll_hier_free(h);
    free(all);
    free(leader);
    return one_domain;
}

void mcoll_hier_free(mcoll_hier *h)
{
    if (!h) return;
    hier_ops_drain(h);
    if (h->engine) mcoll_comm_destroy(h->engine);
    hier_free_memory(h);
    if (h->cross != MPI_COMM_NULL) PMPI_Comm_free(&h->cross);
    if (h->domain != MPI_COMM_NULL) PMPI_Comm_free(&h->domain);
    free(h->domain_of);
    free(h->local_of);
    free(h->domain_size);
    free(h->domain_first);
    free(h->rank_at);
    free(h->local_major);
    free(h);
}

int mcoll_hier_engine_built(mcoll_hier *h)
{
    if (!h || !h->engine || h->engine_reported) return 0;
    h->engine_reported = 1;
    return 1;
}

int mcoll_hier_nonblocking(const mcoll_hier *h) { return h && h->nonblocking; }

int mcoll_hier_useful(const mcoll_hier *h) { return h && h->largest >= 2; }

void mcoll_hier_times_take(mcoll_hier *h, int reset, mcoll_hier_times_t *times)
{
    *times = h->times;
    if (reset) memset(&h->times, 0, sizeof h->times);
}

const char *mcoll_hier_describe(const mcoll_hier *h) { return h ? h->text : "one domain"; }
