/* The v variants' blocks as the engines take them (src/pmpi/engine_blocks.c): bytes and
 * unsigned offsets from the lowest displacement of a block that holds data, whatever the sign
 * of the displacements; empty blocks (whose displacements MPI does not read) are 0 at 0; an
 * all-empty side keeps the user's pointer; MPI_IN_PLACE stays itself with nothing read. */
#include <stddef.h>
#include <mpi.h>
#include "engine.h"
#include "unit.h"

int main(void)
{
    static char buf[1024];
    char *user = buf + 512;
    mcoll_engine_blocks eb;
    const int counts[4] = {2, 0, 3, 1}, displs[4] = {4, -999, -2, 10};
    const int none[4] = {0, 0, 0, 0};

    /* Lowest displacement with data is -2 (block 2): base moves back by 2 elements of 8 bytes. */
    mcoll_engine_blocks_set(&eb, user, 8, 4, counts, displs);
    CHECK(eb.base == user - 16);
    CHECK(eb.bytes[0] == 16 && eb.offs[0] == 48);
    CHECK(eb.bytes[1] == 0 && eb.offs[1] == 0);
    CHECK(eb.bytes[2] == 24 && eb.offs[2] == 0);
    CHECK(eb.bytes[3] == 8 && eb.offs[3] == 96);

    /* Non-negative displacements: the base is the first block's start. */
    {
        const int d[3] = {3, 1, 7}, n[3] = {1, 1, 1};
        mcoll_engine_blocks_set(&eb, user, 4, 3, n, d);
        CHECK(eb.base == user + 4);
        CHECK(eb.offs[0] == 8 && eb.offs[1] == 0 && eb.offs[2] == 24);
    }

    /* Nothing to move: the pointer as it was, every block empty. */
    mcoll_engine_blocks_set(&eb, user, 8, 4, none, displs);
    CHECK(eb.base == user && eb.bytes[0] == 0 && eb.bytes[3] == 0 && eb.offs[2] == 0);

    /* In place: the counts are not read (NULL here). */
    mcoll_engine_blocks_set(&eb, MPI_IN_PLACE, 8, 4, NULL, NULL);
    CHECK(eb.base == (char *)MPI_IN_PLACE && eb.bytes[0] == 0 && eb.bytes[3] == 0);
    return unit_exit("test_engine_blocks");
}
