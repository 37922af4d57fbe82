/* Plots; see plot.h. */
#include "plot.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench_cli.h"

/* The plots show the out-of-place rows (nccl-tests' first columns), or the in-place ones when
 * only those were measured. */
static int plotted(const mb_report *rep, const mb_row *r)
{
    /* Barrier's one point is at size 0, which the log-scaled size axis cannot show. */
    return r->in_place == rep->plot_in_place && r->coll != BENCH_BARRIER;
}

static int has_data(const mb_report *rep, bench_coll c, int peer)
{
    for (size_t i = 0; i < rep->nrows; i++)
        if (plotted(rep, &rep->rows[i]) && rep->rows[i].coll == c && (peer < 0 || rep->rows[i].peer == peer))
            return 1;
    return 0;
}

static int write_data(const mb_report *rep, bench_coll c, int peer)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/data/%s-%s.dat", rep->dir, bench_coll_name(c), mb_peer_name(peer));
    FILE *f = fopen(path, "w");
    if (!f) {
        printf("# plots: cannot write %s: %s\n", path, strerror(errno));
        return -1;
    }
    fprintf(f, "# bytes time_us_median busbw_GBps\n");
    for (size_t i = 0; i < rep->nrows; i++) {
        const mb_row *r = &rep->rows[i];
        if (plotted(rep, r) && r->coll == c && r->peer == peer)
            fprintf(f, "%zu %.3f %.4f\n", r->bytes, r->res.median_us, r->busbw);
    }
    fclose(f);
    return 0;
}

/* One plot command over the peers with data: column 2 (time) or 3 (busbw). */
static void plot_command(FILE *gp, const mb_report *rep, bench_coll c, int column)
{
    const char *sep = "plot ";
    for (int p = 0; p < MB_NPEERS; p++) {
        if (!has_data(rep, c, p))
            continue;
        fprintf(gp, "%s\"data/%s-%s.dat\" using 1:%d with linespoints title \"%s\"", sep, bench_coll_name(c),
                mb_peer_name(p), column, mb_peer_name(p));
        sep = ", \\\n     ";
    }
    fprintf(gp, "\n");
}

/* Size ticks at powers of two, about eight of them, labelled "2 KiB" (gnuplot's own binary
 * prefixes print "2ki"). */
static void write_xtics(FILE *gp, const mb_report *rep)
{
    size_t lo = (size_t)-1, hi = 0;
    int first = 0, last = 0, step;
    const char *sep = "";
    if (rep->nrows == 0)
        return;
    for (size_t i = 0; i < rep->nrows; i++) {
        lo = rep->rows[i].bytes < lo ? rep->rows[i].bytes : lo;
        hi = rep->rows[i].bytes > hi ? rep->rows[i].bytes : hi;
    }
    while (first < 63 && ((size_t)1 << first) < lo)
        first++;
    while (last < 63 && ((size_t)1 << (last + 1)) <= hi)
        last++;
    step = (last - first) / 7 + 1;
    fprintf(gp, "set xtics (");
    for (int k = first; k <= last; k += step) {
        char label[32];
        bench_format_bytes((size_t)1 << k, label, sizeof label);
        fprintf(gp, "%s\"%s\" %zu", sep, label, (size_t)1 << k);
        sep = ", ";
    }
    fprintf(gp, ")\n");
}

int mb_plot_write(const mb_report *rep)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/data", rep->dir);
    if (mkdir(path, 0777) != 0 && errno != EEXIST) {
        printf("# plots: cannot create %s: %s\n", path, strerror(errno));
        return -1;
    }
    for (int c = 0; c < BENCH_NCOLLS; c++)
        for (int p = 0; p < MB_NPEERS; p++)
            if (has_data(rep, (bench_coll)c, p) && write_data(rep, (bench_coll)c, p) != 0)
                return -1;

    snprintf(path, sizeof path, "%s/plots.gp", rep->dir);
    FILE *gp = fopen(path, "w");
    if (!gp) {
        printf("# plots: cannot write %s: %s\n", path, strerror(errno));
        return -1;
    }
    fprintf(gp, "# mcoll-bench plots. Run again with: cd <this directory> && gnuplot plots.gp\n"
                "if (strstrt(GPVAL_TERMINALS, \"pngcairo\") > 0) {\n"
                "    set terminal pngcairo size 1100,700 noenhanced\n"
                "} else {\n"
                "    set terminal png size 1100,700 noenhanced\n"
                "}\n"
                "set grid\n"
                "set key top left\n"
                "set xlabel \"size\"\n"
                "set logscale x 2\n");
    write_xtics(gp, rep);
    for (int c = 0; c < BENCH_NCOLLS; c++) {
        const char *name = bench_coll_name((bench_coll)c);
        if (!has_data(rep, (bench_coll)c, -1))
            continue;
        fprintf(gp, "\nset output \"%s-latency.png\"\n"
                    "set title \"%s: time per call, %d ranks, %s (lower is better)\"\n"
                    "set ylabel \"time per call (us)\"\n"
                    "set logscale y 10\n",
                name, name, rep->nranks, rep->dtype);
        plot_command(gp, rep, (bench_coll)c, 2);
        fprintf(gp, "\nset output \"%s-busbw.png\"\n"
                    "set title \"%s: bus bandwidth, %d ranks, %s (higher is better)\"\n"
                    "set ylabel \"busbw (GB/s)\"\n"
                    "unset logscale y\n",
                name, name, rep->nranks, rep->dtype);
        plot_command(gp, rep, (bench_coll)c, 3);
    }
    fclose(gp);
    return 0;
}

/* 'text' with every ' written as '\'' : safe inside sh -c. */
static void shell_quote(const char *text, char *out, size_t len)
{
    size_t o = 0;
    if (len < 3)
        return;
    out[o++] = '\'';
    for (const char *p = text; *p && o + 6 < len; p++) {
        if (*p == '\'') {
            memcpy(out + o, "'\\''", 4);
            o += 4;
        } else {
            out[o++] = *p;
        }
    }
    out[o++] = '\'';
    out[o] = '\0';
}

/* The matplotlib script: mcoll-bench-plot beside this program (where the build and make
 * install put it), else the source tree's benchmarks/plot.py. Returns 0 with its path in buf. */
static int find_script(char *buf, size_t len)
{
    char exe[1024];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0';
            snprintf(buf, len, "%s/mcoll-bench-plot", exe);
            if (access(buf, R_OK) == 0)
                return 0;
        }
    }
#ifdef MB_PLOT_SCRIPT
    snprintf(buf, len, "%s", MB_PLOT_SCRIPT);
    if (access(buf, R_OK) == 0)
        return 0;
#endif
    return -1;
}

/* gnuplot when it is installed, else python3 with matplotlib (what GPU machines tend to have). */
void mb_plot_run(const mb_report *rep, int enabled)
{
    char dir[2100], script[1100], quoted[2300], cmd[4600];
    if (rep->nrows == 0)
        return;
    if (!enabled) {
        printf("# plots: not made (--no-plot); script %s/plots.gp\n", rep->dir);
        return;
    }
    shell_quote(rep->dir, dir, sizeof dir);
    if (system("command -v gnuplot >/dev/null 2>&1") == 0) {
        snprintf(cmd, sizeof cmd, "cd %s && gnuplot plots.gp", dir);
        if (system(cmd) != 0)
            printf("# plots: gnuplot failed on %s/plots.gp\n", rep->dir);
        else
            printf("# plots: %s/<collective>-latency.png and -busbw.png (gnuplot)\n", rep->dir);
        return;
    }
    if (find_script(script, sizeof script) != 0) {
        printf("# plots: gnuplot is not installed and benchmarks/plot.py was not found; data and script are in %s "
               "(plots.gp, results.csv)\n", rep->dir);
        return;
    }
    if (system("python3 -c 'import matplotlib' >/dev/null 2>&1") != 0) {
        printf("# plots: neither gnuplot nor python3 with matplotlib is installed; later: python3 %s %s, or "
               "cd %s && gnuplot plots.gp\n", script, rep->dir, rep->dir);
        return;
    }
    shell_quote(script, quoted, sizeof quoted);
    snprintf(cmd, sizeof cmd, "python3 %s %s >/dev/null", quoted, dir);
    if (system(cmd) != 0)
        printf("# plots: python3 %s failed on %s/results.csv\n", script, rep->dir);
    else
        printf("# plots: %s/<collective>-latency.png and -busbw.png (matplotlib; gnuplot is not installed)\n",
               rep->dir);
}
