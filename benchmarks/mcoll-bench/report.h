/* What mcoll-bench prints and writes: the header, one table block per collective (a row per
 * size and peer), and results.csv. Printing is rank 0's; the header gathers from every rank. */
#ifndef MB_REPORT_H
#define MB_REPORT_H

#include <stdio.h>
#include "context.h"
#include "measure.h"

typedef struct {
    bench_coll coll;
    size_t bytes;
    int peer;
    mb_result res;
    double algbw, busbw; /* GB/s (1e9 bytes per second) */
} mb_row;

typedef struct {
    char dir[1024];      /* output directory */
    FILE *csv;
    mb_row *rows;        /* every measured row, for the plots */
    size_t nrows, cap;
    int nranks;
    char dtype[16];
    int any_wrong;
} mb_report;

/* Rank 0: create the output directory (and parents) and open results.csv. Returns 0, or -1 with
 * the reason in why. */
int mb_report_open(mb_report *rep, const mb_ctx *ctx, const char *dir, char *why, size_t len);
void mb_report_close(mb_report *rep);

/* Collective: every rank calls it; rank 0 prints. */
void mb_report_header(const mb_report *rep, const mb_ctx *ctx);

/* Rank 0 only. */
void mb_report_collective(const mb_ctx *ctx, bench_coll coll);
void mb_report_size(mb_report *rep, const mb_ctx *ctx, const mb_op *op, const mb_result *res,
                    int first_size);

#endif /* MB_REPORT_H */
