/* NVLink domains: how a communicator's ranks group into domains, computed from what every rank
 * reports about itself. Pure arithmetic on one table that every rank holds alike (one
 * allgather, hier_learn.c), so every rank computes the same grouping, and a disagreement
 * (different settings, fabric info that differs on one node) is seen by all of them and ends in
 * the same fallback: the node is the domain.
 *
 * Rules, in order:
 *   - MCOLL_DOMAIN_SIZE=k on every rank (testing aid): each node's ranks, in rank order, are
 *     cut into domains of k consecutive ranks (the last one may be smaller);
 *   - every rank has a fabric key (NVML clique) and every node's ranks have the same one: ranks
 *     of one clique form a domain, across nodes;
 *   - otherwise the node is the domain. */
#ifndef MCOLL_DOMAINS_H
#define MCOLL_DOMAINS_H

#include <stdint.h>

/* What one rank reports. */
typedef struct {
    int64_t node;        /* the lowest rank of its node (src/team/nodes.h) */
    int64_t node_rank;   /* its rank on the node */
    int64_t fabric;      /* its GPU's fabric key (fabric.h), -1 none */
    int64_t domain_size; /* its MCOLL_DOMAIN_SIZE (0: unset) */
} mcoll_domain_facts;

typedef enum { MCOLL_DOMAINS_NODE, MCOLL_DOMAINS_SPLIT, MCOLL_DOMAINS_CLIQUE } mcoll_domain_kind;

/* leader[i] = the lowest rank of rank i's domain, for the n ranks of `facts`. Returns how the
 * domains were formed; *fallback is set to why a grouping asked for (a setting, fabric info)
 * was not used, NULL when nothing was refused. */
mcoll_domain_kind mcoll_domains_group(const mcoll_domain_facts *facts, int n, int *leader, const char **fallback);

/* "node", "MCOLL_DOMAIN_SIZE", "NVLink clique". */
const char *mcoll_domain_kind_name(mcoll_domain_kind kind);

#endif /* MCOLL_DOMAINS_H */
