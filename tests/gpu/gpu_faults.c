/* Slow and dead peers on the GPU engines. Run one case per job (-f):
 *
 *   -f slow   the last rank joins MPI_Allreduce on device buffers MCOLL_TEST_SLOW_S seconds
 *             (default 75, past the 60 s after which earlier versions trapped) after the others,
 *             as a rank writing a checkpoint would, then mcoll_allreduce a tenth of that late:
 *             legal MPI, so both must complete with the right result.
 *   -f dead   (under `mpirun --enable-recovery`) the last rank is killed (SIGKILL) while the
 *             others wait for it in a native allreduce: the watchdog must end their GPU waits,
 *             the next native call must fail with MCOLL_ERR_ABORTED, and the MPI_Allreduce that
 *             follows must end the job through the error handler (MPI_ERRORS_ARE_FATAL). The
 *             runner checks the log for "dead: survivors ok" lines and a bounded end.
 *   -f dead-create (under `mpirun --enable-recovery`) no team exists yet; every rank calls
 *             mcoll_comm_create and the last rank is killed inside it, as soon as its
 *             watchdog thread ("mcoll-watchdog", started once the ranks know each other's
 *             processes) or the first socket of the handle exchange appears, or 3 s in. The others must
 *             be ended by the watchdog (MPI_Abort) with a line naming the dead rank; a survivor
 *             whose creation still returned says so ("team creation returned") and goes on as
 *             in -f dead.
 *   -f dead-staged (with MCOLL_ENGINE=staged, plain mpirun) the last rank is killed while the
 *             others wait in a staged MPI_Allreduce on device buffers: with no team there is
 *             no GPU wait and nothing of mcoll's to end; the process waits inside the MPI, and
 *             the launcher ends the job (Open MPI's mpirun, when a rank dies by a signal).
 * slow and dead start with a warm-up allreduce so that the team exists before the fault; the
 * dead-* cases run alone (the filter must be exactly their name) and before any team exists. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cuda_runtime_api.h>
#include <mpi.h>
#include <pthread.h>
#include <time.h>
#include "common/harness.h"
#include "common/report.h"
#include "common/usage.h"
#include "mcoll.h"

#define COUNT (1u << 20)

static float *dev_buf;
static cudaStream_t stream;

/* Fill with rank + 1, reduce, check every element is the sum of 1..size. */
static int allreduce_checked(mcoll_comm *mc, const char *how)
{
    float *host = malloc(COUNT * sizeof *host);
    float want = (float)(report_size() * (report_size() + 1) / 2);
    size_t i, bad = 0;
    int err;
    if (!host) return 0;
    for (i = 0; i < COUNT; i++) host[i] = (float)(report_rank() + 1);
    cudaMemcpy(dev_buf, host, COUNT * sizeof *host, cudaMemcpyHostToDevice);
    if (mc) {
        mcoll_result rc = mcoll_allreduce(MPI_IN_PLACE, dev_buf, COUNT, MPI_FLOAT, MPI_SUM, mc, stream);
        if (rc != MCOLL_SUCCESS) case_fail("%s: mcoll_allreduce returned %s", how, mcoll_strerror(rc));
        cudaStreamSynchronize(stream);
    } else {
        err = MPI_Allreduce(MPI_IN_PLACE, dev_buf, COUNT, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        if (err != MPI_SUCCESS) case_fail("%s: MPI_Allreduce returned %d", how, err);
    }
    cudaMemcpy(host, dev_buf, COUNT * sizeof *host, cudaMemcpyDeviceToHost);
    for (i = 0; i < COUNT; i++) bad += host[i] != want;
    if (bad) case_fail("%s: %zu of %u elements wrong (element 0: %g, want %g)", how, bad, COUNT, host[0], want);
    free(host);
    return bad == 0;
}

static void slow_peer(mcoll_comm *mc)
{
    const char *env = getenv("MCOLL_TEST_SLOW_S");
    int delay = env && atoi(env) > 0 ? atoi(env) : 75, last = report_rank() == report_size() - 1;
    double t0;
    if (!case_begin("faults/slow/mpi+native/delay=%d", delay)) return;
    say("the last rank sleeps %d s before each call", delay);
    if (last) sleep((unsigned)delay);
    t0 = wall_seconds();
    allreduce_checked(NULL, "MPI_Allreduce");
    /* The kernel wait is the same code on both paths: a tenth of the delay keeps the run short. */
    if (last) sleep((unsigned)(delay / 10 + 1));
    allreduce_checked(mc, "mcoll_allreduce");
    say("rank 0 waited %.0f s in all", wall_seconds() - t0);
    case_end();
}

/* The cases that kill a rank run only when asked for alone, by name. */
static int asked_alone(const char *name)
{
    const char *filter = report_opts()->filter;
    return filter && strcmp(filter, name) == 0;
}

static int is_victim(void) { return report_rank() == report_size() - 1; }

static void die(void)
{
    fflush(stdout);
    kill(getpid(), SIGKILL);
}

/* Through MPI: MPI_ERR_OTHER through MPI_ERRORS_ARE_FATAL ends the job here (with a team), or
 * the launcher does (without one). */
static void end_through_mpi(void)
{
    MPI_Allreduce(MPI_IN_PLACE, dev_buf, COUNT, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    printf("dead: rank %d: MPI_Allreduce returned with a dead peer\n", report_rank());
    fflush(stdout);
    _exit(1);
}

/* A survivor's calls on a team whose last rank is dead. */
static void survive_on(mcoll_comm *mc)
{
    mcoll_result rc;
    /* The dead rank never arrives: only the watchdog ends this kernel. */
    rc = mcoll_allreduce(MPI_IN_PLACE, dev_buf, COUNT, MPI_FLOAT, MPI_SUM, mc, stream);
    cudaStreamSynchronize(stream);
    printf("dead: rank %d: first call returned %s; GPU wait ended\n", report_rank(), mcoll_strerror(rc));
    rc = mcoll_allreduce(MPI_IN_PLACE, dev_buf, COUNT, MPI_FLOAT, MPI_SUM, mc, stream);
    if (rc == MCOLL_ERR_ABORTED) printf("dead: survivors ok: rank %d got MCOLL_ERR_ABORTED\n", report_rank());
    else printf("dead: rank %d: second call returned %s, want MCOLL_ERR_ABORTED\n", report_rank(), mcoll_strerror(rc));
    fflush(stdout);
    end_through_mpi();
}

static void dead_peer(mcoll_comm *mc)
{
    if (!asked_alone("dead") || !case_begin("faults/dead/native+mpi")) return;
    if (is_victim()) die();
    survive_on(mc);
}

/* The victim's clock in team creation: its watchdog thread, or the first socket opened after
 * `arg` (the count before), or 3 s. */
static void *die_in_creation(void *arg)
{
    long before = *(const long *)arg;
    struct timespec nap = {0, 100000};
    double t0 = wall_seconds();
    /* The library's watchdog thread starts once the ranks know each other's processes, the
     * point from which a death in creation is covered; a socket of the handle exchange comes
     * later and may come and go between two looks on a fast machine. */
    while (!usage_has_thread("mcoll-watchdog") && usage_open_fds_to("socket:") <= before && wall_seconds() - t0 < 3.0)
        nanosleep(&nap, NULL);
    printf("dead-create: rank %d dies %.3f s into team creation\n", report_rank(), wall_seconds() - t0);
    die();
    return NULL;
}

static void dead_in_creation(void)
{
    static long sockets_before;
    pthread_t killer;
    mcoll_comm *mc = NULL;
    mcoll_result rc;
    if (!case_begin("faults/dead-create/native+mpi")) return;
    MPI_Barrier(MPI_COMM_WORLD);
    sockets_before = usage_open_fds_to("socket:");
    if (is_victim() && pthread_create(&killer, NULL, die_in_creation, &sockets_before) != 0) die();
    rc = mcoll_comm_create(MPI_COMM_WORLD, NULL, &mc);
    /* The victim never gets here unless its creation ended before the kill: it waits for it. */
    if (is_victim()) pthread_join(killer, NULL);
    printf("dead-create: rank %d: team creation returned %s\n", report_rank(), mcoll_strerror(rc));
    fflush(stdout);
    /* Created before the peer died: the ways of -f dead end it. */
    if (rc == MCOLL_SUCCESS) survive_on(mc);
    end_through_mpi();
}

static void dead_in_staged_call(void)
{
    if (!case_begin("faults/dead-staged/mpi")) return;
    allreduce_checked(NULL, "warm-up MPI (staged)");
    if (is_victim()) {
        sleep(1); /* the others are in the call by then */
        die();
    }
    say("dead-staged: waiting in a staged MPI_Allreduce for a rank that dies in 1 s");
    end_through_mpi();
}

int main(int argc, char **argv)
{
    gpu_opts opts;
    mcoll_comm *mc = NULL;
    int rc = harness_start(&argc, &argv, "gpu_faults", "slow and dead peers on the GPU engines", &opts);
    if (rc >= 0) return rc;
    cudaMalloc((void **)&dev_buf, COUNT * sizeof(float));
    cudaStreamCreate(&stream);
    /* Before any team: the dead rank must not be a member of one already. */
    if (asked_alone("dead-create")) dead_in_creation();
    if (asked_alone("dead-staged")) dead_in_staged_call();
    if (setup_begin("faults/setup")) {
        if (mcoll_comm_create(MPI_COMM_WORLD, NULL, &mc) != MCOLL_SUCCESS) case_fatal("mcoll_comm_create failed");
        else {
            allreduce_checked(mc, "warm-up native");
            allreduce_checked(NULL, "warm-up MPI");
        }
        case_end();
    }
    if (mc && !report_stopped()) {
        slow_peer(mc);
        dead_peer(mc);
    }
    if (mc) mcoll_comm_destroy(mc);
    return harness_finish();
}
