/* NVLink fabric membership of a GPU: NVML's GPU fabric info (cluster UUID and clique id), which
 * says which GPUs of a multi-node NVLink system (GB200 NVL72 and the like) share one NVLink
 * domain. libnvidia-ml.so.1 is opened at run time (nothing links it); where it, the entry point
 * or a completed fabric registration is missing, the GPU has no fabric key and the node is its
 * domain. Tests install a model of the query instead (the contract driver's cliques). */
#ifndef MCOLL_FABRIC_H
#define MCOLL_FABRIC_H

#include <stdint.h>

/* What NVML says of one GPU, in the form the grouping uses. */
typedef struct {
    unsigned char cluster_uuid[16];
    unsigned clique_id;
} mcoll_fabric_info;

/* Fills *info and returns 1 when the GPU with this PCI bus id ("0000:41:00.0") has completed
 * its fabric registration; 0 otherwise. */
typedef int (*mcoll_fabric_query_fn)(const char *pci_bus_id, mcoll_fabric_info *info);

/* Replace the NVML query (before the first communicator is used; NULL restores NVML). */
void mcoll_fabric_install(mcoll_fabric_query_fn query);

/* The fabric key of CUDA device `device`: a non-negative 63-bit hash of its cluster UUID and
 * clique id, equal for GPUs of one clique; -1 when there is none. */
int64_t mcoll_fabric_key(int device);

#endif /* MCOLL_FABRIC_H */
