/* Peer names; see peers.h. */
#include "peers.h"

#include <string.h>

static const char *const names[MB_NPEERS] = {
    "mcoll", "mcoll-window", "mcoll-graph", "mcoll-mpi", "mcoll-persistent", "nccl", "nccl-graph", "staged"
};

const char *mb_peer_name(int id)
{
    return id >= 0 && id < MB_NPEERS ? names[id] : "?";
}

int mb_peer_find(const char *name)
{
    for (int p = 0; p < MB_NPEERS; p++)
        if (strcmp(name, names[p]) == 0)
            return p;
    return -1;
}
