/* Progress line; see progress.h. */
#include "progress.h"

#include <stdio.h>
#include <time.h>

#include "bench_cli.h"

#define INTERVAL_S 10

void mb_progress(int done, int total, const char *coll, size_t bytes)
{
    static time_t started, last;
    time_t now = time(NULL);
    char size[32];
    if (started == 0)
        started = last = now;
    if (now - last < INTERVAL_S)
        return;
    last = now;
    bench_format_bytes(bytes, size, sizeof size);
    fprintf(stderr, "mcoll-bench: %d of %d points done, now %s at %s, %lds elapsed\n", done, total, coll,
            size, (long)(now - started));
    fflush(stderr);
}
