/* What mcoll-bench prints and writes: the header, one nccl-tests table per collective (a row
 * per size and peer: nccl-tests' thirteen columns, then the peer and the comparisons) closed by
 * nccl-tests' footer lines per peer, table.txt (what stdout shows, without anything the MPI
 * launcher adds) and results.csv. Printing is rank 0's; the header gathers from every rank. */
#ifndef MB_REPORT_H
#define MB_REPORT_H

#include <stdio.h>
#include "context.h"
#include "measure.h"
#include "split.h"

typedef struct {
    bench_coll coll;
    size_t bytes;
    int peer;
    int in_place;
    mb_result res;
    double algbw, busbw; /* GB/s (1e9 bytes per second) */
} mb_row;

typedef struct {
    char dir[1024];      /* output directory */
    FILE *csv;
    FILE *table;         /* table.txt */
    FILE *hier_csv;      /* hier.csv, opened at the first hierarchical point */
    mb_row *rows;        /* every measured row, for the plots */
    int plot_in_place;   /* the plots show the in-place rows (only they were measured) */
    size_t nrows, cap;
    int nranks;
    char dtype[16];
    int any_wrong;
    /* The collective being printed: its footer's sums. */
    double busbw_sum[MB_NPEERS];
    int busbw_rows[MB_NPEERS];
    long long wrong;
    int checked;
} mb_report;

/* Rank 0: create the output directory (and parents), open results.csv and table.txt. Returns
 * 0, or -1 with the reason in why. */
int mb_report_open(mb_report *rep, const mb_ctx *ctx, const char *dir, char *why, size_t len);
void mb_report_close(mb_report *rep);

/* Collective: every rank calls it; rank 0 prints. */
void mb_report_header(mb_report *rep, const mb_ctx *ctx);

/* Rank 0 only. res[0] out of place, res[1] in place (a peer's `ran` 0 where not measured). */
void mb_report_collective(mb_report *rep, const mb_ctx *ctx, bench_coll coll);
void mb_report_size(mb_report *rep, const mb_ctx *ctx, const mb_op *op, const mb_result res[2][MB_NPEERS],
                    int first_size);
void mb_report_footer(mb_report *rep, const mb_ctx *ctx);
/* Rank 0 only, after the size's rows: where mcoll-mpi's calls were hierarchical, their time
 * split per call (split[0] out of place, split[1] in place) as a `mcoll-hier` comment line, and
 * a row of hier.csv per place. */
void mb_report_split(mb_report *rep, const mb_op *op, const mb_split split[2]);

/* --dry-run: the settings and the table header, without MPI or a GPU. */
void mb_report_dry_run(const mb_options *o);

#endif /* MB_REPORT_H */
