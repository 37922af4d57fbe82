/* The blocks of a v variant as the engines take them (engine.h): bytes and unsigned byte
 * offsets from the lowest displacement of a block that holds data. */
#include "engine.h"

void mcoll_engine_blocks_set(mcoll_engine_blocks *eb, const void *user, int size, int n, const int *counts,
                             const int *displs)
{
    int q, lo = 0, any = 0;
    eb->base = (char *)user;
    for (q = 0; q < n; q++) {
        eb->bytes[q] = eb->offs[q] = 0;
        if (user == MPI_IN_PLACE || counts[q] <= 0) continue;
        if (!any || displs[q] < lo) lo = displs[q];
        any = 1;
    }
    if (!any) return;
    eb->base = (char *)user + (MPI_Aint)lo * size;
    for (q = 0; q < n; q++)
        if (counts[q] > 0) {
            eb->bytes[q] = (size_t)counts[q] * (size_t)size;
            eb->offs[q] = (size_t)((MPI_Aint)displs[q] - lo) * (size_t)size;
        }
}

MPI_Aint mcoll_block_matching(const mcoll_call *c, MPI_Aint sendcount, MPI_Aint recvcount, MPI_Aint block,
                              const char **why)
{
    const mcoll_buf *s = &c->send, *r = &c->recv;
    if ((s->in || s->out) && (r->in || r->out) && (long long)sendcount * s->size != (long long)recvcount * r->size) {
        *why = "send and receive blocks differ in size";
        return -1;
    }
    return block;
}
