/* A rank that dies while the others hold a team with it (contract driver, run by
 * test_dead_peer.sh under `mpirun --enable-recovery`, which keeps the survivors running).
 *
 *   dead_peer taken   every rank first runs an MPI_Allreduce large enough for the plug-in to map
 *                     the peers' device buffers (zero-copy; the launchers are replaced by ones
 *                     that launch nothing, tests/build.mk), so the plug-in's own team exists;
 *                     then the last rank kills itself; the others wait until the watchdog has had
 *                     time to notice, then a native call must fail with MCOLL_ERR_ABORTED, the
 *                     same MPI_Allreduce must return MPI_ERR_OTHER (MPI_ERRORS_RETURN) instead of
 *                     waiting in the mapping exchange for the dead rank; so must one on a
 *                     communicator that holds the dead rank but has no team yet (its creation
 *                     would wait for it), blocking or not, and mcoll_comm_create on it must return
 *                     MCOLL_ERR_ABORTED, while a call on the survivors' communicator succeeds; and
 *                     the communicator must be destroyed without waiting for the dead rank. Each
 *                     survivor prints "survivor R: ok" and exits 0.
 *   dead_peer blocked the last rank kills itself while the others sit in an MPI barrier that can
 *                     never complete: the watchdog must end the job (MPI_Abort) in bounded time.
 *   dead_peer create  the last rank kills itself inside team creation (at its first cuMemCreate,
 *                     after the ranks have learnt each other's processes): the others, left in
 *                     the rest of team creation (handle exchange, agreements), must be ended by
 *                     the watchdog within the same bound.
 *   dead_peer staged  (MCOLL_ENGINE=staged, plain mpirun) the last rank dies while the others
 *                     wait in a staged MPI_Allreduce on "device" memory of the contract driver:
 *                     no team, so the MPI holds them, and the launcher must end the job. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <mpi.h>
#include "driver.h"
#include "launch.h"
#include "mcoll.h"
#include "contract/model/contract.h"

/* The victim's cuMemCreate: team creation is under way when it is first called. */
static CUresult die_in_mem_create(CUmemGenericAllocationHandle *handle, size_t size, const CUmemAllocationProp *prop,
                                  unsigned long long flags)
{
    (void)handle, (void)size, (void)prop, (void)flags;
    fflush(stdout);
    kill(getpid(), SIGKILL);
    return CUDA_ERROR_UNKNOWN;
}

/* Team creation on the contract driver, the last rank dying in it: never returns on a survivor
 * (only the watchdog's MPI_Abort ends it). */
static int create_and_die(int rank, int size)
{
    mcoll_comm *mc = NULL;
    mcoll_result rc;
    /* The table was loaded at MPI_Init; the victim's entry is replaced in place. */
    if (rank == size - 1) mcoll_cu.cuMemCreate = die_in_mem_create;
    MPI_Barrier(MPI_COMM_WORLD);
    rc = mcoll_comm_create(MPI_COMM_WORLD, NULL, &mc);
    printf("survivor %d: team creation returned %s with a dead peer\n", rank, mcoll_strerror(rc));
    fflush(stdout);
    return 1;
}

/* Ints of the zero-copy MPI_Allreduce: 8 MiB, above MCOLL_ZERO_COPY_MIN's default. */
#define BIG_COUNT (2u << 20)

/* The kernels never run here: what the survivors must get is the failure, not a result. */
int __wrap_mcoll_launch_allreduce(const mcoll_dev_team *team, mcoll_access access, const void *sendbuf,
                                  void *recvbuf, size_t count, mcoll_dtype dtype, mcoll_op op, void *stream);
int __wrap_mcoll_launch_allreduce(const mcoll_dev_team *team, mcoll_access access, const void *sendbuf,
                                  void *recvbuf, size_t count, mcoll_dtype dtype, mcoll_op op, void *stream)
{
    (void)team, (void)access, (void)sendbuf, (void)recvbuf, (void)count, (void)dtype, (void)op, (void)stream;
    return MCOLL_LAUNCH_OK;
}
int __wrap_mcoll_launch_allreduce_direct(const mcoll_dev_team *send, const mcoll_dev_team *recv, size_t count,
                                         mcoll_dtype dtype, mcoll_op op, void *stream);
int __wrap_mcoll_launch_allreduce_direct(const mcoll_dev_team *send, const mcoll_dev_team *recv, size_t count,
                                         mcoll_dtype dtype, mcoll_op op, void *stream)
{
    (void)send, (void)recv, (void)count, (void)dtype, (void)op, (void)stream;
    return MCOLL_LAUNCH_OK;
}

/* Device memory of the contract driver on GPU `device`, or the job ends. */
static void *device_buffer(int rank, int device, size_t bytes)
{
    CUdevice dev;
    CUcontext ctx;
    CUdeviceptr buf;
    if (mcoll_cu.cuDeviceGet(&dev, device) != CUDA_SUCCESS || mcoll_cu.cuDevicePrimaryCtxRetain(&ctx, dev) != CUDA_SUCCESS ||
        mcoll_cu.cuCtxSetCurrent(ctx) != CUDA_SUCCESS || mcoll_cu.cuMemAlloc(&buf, bytes) != CUDA_SUCCESS ||
        mcoll_cu.cuMemsetD8Async(buf, 1, bytes, NULL) != CUDA_SUCCESS) {
        fprintf(stderr, "rank %d: no device memory from the contract driver\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    return (void *)(uintptr_t)buf;
}

/* A staged MPI_Allreduce on the model's device memory, then one the last rank never joins:
 * never returns on a survivor (the launcher ends the job). */
static int staged_and_die(int rank, int size)
{
    void *buf = device_buffer(rank, 0, 1 << 20);
    MPI_Allreduce(MPI_IN_PLACE, buf, 1 << 18, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == size - 1) {
        sleep(1); /* the others are in the call by then */
        kill(getpid(), SIGKILL);
    }
    MPI_Allreduce(MPI_IN_PLACE, buf, 1 << 18, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    printf("survivor %d: the staged call returned with a dead peer\n", rank);
    fflush(stdout);
    return 1;
}

int main(int argc, char **argv)
{
    int rank, size, taken, create, err;
    void *big = NULL;
    MPI_Comm dup = MPI_COMM_NULL, alive = MPI_COMM_NULL;
    mcoll_comm *mc = NULL;
    mcoll_config config;
    mcoll_result rc;

    if (argc != 2 || (strcmp(argv[1], "taken") && strcmp(argv[1], "blocked") && strcmp(argv[1], "create") &&
                      strcmp(argv[1], "staged"))) {
        fprintf(stderr, "usage: dead_peer taken|blocked|create|staged\n");
        return 2;
    }
    taken = strcmp(argv[1], "taken") == 0;
    create = strcmp(argv[1], "create") == 0;
    mcoll_contract_install();
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (create) return create_and_die(rank, size);
    if (strcmp(argv[1], "staged") == 0) return staged_and_die(rank, size);
    mcoll_config_init(&config);
    config.buffer_size = 4u << 20;
    rc = mcoll_comm_create(MPI_COMM_WORLD, &config, &mc);
    if (rc != MCOLL_SUCCESS) {
        fprintf(stderr, "rank %d: mcoll_comm_create: %s\n", rank, mcoll_strerror(rc));
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    if (taken) {
        big = device_buffer(rank, rank, BIG_COUNT * sizeof(int)); /* a GPU each, as the team's */
        MPI_Allreduce(MPI_IN_PLACE, big, BIG_COUNT, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        /* Two communicators no device buffer has met yet: one holds the rank that dies. */
        MPI_Comm_dup(MPI_COMM_WORLD, &dup);
        MPI_Comm_split(MPI_COMM_WORLD, rank == size - 1 ? MPI_UNDEFINED : 0, rank, &alive);
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
    /* The plug-in's team has lost the rank too: the call fails at once, whatever its size. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    err = MPI_Allreduce(MPI_IN_PLACE, big, BIG_COUNT, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Error_class(err, &err);
    if (err != MPI_ERR_OTHER) {
        printf("survivor %d: MPI_Allreduce on device memory returned error class %d, want MPI_ERR_OTHER\n", rank, err);
        return 1;
    }
    /* A communicator with the dead rank but no team yet: creating one would wait for it. */
    MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
    err = MPI_Allreduce(MPI_IN_PLACE, big, BIG_COUNT, MPI_INT, MPI_SUM, dup);
    MPI_Error_class(err, &err);
    if (err != MPI_ERR_OTHER) {
        printf("survivor %d: MPI_Allreduce on a new communicator with the dead rank returned error class %d, want "
               "MPI_ERR_OTHER\n", rank, err);
        return 1;
    }
    {
        MPI_Request req = MPI_REQUEST_NULL;
        err = MPI_Iallreduce(MPI_IN_PLACE, big, BIG_COUNT, MPI_INT, MPI_SUM, dup, &req);
        MPI_Error_class(err, &err);
        if (err != MPI_ERR_OTHER || req != MPI_REQUEST_NULL) {
            printf("survivor %d: MPI_Iallreduce with the dead rank returned error class %d%s, want MPI_ERR_OTHER\n",
                   rank, err, req != MPI_REQUEST_NULL ? " and a request" : "");
            return 1;
        }
    }
    /* Nor may a native communicator be built on it. */
    {
        mcoll_comm *late = NULL;
        rc = mcoll_comm_create(dup, NULL, &late);
        if (rc != MCOLL_ERR_ABORTED) {
            printf("survivor %d: mcoll_comm_create with the dead rank returned %s, want MCOLL_ERR_ABORTED\n", rank,
                   mcoll_strerror(rc));
            return 1;
        }
    }
    /* One without it works as ever. */
    MPI_Comm_set_errhandler(alive, MPI_ERRORS_RETURN);
    err = MPI_Allreduce(MPI_IN_PLACE, big, BIG_COUNT, MPI_INT, MPI_SUM, alive);
    if (err != MPI_SUCCESS) {
        printf("survivor %d: MPI_Allreduce on the survivors' communicator failed (%d)\n", rank, err);
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
