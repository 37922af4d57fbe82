/* HBM byte counts; see hbm.h. S is the size, n the ranks. */
#include "hbm.h"

#include <stdlib.h>
#include <strings.h>

#include "bench_cli.h"

const char *mb_path_name(mb_path path)
{
    switch (path) {
    case MB_PATH_STAGED: return "staged";
    case MB_PATH_ZERO_COPY: return "zero-copy";
    default: return "";
    }
}

size_t mb_oneshot_max(void)
{
    const char *v = getenv("MCOLL_ONESHOT_MAX");
    size_t bytes;
    /* mcoll takes 0 to 1 GiB and falls back to its default otherwise. */
    if (!v || bench_parse_bytes(v, &bytes) != 0 || bytes > ((size_t)1 << 30))
        return MB_ONESHOT_DEFAULT;
    return bytes;
}

int mb_store_inputs(void)
{
    const char *v = getenv("MCOLL_STORE_INPUTS");
    static const char *const off[] = { "0", "off", "no", "false", "disable" };
    if (!v) return 1;
    for (size_t i = 0; i < sizeof off / sizeof off[0]; i++)
        if (!strcasecmp(v, off[i])) return 0;
    return 1;
}

/* Staged, through the data area (collectives/README.md):
 *   allreduce  one-shot (n + 3) S: copy in 2S, every rank reads my inputs nS, recvbuf S;
 *              two-shot 6S: copy in 2S, my inputs read S, results written S, copy out 2S;
 *   reduce     one-shot (on 2 ranks at every size): root 2S (its input read where it lies,
 *              recvbuf written; the benchmark's buffers are 16-byte aligned), 4S for the 8-bit
 *              integers, whose kernels keep root's copy (copy in 2S, read back S, recvbuf S; not
 *              so their bitwise ops, which the benchmark does not run), others 3S (copy in 2S,
 *              read by root S); two-shot: root 6S, others 3S;
 *   bcast      root reads S; others: their data area written S, copy out 2S (3S); scattered
 *              (above oneshot_max on 3 or more ranks) also their slice in and out 2S / (n - 1);
 *   reduce_scatter  copy in 2S, inputs read S, recvbuf S/n;
 *   allgather  my block read S/n, every block written into my data area S, the others' copied
 *              out 2S (n - 1) / n, my own copied 2S/n out of place: (3 + 1/n) S, in place
 *              (3 - 1/n) S. */
static void staged(bench_coll c, double S, int n, int in_place, const mb_protocol *proto, mb_hbm *h)
{
    const int small = S <= (double)proto->oneshot_max || n == 1;
    const double root_in = proto->elem_bytes < 4 ? 4 * S : 2 * S;
    switch (c) {
    case BENCH_ALLREDUCE:
        h->root = h->other = small ? (n + 3) * S : 6 * S;
        break;
    case BENCH_REDUCE:
        h->root = small || n == 2 ? root_in : 6 * S;
        h->other = 3 * S;
        break;
    case BENCH_BCAST:
        h->root = S;
        h->other = small || n <= 2 ? 3 * S : 3 * S + 2 * S / (n - 1);
        break;
    case BENCH_REDUCE_SCATTER:
        h->root = h->other = 3 * S + S / n;
        break;
    default:
        h->root = h->other = in_place ? 3 * S - S / n : 3 * S + S / n;
        break;
    }
}

/* Zero-copy (docs/memory.md): allreduce reads every sendbuf and writes every recvbuf, 2S; with
 * inputs by stores (collectives/pipeline.cuh) it reads its sendbuf S, its slice's parts arrive in
 * its data area S and are read S, and the results arrive in its recvbuf S: 4S;
 * reduce reads every input once (S each) and writes root's recvbuf S: root 2S, others S;
 * bcast reads root's buffer S and writes every other S; reduce_scatter reads every sendbuf S
 * and writes S/n; allgather reads my block S/n and writes every block of my recvbuf S (in place
 * the others, S - S/n). */
static int zero_copy(bench_coll c, double S, int n, int in_place, int stores, mb_hbm *h)
{
    switch (c) {
    case BENCH_ALLREDUCE: h->root = h->other = stores ? 4 * S : 2 * S; return 0;
    case BENCH_REDUCE: h->root = 2 * S; h->other = S; return 0;
    case BENCH_BCAST: h->root = h->other = S; return 0;
    case BENCH_REDUCE_SCATTER: h->root = h->other = S + S / n; return 0;
    case BENCH_ALLGATHER: h->root = h->other = in_place ? S : S + S / n; return 0;
    default: return -1;
    }
}

/* The LL protocol (collectives/ll.cuh) moves a payload P (S; a block, S/n, for reduce_scatter and
 * allgather) as 16-byte lines of 8 data bytes: a receiver's slots are written 2P by each sender
 * and read 2P at least (once, if the data is there at the first poll; every further poll reads
 * again). Allreduce: input P, n senders' lines written 2nP and read 2nP, result P: (4n + 2) P.
 * Reduce: root the same, the others their input P. Bcast: root reads P; the others 2P + 2P + P.
 * Reduce_scatter: my n blocks read S, n blocks' lines written and read 4S, my block out S/n.
 * Allgather: my block read S/n, every rank's lines 4S, the whole vector out S. */
static double ll_payload(bench_coll c, double S, int n)
{
    return c == BENCH_REDUCE_SCATTER || c == BENCH_ALLGATHER ? S / n : S;
}

static void ll(bench_coll c, double S, int n, mb_hbm *h)
{
    switch (c) {
    case BENCH_ALLREDUCE: h->root = h->other = (4.0 * n + 2) * S; break;
    case BENCH_REDUCE: h->root = (4.0 * n + 2) * S; h->other = S; break;
    case BENCH_BCAST: h->root = S; h->other = 5 * S; break;
    default: h->root = h->other = 5 * S + S / n; break; /* reduce_scatter, allgather */
    }
}

int mb_hbm_count(bench_coll coll, mb_path path, size_t bytes, int nranks, int in_place, const mb_protocol *proto,
                 mb_hbm *out)
{
    const double S = (double)bytes;
    if (nranks < 1 || coll == BENCH_BARRIER) /* barrier moves no data */
        return -1;
    if (path == MB_PATH_STAGED && nranks > 1 && ll_payload(coll, S, nranks) <= (double)proto->ll_max) {
        ll(coll, S, nranks, out);
        return 0;
    }
    if (path == MB_PATH_STAGED) {
        staged(coll, S, nranks, in_place, proto, out);
        return 0;
    }
    if (path == MB_PATH_ZERO_COPY)
        return zero_copy(coll, S, nranks, in_place, proto->store_inputs && nranks > 1, out);
    return -1;
}

double mb_hbm_per_gpu(const mb_hbm *h, int nranks, int ngpus)
{
    if (ngpus >= nranks || ngpus < 1)
        return h->root > h->other ? h->root : h->other;
    return (h->root + (nranks - 1) * h->other) / ngpus;
}
