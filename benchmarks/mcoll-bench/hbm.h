/* The bytes one call moves through GPU memory (HBM), from the byte count of the algorithm mcoll
 * runs: reads and writes of the users' buffers and the staging area by every rank's kernels, on
 * the unicast engine (benchmarks/README.md, "HBM bytes", lists the counts; collectives/README.md
 * derives them). Staged calls copy in, move the data through the staging area and copy out;
 * zero-copy calls read every sendbuf once and write every recvbuf once. */
#ifndef MB_HBM_H
#define MB_HBM_H

#include <stddef.h>
#include "bench_coll.h"

/* How a peer's call moved its data. */
typedef enum { MB_PATH_UNKNOWN, MB_PATH_STAGED, MB_PATH_ZERO_COPY } mb_path;

const char *mb_path_name(mb_path path); /* "staged", "zero-copy", "" */

/* mcoll's default MCOLL_ONESHOT_MAX (mcoll_info lists it): the algorithms switch there. */
#define MB_ONESHOT_DEFAULT ((size_t)256 << 10)

/* MCOLL_ONESHOT_MAX as mcoll reads it from this environment (K, M, G suffixes), or the default
 * when unset or not a size. */
size_t mb_oneshot_max(void);

/* MCOLL_STORE_INPUTS as mcoll reads it from this environment (1 unless it says 0, off, no). */
int mb_store_inputs(void);

typedef struct {
    double root;  /* bytes through the root's memory (every rank's, for calls without a root) */
    double other; /* bytes through a non-root rank's memory */
} mb_hbm;

/* The settings that choose the algorithms, as mcoll_comm_info reports the team's: the one-shot
 * and LL limits (ll_max 0: no LL) and whether inputs move by stores (MCOLL_STORE_INPUTS); and
 * the datatype's size, since a reduce of integers under 4 bytes keeps root's copy in. */
typedef struct {
    size_t oneshot_max;
    size_t ll_max;
    int store_inputs;
    size_t elem_bytes;
} mb_protocol;

/* The count for one call of `coll` on `bytes` (the size as the table reports it) over `nranks`
 * ranks under `proto`; -1 when there is none (path unknown, a zero-copy path mcoll does not have,
 * barrier). */
int mb_hbm_count(bench_coll coll, mb_path path, size_t bytes, int nranks, int in_place, const mb_protocol *proto,
                 mb_hbm *out);

/* Bytes through one GPU's memory: the busiest rank's where every rank has its own GPU
 * (ngpus = nranks), all ranks' bytes over the GPUs where ranks share them. */
double mb_hbm_per_gpu(const mb_hbm *h, int nranks, int ngpus);

#endif /* MB_HBM_H */
