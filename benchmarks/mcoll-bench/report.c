/* Header, table and CSV; see report.h. */
#include "report.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bench_cli.h"
#include "bench_cuda.h"
#include "mcoll.h"

/* --- output directory and CSV ------------------------------------------------------------- */

static int make_dirs(const char *path)
{
    char buf[1024];
    size_t len = strlen(path);
    if (len == 0 || len >= sizeof buf)
        return -1;
    memcpy(buf, path, len + 1);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    return mkdir(buf, 0777) != 0 && errno != EEXIST ? -1 : 0;
}

int mb_report_open(mb_report *rep, const mb_ctx *ctx, const char *dir, char *why, size_t len)
{
    char path[1100];
    memset(rep, 0, sizeof *rep);
    rep->nranks = ctx->nranks;
    snprintf(rep->dtype, sizeof rep->dtype, "%s", ctx->dtype->name);
    snprintf(rep->dir, sizeof rep->dir, "%s", dir);
    if (make_dirs(dir) != 0) {
        snprintf(why, len, "cannot create output directory %s: %s", dir, strerror(errno));
        return -1;
    }
    snprintf(path, sizeof path, "%s/results.csv", dir);
    rep->csv = fopen(path, "w");
    if (!rep->csv) {
        snprintf(why, len, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    fprintf(rep->csv, "collective,bytes,peer,time_us_median,time_us_min,time_us_max,"
                      "algbw_GBps,busbw_GBps,wrong,ranks\n");
    return 0;
}

void mb_report_close(mb_report *rep)
{
    if (rep->csv)
        fclose(rep->csv);
    rep->csv = NULL;
}

static void keep_row(mb_report *rep, const mb_row *row)
{
    if (rep->nrows == rep->cap) {
        size_t cap = rep->cap ? 2 * rep->cap : 256;
        mb_row *rows = realloc(rep->rows, cap * sizeof *rows);
        if (!rows)
            return; /* the plots lose a point; the table and CSV have it */
        rep->rows = rows;
        rep->cap = cap;
    }
    rep->rows[rep->nrows++] = *row;
}

/* --- header -------------------------------------------------------------------------------- */

typedef struct {
    char host[64];
    char gpu[160];
    int device;
} rank_info;

static void print_env(const char *name, const char *unset_meaning)
{
    const char *v = getenv(name);
    if (v)
        printf("# %-17s %s\n", name, v);
    else
        printf("# %-17s (unset: %s)\n", name, unset_meaning);
}

static void print_gpus(const mb_ctx *ctx, const rank_info *all, int n)
{
    int hosts = 0;
    for (int r = 0; r < n; r++) {
        int new_host = 1;
        for (int q = 0; q < r; q++)
            new_host &= strcmp(all[q].host, all[r].host) != 0;
        hosts += new_host;
    }
    printf("# %-17s %s%s\n", "host", all[0].host, hosts > 1 ? " and others: ranks span several hosts" : "");
    if (ctx->shared_gpu[0])
        printf("# %-17s %d on %d GPU%s: %s (CUDA MPS lets them run side by side); times are those of\n"
               "# %-17s shared GPUs, not of NVLink between GPUs\n",
               "ranks", n, ctx->ngpus, ctx->ngpus == 1 ? "" : "s", ctx->shared_gpu, "");
    else
        printf("# %-17s %d, one process per GPU\n", "ranks", n);
    for (int r = 0; r < n; r++) {
        if (n > 16 && r == 8) {
            printf("# %-17s ... and %d more\n", "", n - 8);
            break;
        }
        printf("# %-17s rank %d: GPU %d %s%s%s\n", r == 0 ? "GPUs" : "", r, all[r].device, all[r].gpu,
               hosts > 1 ? " on " : "", hosts > 1 ? all[r].host : "");
    }
}

static void print_sizes(const mb_options *o)
{
    char lo[32], hi[32];
    bench_format_bytes(o->min_bytes, lo, sizeof lo);
    bench_format_bytes(o->max_bytes, hi, sizeof hi);
    printf("# %-17s %s .. %s, x%g%s\n", "sizes", lo, hi, o->step, o->quick ? " (--quick)" : "");
    printf("# %-17s median of %d batches; a batch is at most %d calls (fewer when large: about %g ms)\n",
           "timing", o->reps, o->iters, o->batch_ms);
    printf("# %-17s after 1 + %d untimed calls; stream peers: cudaEvents around the enqueued calls;\n", "",
           o->warmup);
    printf("# %-17s MPI peers: MPI_Wtime around the calls after a barrier; time = slowest rank\n", "");
    printf("# %-17s %s\n", "check", o->check ? "after timing, fresh input, every element: #wrong" : "off (--no-check)");
}

void mb_report_header(const mb_report *rep, const mb_ctx *ctx)
{
    rank_info me, *all = NULL;
    memset(&me, 0, sizeof me);
    if (gethostname(me.host, sizeof me.host - 1) != 0)
        snprintf(me.host, sizeof me.host, "unknown");
    bench_gpu_describe(me.gpu, sizeof me.gpu);
    me.device = ctx->device;
    if (ctx->rank == 0 && !(all = malloc((size_t)ctx->nranks * sizeof *all)))
        bench_fatal(__FILE__, __LINE__, "out of host memory");
    MPI_Gather(&me, (int)sizeof me, MPI_BYTE, all, (int)sizeof me, MPI_BYTE, 0, ctx->comm);
    if (ctx->rank != 0)
        return;

    char date[64], mpi[MPI_MAX_LIBRARY_VERSION_STRING];
    time_t now = time(NULL);
    int len = 0, v = mcoll_version();
    strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S %Z", localtime(&now));
    MPI_Get_library_version(mpi, &len);
    mpi[strcspn(mpi, "\n,")] = '\0';

    printf("# mcoll-bench: MPI collectives on GPU buffers, mcoll vs NCCL vs staged MPI\n");
    printf("# %-17s %s\n", "date", date);
    print_gpus(ctx, all, ctx->nranks);
    printf("# %-17s %d.%d (API %d.%d)\n", "mcoll", v / 1000, v % 1000, MCOLL_API_VERSION_MAJOR,
           MCOLL_API_VERSION_MINOR);
    printf("# %-17s %s\n", "communicator", ctx->mcoll_desc);
    printf("# %-17s %s\n", "MPI", mpi);
    printf("# %-17s %s\n", "NCCL", mb_nccl_describe(ctx));
    print_env("NCCL_NVLS_ENABLE", "NCCL and mcoll use NVLink multicast where the hardware has it");
    print_env("MCOLL_NVLS", "auto");
    printf("# %-17s %s (%s), op MPI_SUM, root %d\n", "datatype", ctx->dtype->name, ctx->dtype->mpi_name,
           BENCH_ROOT);
    print_sizes(ctx->opt);
    for (int p = 0; p < MB_NPEERS; p++) {
        const mb_peer *peer = &ctx->peer[p];
        if (!peer->enabled)
            printf("# peer %-12s not chosen (--peers)\n", peer->name);
        else if (!peer->ready && (p == MB_NCCL || p == MB_NCCL_GRAPH) && ctx->shared_gpu[0])
            continue; /* the NCCL line above says why, once */
        else if (!peer->ready)
            printf("# peer %-12s not available: %s\n", peer->name, peer->why);
    }
    printf("# %-17s %s/results.csv\n", "output", rep->dir);
    printf("# vs NCCL = NCCL time / this time (mcoll vs nccl, mcoll-graph vs nccl-graph, mcoll-mpi vs\n"
           "# nccl); vs staged = staged time / this time; above 1 means faster.\n");
    fflush(stdout);
    free(all);
}

/* --- table --------------------------------------------------------------------------------- */

void mb_report_collective(const mb_ctx *ctx, bench_coll coll)
{
    int reduces = coll == BENCH_ALLREDUCE || coll == BENCH_REDUCE || coll == BENCH_REDUCE_SCATTER;
    printf("#\n# %s: %s%s, %d ranks; busbw = algbw x %s = algbw x %.3f\n", bench_coll_name(coll),
           ctx->dtype->name, reduces ? ", MPI_SUM" : "", ctx->nranks, bench_busbw_formula(coll),
           bench_busbw_factor(coll, ctx->nranks));
    printf("%-13s  %-12s %10s %12s %12s %8s %9s %10s\n", "#       bytes", "peer", "time(us)", "algbw(GB/s)",
           "busbw(GB/s)", "#wrong", "vs NCCL", "vs staged");
    fflush(stdout);
}

static void ratio(char *buf, size_t len, const mb_result *ref, const mb_result *r)
{
    if (ref && ref->ran && r->ran && r->median_us > 0)
        snprintf(buf, len, "%.2fx", ref->median_us / r->median_us);
    else
        snprintf(buf, len, "-");
}

void mb_report_size(mb_report *rep, const mb_ctx *ctx, const mb_op *op, const mb_result *res,
                    int first_size)
{
    double factor = bench_busbw_factor(op->coll, ctx->nranks);
    for (int p = 0; p < MB_NPEERS; p++) {
        const mb_peer *peer = &ctx->peer[p];
        const mb_result *r = &res[p];
        char vs_nccl[16], vs_staged[16], wrong[24];
        mb_row row;
        if (!peer->enabled)
            continue;
        if (!peer->ready) { /* said once per collective; the header has it too */
            if (first_size)
                printf("%13zu  %-12s %s\n", op->shape.bytes, peer->name, peer->why);
            continue;
        }
        if (!r->ran) {
            printf("%13zu  %-12s %s\n", op->shape.bytes, peer->name, r->note);
            continue;
        }
        memset(&row, 0, sizeof row);
        row.coll = op->coll;
        row.bytes = op->shape.bytes;
        row.peer = p;
        row.res = *r;
        row.algbw = (double)op->shape.bytes / r->median_us / 1e3;
        row.busbw = row.algbw * factor;
        ratio(vs_nccl, sizeof vs_nccl, peer->nccl_ref >= 0 ? &res[peer->nccl_ref] : NULL, r);
        ratio(vs_staged, sizeof vs_staged, p != MB_STAGED && ctx->peer[MB_STAGED].enabled ? &res[MB_STAGED] : NULL, r);
        if (r->wrong < 0)
            snprintf(wrong, sizeof wrong, "-");
        else
            snprintf(wrong, sizeof wrong, "%lld", r->wrong);
        rep->any_wrong |= r->wrong > 0;
        printf("%13zu  %-12s %10.2f %12.2f %12.2f %8s %9s %10s\n", row.bytes, peer->name, r->median_us,
               row.algbw, row.busbw, wrong, vs_nccl, vs_staged);
        if (rep->csv) {
            fprintf(rep->csv, "%s,%zu,%s,%.3f,%.3f,%.3f,%.4f,%.4f,", bench_coll_name(op->coll), row.bytes,
                    peer->name, r->median_us, r->min_us, r->max_us, row.algbw, row.busbw);
            if (r->wrong >= 0)
                fprintf(rep->csv, "%lld", r->wrong);
            fprintf(rep->csv, ",%d\n", ctx->nranks);
        }
        keep_row(rep, &row);
    }
    fflush(stdout);
    if (rep->csv)
        fflush(rep->csv);
}
