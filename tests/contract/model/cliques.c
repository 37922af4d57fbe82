/* NVLink cliques of the modelled devices: what NVML's GPU fabric info would say of each
 * (cluster UUID, clique id), installed in place of NVML with the driver table, so the grouping
 * of ranks into NVLink domains runs in CPU tests.
 *
 * MCOLL_CONTRACT_CLIQUE (or mcoll_contract_set_cliques) lists one entry per device, comma
 * separated: "cluster:clique" (two numbers; cluster 0 means no cluster, as NVML reports a GPU
 * outside any fabric) or "-" for a device whose fabric registration is not complete. Devices
 * past the list, and every device when the list is empty, have no fabric info (the default).
 * With modelled nodes (MCOLL_CONTRACT_NODE_SIZE) the lists of nodes 0, 1, ... follow one
 * another separated by ';' ("1:7,1:7;1:8,1:8"); a list without ';' is every node's. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model.h"

static char spec[1024];
static int spec_read;

void mcoll_contract_set_cliques(const char *text)
{
    snprintf(spec, sizeof spec, "%s", text ? text : "");
    spec_read = 1;
}

/* The entry of `device` of `node` in the list, or NULL. */
static const char *entry(int node, int device)
{
    const char *p = spec;
    int i;
    if (!spec_read) mcoll_contract_set_cliques(getenv("MCOLL_CONTRACT_CLIQUE"));
    /* One list per node when there are several; a list alone is every node's. */
    if (strchr(spec, ';'))
        for (i = 0; *p && i < node; p++)
            if (*p == ';') i++;
    for (i = 0; *p && *p != ';' && i < device; p++)
        if (*p == ',') i++;
    return *p && *p != ';' && i == device ? p : NULL;
}

int mcoll_contract_fabric_query(const char *bus_id, mcoll_fabric_info *info)
{
    unsigned domain = 0, bus = 0, cluster = 0, clique = 0;
    const char *e;
    int device;
    if (!bus_id || sscanf(bus_id, "%x:%x", &domain, &bus) != 2 || bus < 0x18) return 0;
    device = (int)((bus - 0x18) / 0x10); /* the modelled bus ids (config.c) */
    e = entry(mcoll_contract_node(), device);
    if (!e || sscanf(e, "%u:%u", &cluster, &clique) != 2) return 0;
    memset(info, 0, sizeof *info);
    memcpy(info->cluster_uuid, &cluster, sizeof cluster);
    info->clique_id = clique;
    return 1;
}
