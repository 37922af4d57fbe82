/* Grouping ranks into NVLink domains (see domains.h). */
#include <stdlib.h>
#include "domains.h"

typedef struct {
    int64_t key;
    int rank;
} keyed;

static int by_key_then_rank(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return x->rank - y->rank;
}

/* leader[i] = the lowest rank with the same key as rank i. */
static void group_by_key(keyed *k, int n, int *leader)
{
    int i, first = 0;
    qsort(k, (size_t)n, sizeof *k, by_key_then_rank);
    for (i = 0; i < n; i++) {
        if (i > 0 && k[i].key != k[i - 1].key) first = i;
        leader[k[i].rank] = k[first].rank;
    }
}

/* Every rank of a node reports the node's key; -1 when some rank has none, -2 when they differ. */
static int64_t fabric_of_nodes(const mcoll_domain_facts *f, int n)
{
    int64_t seen = 0;
    int i, j;
    for (i = 0; i < n; i++) {
        if (f[i].fabric < 0) return -1;
        for (j = (int)f[i].node; j < i; j++)
            if (f[j].node == f[i].node && f[j].fabric != f[i].fabric) return -2;
        seen = 1;
    }
    return seen;
}

mcoll_domain_kind mcoll_domains_group(const mcoll_domain_facts *f, int n, int *leader, const char **fallback)
{
    keyed *k = malloc((size_t)(n > 0 ? n : 1) * sizeof *k);
    mcoll_domain_kind kind = MCOLL_DOMAINS_NODE;
    int64_t split = f[0].domain_size, fabric;
    int i, any_fabric = 0;

    *fallback = NULL;
    for (i = 0; i < n; i++) {
        if (f[i].domain_size != split) split = -1;
        any_fabric |= f[i].fabric >= 0;
    }
    if (split < 0) {
        *fallback = "ranks disagree on MCOLL_DOMAIN_SIZE";
    } else if (split > 0) {
        kind = MCOLL_DOMAINS_SPLIT;
    } else if (any_fabric) {
        /* The check is O(ranks x ranks per node), done once per communicator. */
        fabric = fabric_of_nodes(f, n);
        if (fabric > 0) kind = MCOLL_DOMAINS_CLIQUE;
        else *fallback = fabric == -2 ? "GPU fabric info differs between ranks of one node"
                                      : "GPU fabric info on some ranks only";
    }
    if (!k) { /* no memory: the node is the domain */
        for (i = 0; i < n; i++) leader[i] = (int)f[i].node;
        return MCOLL_DOMAINS_NODE;
    }
    for (i = 0; i < n; i++) {
        k[i].rank = i;
        /* Nodes are numbered by their lowest rank (< 2^31), cut into groups of `split` ranks. */
        if (kind == MCOLL_DOMAINS_SPLIT) k[i].key = (f[i].node << 24) + f[i].node_rank / split;
        else if (kind == MCOLL_DOMAINS_CLIQUE) k[i].key = f[i].fabric;
        else k[i].key = f[i].node;
    }
    group_by_key(k, n, leader);
    free(k);
    return kind;
}

const char *mcoll_domain_kind_name(mcoll_domain_kind kind)
{
    return kind == MCOLL_DOMAINS_SPLIT ? "MCOLL_DOMAIN_SIZE" : kind == MCOLL_DOMAINS_CLIQUE ? "NVLink clique" : "node";
}
