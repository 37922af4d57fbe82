/* The launcher thread (src/api/async.h) on its own, with jobs that record when they run:
 *   - jobs of several lanes run in the order queued, once each, in the launcher thread or (when
 *     a caller waits for them) in the caller, never two at a time;
 *   - mcoll_async_help returns once every job queued before it has run, in order; for a lane,
 *     once that lane's have, leaving other lanes' later jobs to the thread;
 *   - waiting for a lane returns only once every job queued on it before has run (a job that
 *     takes a while is still running when the wait starts), while other lanes' jobs may still
 *     be queued; at once in the launcher thread and for an empty lane;
 *   - after a job the thread polls for MCOLL_ASYNC_SPIN_US (100 ms here, so that a loaded
 *     machine still submits within it): a submit then signals nothing; after that it sleeps (no
 *     polling): a submit to a sleeping thread signals it once, submits while it is busy signal
 *     nothing;
 *   - shutdown runs what is still queued, then joins; a later submit starts a new thread;
 *   - fork with jobs queued: the child abandons them (each once, none runs there, its lanes are
 *     empty) and can start a thread of its own; the parent runs each exactly once;
 *   - a process bound to one CPU gets no launcher thread: a submit answers -1 (launch in the
 *     caller), checked in a child before any thread exists; a test process that is itself bound
 *     to one core checks that and skips the thread's own tests, saying so. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "async.h"
#include "locality.h"
#include "unit.h"

#define JOBS 64

typedef struct {
    mcoll_async_job job;
    int id;
    int sleep_us;
    atomic_int runs, abandons;
    int in_launcher;
    int ran_at; /* position in the order of runs */
} rec_job;

static atomic_int order;
static mcoll_async_lane lanes[3];
static rec_job jobs[JOBS];
static pthread_t main_thread;

static void sleep_us(int us)
{
    struct timespec ts = {us / 1000000, (long)(us % 1000000) * 1000};
    nanosleep(&ts, NULL);
}

static void run(mcoll_async_job *job)
{
    rec_job *r = (rec_job *)job;
    if (r->sleep_us) sleep_us(r->sleep_us);
    r->in_launcher = mcoll_async_in_launcher() && !pthread_equal(pthread_self(), main_thread);
    r->ran_at = atomic_fetch_add(&order, 1);
    atomic_fetch_add(&r->runs, 1);
}

static void abandon(mcoll_async_job *job) { atomic_fetch_add(&((rec_job *)job)->abandons, 1); }

static void reset(void)
{
    memset(jobs, 0, sizeof jobs);
    atomic_store(&order, 0);
}

static int submit(int i, int lane, int us)
{
    jobs[i].id = i;
    jobs[i].sleep_us = us;
    jobs[i].job.lane = &lanes[lane];
    jobs[i].job.run = run;
    jobs[i].job.abandon = abandon;
    return mcoll_async_submit(&jobs[i].job);
}

static void wait_all(int n)
{
    for (int i = 0; i < n; i++)
        while (!atomic_load(&jobs[i].runs)) sleep_us(100);
}

static void test_order_and_lanes(void)
{
    reset();
    for (int i = 0; i < JOBS; i++) CHECK(submit(i, i % 3, i % 7 == 0 ? 300 : 0) == 0);
    /* Lane 0's last job is number 63: waiting for lane 0 means every job up to it has run. */
    mcoll_async_wait_lane(&lanes[0]);
    CHECK(atomic_load(&lanes[0].queued) == 0);
    CHECK(atomic_load(&jobs[63].runs) == 1);
    wait_all(JOBS);
    for (int i = 0; i < JOBS; i++) {
        CHECK(jobs[i].ran_at == i);
        CHECK(atomic_load(&jobs[i].runs) == 1);
    }
    for (int l = 0; l < 3; l++) {
        mcoll_async_wait_lane(&lanes[l]);
        CHECK(atomic_load(&lanes[l].queued) == 0);
    }
}

/* The wait must not return while lane 1's slow job runs, even though lane 2 still has work. */
static void test_wait_blocks(void)
{
    reset();
    CHECK(submit(0, 1, 20000) == 0);
    CHECK(submit(1, 2, 20000) == 0);
    mcoll_async_wait_lane(&lanes[1]);
    CHECK(atomic_load(&jobs[0].runs) == 1);
    CHECK(atomic_load(&jobs[1].runs) == 0);
    mcoll_async_wait_lane(&lanes[2]);
    CHECK(atomic_load(&jobs[1].runs) == 1);
}

/* A caller that helps: the thread is busy with job 0; help(NULL) must run every later job, in
 * order, before it returns, and help(lane) only up to that lane's last job. */
static void test_help(void)
{
    reset();
    CHECK(submit(0, 0, 20000) == 0);
    for (int i = 1; i < 10; i++) CHECK(submit(i, i % 2, i == 3 ? 2000 : 0) == 0);
    mcoll_async_help(NULL);
    for (int i = 0; i < 10; i++) {
        CHECK(atomic_load(&jobs[i].runs) == 1);
        CHECK(jobs[i].ran_at == i);
    }
    reset();
    CHECK(submit(0, 0, 20000) == 0);
    CHECK(submit(1, 1, 0) == 0);
    CHECK(submit(2, 2, 100000) == 0);
    CHECK(submit(3, 0, 100000) == 0);
    mcoll_async_wait_lane(&lanes[1]);       /* helps, then waits for a job 1 the thread took */
    CHECK(atomic_load(&jobs[1].runs) == 1);
    CHECK(atomic_load(&jobs[3].runs) == 0); /* after job 2's 100 ms, and not by this caller */
    mcoll_async_help(&lanes[1]);            /* nothing of lane 1 left: returns at once */
    CHECK(atomic_load(&jobs[3].runs) == 0);
    mcoll_async_wait_lane(&lanes[0]);
    for (int i = 0; i < 4; i++) CHECK(atomic_load(&jobs[i].runs) == 1 && jobs[i].ran_at == i);
}

/* Within the spin after a job, a submit finds the thread awake: no signal, and it runs. */
static void test_spin(void)
{
    unsigned long s0, g0, s1, g1;
    reset();
    CHECK(submit(0, 0, 0) == 0);
    wait_all(1);
    mcoll_async_counts(&s0, &g0);
    CHECK(submit(1, 0, 0) == 0); /* well within 100 ms */
    wait_all(2);
    mcoll_async_counts(&s1, &g1);
    CHECK(g1 == g0);
    CHECK(atomic_load(&jobs[1].runs) == 1);
}

static void test_sleeps(void)
{
    unsigned long s0, g0, s1, g1;
    reset();
    CHECK(submit(0, 0, 0) == 0);
    wait_all(1);
    sleep_us(300000); /* time to end the poll and fall asleep */
    mcoll_async_counts(&s0, &g0);
    sleep_us(50000);
    mcoll_async_counts(&s1, &g1);
    CHECK(s1 == s0); /* asleep: it did not wake by itself to look */
    /* One submit to a sleeping thread signals it once; submits while it runs the first (slow)
     * job signal nothing. */
    CHECK(submit(1, 0, 20000) == 0);
    for (int i = 2; i < 10; i++) CHECK(submit(i, 0, 0) == 0);
    mcoll_async_wait_lane(&lanes[0]);
    mcoll_async_counts(&s1, &g1);
    CHECK(g1 == g0 + 1);
    for (int i = 1; i < 10; i++) CHECK(jobs[i].ran_at == i);
}

static void test_shutdown(void)
{
    reset();
    for (int i = 0; i < 8; i++) CHECK(submit(i, 0, 2000) == 0);
    mcoll_async_shutdown();
    CHECK(!mcoll_async_running());
    for (int i = 0; i < 8; i++) CHECK(atomic_load(&jobs[i].runs) == 1);
    CHECK(atomic_load(&lanes[0].queued) == 0);
    CHECK(submit(8, 0, 0) == 0);
    CHECK(mcoll_async_running());
    mcoll_async_wait_lane(&lanes[0]);
    CHECK(atomic_load(&jobs[8].runs) == 1);
}

static void test_fork(void)
{
    pid_t pid;
    int status = 0;
    reset();
    for (int i = 0; i < 8; i++) CHECK(submit(i, 1, 20000) == 0);
    sleep_us(5000); /* job 0 is running in the parent's thread */
    pid = fork();
    if (pid == 0) {
        int bad = 0;
        /* Nothing of the parent's runs here; each job is abandoned once; the lane is empty. */
        sleep_us(60000);
        for (int i = 0; i < 8; i++) bad += atomic_load(&jobs[i].abandons) != 1 || atomic_load(&jobs[i].runs) != 0;
        bad += atomic_load(&lanes[1].queued) != 0;
        bad += mcoll_async_running();
        mcoll_async_wait_lane(&lanes[1]); /* returns at once */
        /* A thread of the child's own. */
        bad += submit(9, 1, 0) != 0;
        mcoll_async_wait_lane(&lanes[1]);
        bad += atomic_load(&jobs[9].runs) != 1;
        _exit(bad ? 1 : 0);
    }
    CHECK(pid > 0);
    mcoll_async_wait_lane(&lanes[1]);
    for (int i = 0; i < 8; i++) {
        CHECK(atomic_load(&jobs[i].runs) == 1);
        CHECK(atomic_load(&jobs[i].abandons) == 0);
    }
    CHECK(waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* A child bound to one CPU of the test's binding: no thread, a submit answers -1. */
static void test_one_core(void)
{
    cpu_set_t mask, one;
    pid_t pid;
    int status = 0, cpu = 0;
    CHECK(sched_getaffinity(0, sizeof mask, &mask) == 0);
    while (cpu < CPU_SETSIZE && !CPU_ISSET(cpu, &mask)) cpu++;
    pid = fork();
    if (pid == 0) {
        int bad = 0;
        CPU_ZERO(&one);
        CPU_SET(cpu, &one);
        bad += sched_setaffinity(0, sizeof one, &one) != 0;
        bad += mcoll_locality_thread_cores() != 1;
        bad += submit(0, 0, 0) != -1;
        bad += submit(1, 0, 0) != -1; /* decided once, the same answer */
        bad += mcoll_async_running();
        bad += atomic_load(&jobs[0].runs) != 0 || atomic_load(&lanes[0].queued) != 0;
        _exit(bad ? 1 : 0);
    }
    CHECK(pid > 0);
    CHECK(waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

int main(void)
{
    main_thread = pthread_self();
    setenv("MCOLL_ASYNC_SPIN_US", "100000", 1); /* read when the thread starts */
    test_one_core();
    if (mcoll_locality_thread_cores() == 1) {
        CHECK(submit(0, 0, 0) == -1);
        printf("test_async: this process is bound to one core, so it gets no launcher thread (checked); "
               "the thread's own tests need two cores and are skipped\n");
        return unit_exit("test_async");
    }
    mcoll_async_wait_lane(&lanes[0]); /* nothing queued, no thread: returns */
    CHECK(!mcoll_async_running());
    test_order_and_lanes();
    test_wait_blocks();
    test_help();
    test_spin();
    test_sleeps();
    test_shutdown();
    test_fork();
    mcoll_async_shutdown();
    CHECK(!mcoll_async_running());
    return unit_exit("test_async");
}
