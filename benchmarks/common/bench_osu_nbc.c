/* Non-blocking OSU rows: pure communication, overlapped computation, overlap; see
 * bench_osu_nbc.h. */
#include "bench_osu_nbc.h"

#include <stdio.h>

/* Work the CPU for `seconds`, with `ntests` MPI_Test calls spread evenly through it so that an
 * MPI which progresses only inside MPI calls gets the chance. Returns the seconds spent in
 * MPI_Test. The arithmetic feeds a volatile sink so the compiler keeps it. */
static volatile double compute_sink;

static double compute_for(double seconds, int ntests, MPI_Request *req)
{
    double x = 1.0, tested = 0, start = MPI_Wtime(), now = start;
    int done = 0;
    for (int k = 1; now - start < seconds; k++) {
        for (int i = 0; i < 256; i++)
            x = x * 1.0000001 + 1e-9;
        now = MPI_Wtime();
        /* Test number j is due once j/(ntests+1) of the time has passed. */
        if (!done && ntests > 0 && (now - start) * (ntests + 1) >= seconds * k) {
            double t0 = MPI_Wtime();
            MPI_Test(req, &done, MPI_STATUS_IGNORE);
            tested += MPI_Wtime() - t0;
            now = MPI_Wtime();
        }
    }
    compute_sink = x;
    return tested;
}

static double pure_comm(const osu_run *r, bench_shape *s, long warmup, long iters)
{
    bench_osu_args a;
    double total = 0;
    osu_make_args(r, s, &a);
    MPI_Barrier(MPI_COMM_WORLD);
    for (long i = 0; i < warmup + iters; i++) {
        MPI_Request req;
        double t0 = MPI_Wtime();
        osu_start(r, &a, &req);
        osu_wait(&req);
        if (i >= warmup)
            total += MPI_Wtime() - t0;
        MPI_Barrier(MPI_COMM_WORLD);
    }
    return total / (double)iters;
}

void osu_nbc_time(const osu_run *r, bench_shape *s, long warmup, long iters, osu_nbc_times *t)
{
    bench_osu_args a;
    double pure = pure_comm(r, s, warmup, iters), overall = 0, compute = 0, init = 0, test = 0, wait = 0;
    /* Every rank computes as long as the slowest rank's pure communication took, as OSU does. */
    double target;
    MPI_Allreduce(&pure, &target, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    osu_make_args(r, s, &a);
    MPI_Barrier(MPI_COMM_WORLD);
    for (long i = 0; i < warmup + iters; i++) {
        MPI_Request req;
        double t0 = MPI_Wtime(), t1, t2, t3, tested;
        osu_start(r, &a, &req);
        t1 = MPI_Wtime();
        tested = compute_for(target, r->o->num_tests, &req);
        t2 = MPI_Wtime();
        osu_wait(&req);
        t3 = MPI_Wtime();
        if (i >= warmup) {
            overall += t3 - t0;
            init += t1 - t0;
            compute += t2 - t1 - tested;
            test += tested;
            wait += t3 - t2;
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    t->pure = pure * 1e6;
    t->overall = overall * 1e6 / (double)iters;
    t->compute = compute * 1e6 / (double)iters;
    t->init = init * 1e6 / (double)iters;
    t->test = test * 1e6 / (double)iters;
    t->wait = wait * 1e6 / (double)iters;
}

static double overlap_percent(double overall, double compute, double pure)
{
    double hidden = pure > 0 ? 100.0 * (1.0 - (overall - compute) / pure) : 0;
    return hidden < 0 ? 0 : hidden > 100 ? 100 : hidden;
}

static void column(double v)
{
    printf("%*.*f", OSU_FIELD_WIDTH, OSU_PRECISION, v);
}

void osu_nbc_print_row(const osu_run *r, size_t size, const osu_nbc_times *t, long long wrong)
{
    enum { N = sizeof(osu_nbc_times) / sizeof(double) };
    osu_nbc_times sum;
    double lo, hi, n = r->nranks;
    MPI_Reduce(t, &sum, N, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&t->pure, &lo, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
    MPI_Reduce(&t->pure, &hi, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (r->rank != 0)
        return;
    printf("%-*zu", 10, size);
    column(sum.overall / n);
    column(sum.compute / n);
    if (r->o->full) {
        column(sum.init / n);
        column(sum.test / n);
        column(sum.wait / n);
    }
    column(sum.pure / n);
    if (r->o->full) {
        column(lo);
        column(hi);
    }
    column(overlap_percent(sum.overall / n, sum.compute / n, sum.pure / n));
    if (r->o->validate)
        printf("%*s", OSU_FIELD_WIDTH, wrong ? "Fail" : "Pass");
    printf("\n");
    fflush(stdout);
}

void osu_nbc_print_columns(const osu_options *o)
{
    printf("%-*s%*s%*s", 10, "# Size", OSU_FIELD_WIDTH, "Overall(us)", OSU_FIELD_WIDTH, "Compute(us)");
    if (o->full)
        printf("%*s%*s%*s", OSU_FIELD_WIDTH, "Coll. Init(us)", OSU_FIELD_WIDTH, "MPI_Test(us)", OSU_FIELD_WIDTH,
               "MPI_Wait(us)");
    printf("%*s", OSU_FIELD_WIDTH, "Pure Comm.(us)");
    if (o->full)
        printf("%*s%*s", OSU_FIELD_WIDTH, "Min Comm.(us)", OSU_FIELD_WIDTH, "Max Comm.(us)");
    printf("%*s", OSU_FIELD_WIDTH, "Overlap(%)");
    if (o->validate)
        printf("%*s", OSU_FIELD_WIDTH, "Validation");
    printf("\n");
    fflush(stdout);
}
