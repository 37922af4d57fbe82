/* PNG plots of a run, per collective: time per call against size (log-log) and bus bandwidth
 * against size, one line per peer. The data go to <dir>/data/, the gnuplot script to
 * <dir>/plots.gp, so the plots can be made again (cd <dir> && gnuplot plots.gp); where gnuplot
 * is missing, benchmarks/plot.py (installed as mcoll-bench-plot) draws the same files from
 * results.csv with matplotlib. */
#ifndef MB_PLOT_H
#define MB_PLOT_H

#include "report.h"

/* Write the data files and the script. Returns 0, or -1 after printing why. */
int mb_plot_write(const mb_report *rep);

/* Draw the PNGs with gnuplot, else with python3 and matplotlib, and say on stdout what was made
 * or why not. Call after MPI_Finalize: it starts processes. */
void mb_plot_run(const mb_report *rep, int enabled);

#endif /* MB_PLOT_H */
