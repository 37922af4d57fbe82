/* Summaries of repeated timings. */
#ifndef BENCH_STATS_H
#define BENCH_STATS_H

typedef struct {
    double median, min, max;
} bench_summary;

/* Median (mean of the middle two for an even count), minimum and maximum of n > 0 samples. */
bench_summary bench_summarize(const double *samples, int n);

#endif /* BENCH_STATS_H */
