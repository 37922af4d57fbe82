/* Grouping ranks into NVLink domains (src/hier/domains.h) from what every rank reports: nodes,
 * MCOLL_DOMAIN_SIZE splits (last group smaller), NVLink cliques that span nodes, and the
 * fallbacks to the node when ranks disagree (settings, fabric info that differs on one node or
 * exists on some ranks only). */
#include <string.h>
#include "domains.h"
#include "unit.h"

#define MAX 16

/* n ranks on nodes of `per_node` consecutive ranks, each with its fabric key and setting. */
static void facts(mcoll_domain_facts *f, int n, int per_node, const int64_t *fabric, int64_t split)
{
    int i;
    for (i = 0; i < n; i++) {
        f[i].node = i / per_node * per_node;
        f[i].node_rank = i % per_node;
        f[i].fabric = fabric ? fabric[i] : -1;
        f[i].domain_size = split;
    }
}

static int same(const int *a, const int *b, int n) { return !memcmp(a, b, (size_t)n * sizeof(int)); }

int main(void)
{
    mcoll_domain_facts f[MAX];
    int leader[MAX];
    const char *why;

    /* Nodes: 8 ranks, 4 per node. */
    {
        static const int want[] = {0, 0, 0, 0, 4, 4, 4, 4};
        facts(f, 8, 4, NULL, 0);
        CHECK(mcoll_domains_group(f, 8, leader, &why) == MCOLL_DOMAINS_NODE);
        CHECK(why == NULL && same(leader, want, 8));
    }
    /* MCOLL_DOMAIN_SIZE=2 and =3 cut each node, the last group smaller. */
    {
        static const int two[] = {0, 0, 2, 2, 4, 4, 6, 6}, three[] = {0, 0, 0, 3, 4, 4, 4, 7};
        facts(f, 8, 4, NULL, 2);
        CHECK(mcoll_domains_group(f, 8, leader, &why) == MCOLL_DOMAINS_SPLIT && why == NULL);
        CHECK(same(leader, two, 8));
        facts(f, 8, 4, NULL, 3);
        CHECK(mcoll_domains_group(f, 8, leader, &why) == MCOLL_DOMAINS_SPLIT);
        CHECK(same(leader, three, 8));
        facts(f, 4, 4, NULL, 1);
        CHECK(mcoll_domains_group(f, 4, leader, &why) == MCOLL_DOMAINS_SPLIT);
        CHECK(leader[0] == 0 && leader[1] == 1 && leader[2] == 2 && leader[3] == 3);
    }
    /* Ranks disagree on the setting: every rank sees it and takes the node. */
    {
        static const int want[] = {0, 0, 0, 0};
        facts(f, 4, 4, NULL, 2);
        f[3].domain_size = 3;
        CHECK(mcoll_domains_group(f, 4, leader, &why) == MCOLL_DOMAINS_NODE);
        CHECK(why && strstr(why, "MCOLL_DOMAIN_SIZE") && same(leader, want, 4));
    }
    /* Cliques across nodes: 8 ranks on 4 nodes of 2, nodes {0,1} and {2,3} in two cliques. */
    {
        static const int64_t cliques[] = {11, 11, 11, 11, 22, 22, 22, 22};
        static const int want[] = {0, 0, 0, 0, 4, 4, 4, 4};
        facts(f, 8, 2, cliques, 0);
        CHECK(mcoll_domains_group(f, 8, leader, &why) == MCOLL_DOMAINS_CLIQUE && why == NULL);
        CHECK(same(leader, want, 8));
    }
    /* Interleaved nodes of one clique: domains need not be ranges of ranks. */
    {
        static const int64_t cliques[] = {5, 9, 5, 9, 5, 9};
        static const int want[] = {0, 1, 0, 1, 0, 1};
        int i;
        facts(f, 6, 1, cliques, 0);
        for (i = 0; i < 6; i++) f[i].node = i; /* one rank per node */
        CHECK(mcoll_domains_group(f, 6, leader, &why) == MCOLL_DOMAINS_CLIQUE);
        CHECK(same(leader, want, 6));
    }
    /* The setting wins over cliques (a testing aid that must do what it says). */
    {
        static const int64_t cliques[] = {11, 11, 11, 11};
        facts(f, 4, 4, cliques, 2);
        CHECK(mcoll_domains_group(f, 4, leader, &why) == MCOLL_DOMAINS_SPLIT);
    }
    /* Fabric info that differs between ranks of one node, or exists on some ranks only: nodes. */
    {
        static const int64_t differ[] = {11, 11, 22, 22, 33, 33, 33, 33};
        static const int64_t partial[] = {11, 11, 11, 11, -1, -1, -1, -1};
        static const int want[] = {0, 0, 0, 0, 4, 4, 4, 4};
        facts(f, 8, 4, differ, 0);
        CHECK(mcoll_domains_group(f, 8, leader, &why) == MCOLL_DOMAINS_NODE);
        CHECK(why && strstr(why, "differs") && same(leader, want, 8));
        facts(f, 8, 4, partial, 0);
        CHECK(mcoll_domains_group(f, 8, leader, &why) == MCOLL_DOMAINS_NODE);
        CHECK(why && strstr(why, "some ranks") && same(leader, want, 8));
    }
    CHECK(!strcmp(mcoll_domain_kind_name(MCOLL_DOMAINS_CLIQUE), "NVLink clique"));
    return unit_exit("test_domains");
}
