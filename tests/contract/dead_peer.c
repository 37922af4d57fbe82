/* A rank that dies while the others hold a team with it (contract driver, run by
 * test_dead_peer.sh under `mpirun --enable-recovery`, which keeps the survivors running).
 *
 *   dead_peer taken   the last rank kills itself; the others wait until the watchdog has had
 *                     time to notice, then a native call must fail with MCOLL_ERR_ABORTED and
 *                     the communicator must be destroyed without waiting for the dead rank.
 *                     Each survivor prints "survivor R: ok" and exits 0.
 *   dead_peer blocked the last rank kills itself while the others sit in an MPI barrier that can
 *                     never complete: the watchdog must end the job (MPI_Abort) in bounded time. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <mpi.h>
#include "mcoll.h"
#include "contract/model/contract.h"

int main(int argc, char **argv)
{
    int rank, size, taken;
    mcoll_comm *mc = NULL;
    mcoll_config config;
    mcoll_result rc;

    if (argc != 2 || (strcmp(argv[1], "taken") && strcmp(argv[1], "blocked"))) {
        fprintf(stderr, "usage: dead_peer taken|blocked\n");
        return 2;
    }
    taken = strcmp(argv[1], "taken") == 0;
    mcoll_contract_install();
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    mcoll_config_init(&config);
    config.buffer_size = 4u << 20;
    rc = mcoll_comm_create(MPI_COMM_WORLD, &config, &mc);
    if (rc != MCOLL_SUCCESS) {
        fprintf(stderr, "rank %d: mcoll_comm_create: %s\n", rank, mcoll_strerror(rc));
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == size - 1) kill(getpid(), SIGKILL);

    if (!taken) {
        MPI_Barrier(MPI_COMM_WORLD); /* never completes: only the watchdog ends this */
        printf("survivor %d: the barrier completed without the dead rank\n", rank);
        return 1;
    }
    sleep(3); /* the watchdog looks twice a second; slack for a loaded machine */
    rc = mcoll_barrier(mc, NULL);
    if (rc != MCOLL_ERR_ABORTED) {
        printf("survivor %d: mcoll_barrier returned %s, want MCOLL_ERR_ABORTED\n", rank, mcoll_strerror(rc));
        return 1;
    }
    rc = mcoll_comm_destroy(mc);
    if (rc != MCOLL_SUCCESS) {
        printf("survivor %d: mcoll_comm_destroy returned %s\n", rank, mcoll_strerror(rc));
        return 1;
    }
    printf("survivor %d: ok\n", rank);
    fflush(stdout);
    /* MPI_Finalize with a dead peer is the MPI's business; leave without it. */
    _exit(0);
}
