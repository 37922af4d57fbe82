/* A progress line on stderr (rank 0) for long sweeps: at most one every 10 seconds, as whole
 * lines, because under mpirun stderr is a pipe, not a terminal. */
#ifndef MB_PROGRESS_H
#define MB_PROGRESS_H

#include <stddef.h>

/* `done` of `total` (collective, size) points measured; the current one is coll at bytes. */
void mb_progress(int done, int total, const char *coll, size_t bytes);

#endif /* MB_PROGRESS_H */
