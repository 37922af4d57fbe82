/* Timing summaries; see bench_stats.h. */
#include "bench_stats.h"

#include <stdlib.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

bench_summary bench_summarize(const double *samples, int n)
{
    bench_summary s = { 0, 0, 0 };
    double *v = malloc((size_t)n * sizeof *v);
    if (!v || n <= 0) {
        free(v);
        return s;
    }
    for (int i = 0; i < n; i++)
        v[i] = samples[i];
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    s.min = v[0];
    s.max = v[n - 1];
    s.median = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
    free(v);
    return s;
}
