/* Header, table and CSV; see report.h. */
#include "report.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bench_cli.h"
#include "bench_cuda.h"
#include "mcoll.h"

/* --- output ------------------------------------------------------------------------------- */

/* Everything rank 0 prints from the header on goes to stdout and to table.txt. */
static void out(const mb_report *rep, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    if (rep && rep->table) {
        va_start(ap, fmt);
        vfprintf(rep->table, fmt, ap);
        va_end(ap);
    }
}

static void flush(const mb_report *rep)
{
    fflush(stdout);
    if (rep && rep->table)
        fflush(rep->table);
}

/* nccl-tests' number format: `width` characters, two decimals where they fit, fewer or an
 * exponent where not. */
static void number(double v, int width, char *buf, size_t len)
{
    static const char *const formats[] = { "%*.2f", "%*.1f", "%*.0f" };
    for (int i = 0; i < 3; i++)
        if (snprintf(buf, len, formats[i], width, v) <= width)
            return;
    snprintf(buf, len, "%*.1e", width, v);
}

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
    rep->plot_in_place = !(ctx->opt->places & MB_OUT_OF_PLACE);
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
    /* The first ten columns are those of earlier mcoll-bench versions; the rest were added
     * (in_place, then path and the HBM bytes last). */
    fprintf(rep->csv, "collective,bytes,peer,time_us_median,time_us_min,time_us_max,"
                      "algbw_GBps,busbw_GBps,wrong,ranks,count,type,redop,root,in_place,path,hbm_bytes,hbm_gpu_bytes,"
                      "hbm_GBps\n");
    snprintf(path, sizeof path, "%s/table.txt", dir);
    rep->table = fopen(path, "w");
    if (!rep->table) {
        snprintf(why, len, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

void mb_report_close(mb_report *rep)
{
    if (rep->csv)
        fclose(rep->csv);
    if (rep->table)
        fclose(rep->table);
    if (rep->hier_csv)
        fclose(rep->hier_csv);
    rep->csv = rep->table = rep->hier_csv = NULL;
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
    char gpu[128];
    char bus[32];
    int device;
    int pid;
} rank_info;

static void print_env(const mb_report *rep, const char *name, const char *unset_meaning)
{
    const char *v = getenv(name);
    if (v)
        out(rep, "# %-17s %s\n", name, v);
    else
        out(rep, "# %-17s (unset: %s)\n", name, unset_meaning);
}

/* nccl-tests' settings line. */
static void print_settings_line(const mb_report *rep, const mb_options *o)
{
    char step[64];
    if (o->step_bytes)
        snprintf(step, sizeof step, "%zu(bytes)", o->step_bytes);
    else
        snprintf(step, sizeof step, "%g(factor)", o->step);
    out(rep, "# nThread 1 nGpus 1 minBytes %zu maxBytes %zu step: %s warmup iters: %d iters: %d agg iters: 1 "
             "validation: %d graph: %d\n",
        o->min_bytes, o->max_bytes, step, o->warmup, o->iters, o->check, o->graph_launches);
}

/* nccl-tests' device lines, and the line saying whether ranks share GPUs. */
static void print_gpus(const mb_report *rep, const mb_ctx *ctx, const rank_info *all, int n)
{
    int hosts = 0;
    for (int r = 0; r < n; r++) {
        int new_host = 1;
        for (int q = 0; q < r; q++)
            new_host &= strcmp(all[q].host, all[r].host) != 0;
        hosts += new_host;
    }
    out(rep, "#\n# Using devices\n");
    for (int r = 0; r < n; r++) {
        if (n > 16 && r == 8) {
            out(rep, "#  ... and %d more ranks\n", n - 8);
            break;
        }
        out(rep, "#  Rank %2d Group  0 Pid %6d on %10s device %2d [%s] %s\n", r, all[r].pid, all[r].host,
            all[r].device, all[r].bus, all[r].gpu);
    }
    out(rep, "#\n# %-17s %s%s\n", "host", all[0].host, hosts > 1 ? " and others: ranks span several hosts" : "");
    if (ctx->shared_gpu[0])
        out(rep, "# %-17s %d on %d GPU%s: %s (CUDA MPS lets them run side by side); times are those of\n"
                 "# %-17s shared GPUs, not of NVLink between GPUs\n",
            "ranks", n, ctx->ngpus, ctx->ngpus == 1 ? "" : "s", ctx->shared_gpu, "");
    else
        out(rep, "# %-17s %d, one process per GPU\n", "ranks", n);
}

static const char *places_text(int places)
{
    switch (places) {
    case MB_OUT_OF_PLACE: return "out of place only (--place out): the in-place columns show -";
    case MB_IN_PLACE: return "in place only (--place in): the out-of-place columns show -";
    default: return "out of place, then in place (MPI_IN_PLACE; NCCL: the same buffer)";
    }
}

static const char *average_text(int average)
{
    switch (average) {
    case 0: return "rank 0's time (-a 0)";
    case 1: return "the mean over ranks (-a 1)";
    case 2: return "the fastest rank (-a 2)";
    default: return "the slowest rank (-a 3)";
    }
}

static void print_settings(const mb_report *rep, const mb_options *o)
{
    char lo[32], hi[32], step[48];
    bench_format_bytes(o->min_bytes, lo, sizeof lo);
    bench_format_bytes(o->max_bytes, hi, sizeof hi);
    if (o->step_bytes) {
        char inc[32];
        bench_format_bytes(o->step_bytes, inc, sizeof inc);
        snprintf(step, sizeof step, "+%s", inc);
    } else {
        snprintf(step, sizeof step, "x%g", o->step);
    }
    out(rep, "# %-17s %s (%s, nccl-tests %s), op %s, root %d\n", "datatype", o->dtype->name, o->dtype->mpi_name,
        o->dtype->nccl_name, bench_op_name(o->op), o->root);
    out(rep, "# %-17s %s .. %s, %s%s\n", "sizes", lo, hi, step, o->quick ? " (--quick)" : "");
    out(rep, "# %-17s %s\n", "places", places_text(o->places));
    out(rep, "# %-17s median of %d batches; a batch is at most %d calls (fewer when large: about %g ms)\n",
        "timing", o->reps, o->iters, o->batch_ms);
    out(rep, "# %-17s after 1 + %d untimed calls; stream peers: cudaEvents around the enqueued calls%s;\n", "",
        o->warmup, o->graph_launches > 1 ? " (graphs: -G launches)" : "");
    out(rep, "# %-17s MPI peers: MPI_Wtime around the calls after a barrier; time = %s\n", "",
        average_text(o->average));
    if (o->check)
        out(rep, "# %-17s after timing, %d call%s on fresh input, every element: #wrong\n", "check", o->check,
            o->check == 1 ? "" : "s");
    else
        out(rep, "# %-17s off (-c 0): #wrong shows N/A\n", "check");
}

/* The protocol the hbm columns count: what the ranks agreed on where mcoll's communicator is
 * there, else what the environment asks for. */
static void protocol_of(const mb_ctx *ctx, mb_protocol *proto)
{
    mcoll_comm_info_t info;
    proto->elem_bytes = ctx && ctx->dtype ? ctx->dtype->size : 4;
    if (!ctx || !ctx->mcoll || mcoll_comm_info(ctx->mcoll, &info) != MCOLL_SUCCESS) {
        proto->oneshot_max = mb_oneshot_max();
        proto->ll_max = 0;
        proto->store_inputs = mb_store_inputs();
        return;
    }
    proto->oneshot_max = info.oneshot_max;
    proto->ll_max = info.ll_max;
    proto->store_inputs = info.store_inputs;
}

/* What the hbm columns count; shared: ranks share GPUs (1), not (0), not known yet (-1). */
static void print_hbm(const mb_report *rep, const mb_ctx *ctx, int shared)
{
    static const char *const gpu[] = { "the busiest rank's, or all ranks' over the GPUs they share",
                                       "the busiest rank's", "all ranks' over the GPUs they share" };
    char osm[32], llm[32];
    mb_protocol proto;
    protocol_of(ctx, &proto);
    bench_format_bytes(proto.oneshot_max, osm, sizeof osm);
    bench_format_bytes(proto.ll_max, llm, sizeof llm);
    out(rep, "# %-17s bytes a call moves through the busiest rank's GPU memory, from the algorithm's\n", "hbm");
    out(rep, "# %-17s byte count (benchmarks/README.md), in units of the size; hbmbw = bytes through\n", "");
    out(rep, "# %-17s one GPU's memory (%s) / time;\n", "", gpu[shared + 1]);
    out(rep, "# %-17s mcoll peers on the unicast engine; one-shot up to %s (MCOLL_ONESHOT_MAX)\n", "", osm);
    if (proto.ll_max)
        out(rep, "# %-17s calls whose payload is up to %s take the LL protocol (MCOLL_LL_MAX), with its count\n", "",
            llm);
}

void mb_report_header(mb_report *rep, const mb_ctx *ctx)
{
    rank_info me, *all = NULL;
    struct cudaDeviceProp prop;
    memset(&me, 0, sizeof me);
    if (gethostname(me.host, sizeof me.host - 1) != 0)
        snprintf(me.host, sizeof me.host, "unknown");
    me.host[strcspn(me.host, ".")] = '\0';
    me.device = ctx->device;
    me.pid = (int)getpid();
    if (cudaGetDeviceProperties(&prop, ctx->device) == cudaSuccess)
        snprintf(me.gpu, sizeof me.gpu, "%.127s", prop.name);
    else
        snprintf(me.gpu, sizeof me.gpu, "unknown GPU");
    if (cudaDeviceGetPCIBusId(me.bus, (int)sizeof me.bus, ctx->device) != cudaSuccess)
        snprintf(me.bus, sizeof me.bus, "?");
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

    out(rep, "# mcoll-bench: MPI collectives on GPU buffers, mcoll vs NCCL vs staged MPI\n");
    print_settings_line(rep, ctx->opt);
    print_gpus(rep, ctx, all, ctx->nranks);
    out(rep, "# %-17s %s\n", "date", date);
    out(rep, "# %-17s %d.%d (API %d.%d)\n", "mcoll", v / 1000, v % 1000, MCOLL_API_VERSION_MAJOR,
        MCOLL_API_VERSION_MINOR);
    out(rep, "# %-17s %s\n", "communicator", ctx->mcoll_desc);
    out(rep, "# %-17s %s\n", "MPI", mpi);
    out(rep, "# %-17s %s\n", "NCCL", mb_nccl_describe(ctx));
    print_env(rep, "NCCL_NVLS_ENABLE", "NCCL and mcoll use NVLink multicast where the hardware has it");
    print_env(rep, "MCOLL_NVLS", "auto");
    print_settings(rep, ctx->opt);
    print_hbm(rep, ctx, ctx->ngpus < ctx->nranks);
    for (int p = 0; p < MB_NPEERS; p++) {
        const mb_peer *peer = &ctx->peer[p];
        if (!peer->enabled)
            out(rep, "# peer %-16s not chosen (%s)\n", peer->name,
                ctx->opt->graph_launches == 0 && (p == MB_MCOLL_GRAPH || p == MB_NCCL_GRAPH) ? "-G 0" : "--peers");
        else if (!peer->ready && (p == MB_NCCL || p == MB_NCCL_GRAPH) && ctx->shared_gpu[0])
            continue; /* the NCCL line above says why, once */
        else if (!peer->ready)
            out(rep, "# peer %-16s not available: %s\n", peer->name, peer->why);
    }
    out(rep, "# %-17s %s/results.csv, %s/table.txt\n", "output", rep->dir, rep->dir);
    out(rep, "# Columns as nccl-tests prints them, then: peer; vs NCCL = NCCL time / this time (mcoll and\n"
             "# mcoll-window vs nccl, mcoll-graph vs nccl-graph, mcoll-mpi and mcoll-persistent vs nccl); vs staged =\n"
             "# staged time / this time; above 1 means faster; path (staged or zero-copy), hbm and hbmbw (above);\n"
             "# out-of-place times where measured, else in-place.\n"
             "# mcoll-hier lines: where mcoll-mpi's calls were hierarchical (a communicator spanning NVLink\n"
             "# domains), their time per call between the domains (MPI, staging included) and inside them,\n"
             "# as mcoll measures it (mcoll_hier_times); also in hier.csv.\n#\n");
    flush(rep);
    free(all);
}

/* --- table --------------------------------------------------------------------------------- */

static void print_columns(const mb_report *rep)
{
    out(rep, "# %10s  %12s  %8s  %6s  %6s           out-of-place                       in-place\n", "", "", "", "",
        "");
    out(rep, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s  %-16s  %7s  %9s  %-9s  %5s  %6s\n",
        "size", "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "time", "algbw", "busbw", "#wrong",
        "peer", "vs NCCL", "vs staged", "path", "hbm", "hbmbw");
    out(rep, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s  %-16s  %7s  %9s  %-9s  %5s  %6s\n",
        "(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "", "", "", "", "",
        "(x B)", "(GB/s)");
}

static void print_block_title(const mb_report *rep, bench_coll coll, const mb_options *o, int nranks)
{
    if (coll == BENCH_BARRIER) {
        out(rep, "# barrier: no data; one row (size 0), out of place; time per call\n");
        return;
    }
    out(rep, "# %s: %s, %s", bench_coll_name(coll), o->dtype->name,
        bench_coll_reduces(coll) ? bench_op_name(o->op) : "no op");
    if (bench_coll_has_root(coll))
        out(rep, ", root %d", o->root);
    if (nranks > 0)
        out(rep, ", %d ranks; busbw = algbw x %s = algbw x %.3f\n", nranks, bench_busbw_formula(coll),
            bench_busbw_factor(coll, nranks));
    else
        out(rep, "; busbw = algbw x %s (n ranks)\n", bench_busbw_formula(coll));
}

void mb_report_collective(mb_report *rep, const mb_ctx *ctx, bench_coll coll)
{
    memset(rep->busbw_sum, 0, sizeof rep->busbw_sum);
    memset(rep->busbw_rows, 0, sizeof rep->busbw_rows);
    rep->wrong = 0;
    rep->checked = 0;
    print_block_title(rep, coll, ctx->opt, ctx->nranks);
    print_columns(rep);
    flush(rep);
}

static void ratio(char *buf, size_t len, const mb_result *ref, const mb_result *r)
{
    if (ref && ref->ran && r->ran && r->median_us > 0)
        snprintf(buf, len, "%.2fx", ref->median_us / r->median_us);
    else
        snprintf(buf, len, "-");
}

/* The four columns of one place: time, algbw, busbw, #wrong; dashes where it did not run. */
static void print_place(const mb_report *rep, const mb_result *r, double bytes, double factor)
{
    char t[16], a[16], b[16], w[24];
    if (!r->ran) {
        out(rep, "  %7s  %6s  %6s  %6s", "-", "-", "-", "-");
        return;
    }
    number(r->median_us, 7, t, sizeof t);
    snprintf(a, sizeof a, "-");
    snprintf(b, sizeof b, "-");
    if (bytes > 0) { /* barrier moves no bytes: no bandwidth */
        number(bytes / r->median_us / 1e3, 6, a, sizeof a);
        number(bytes / r->median_us / 1e3 * factor, 6, b, sizeof b);
    }
    if (r->wrong < 0)
        snprintf(w, sizeof w, "%6s", "N/A");
    else
        snprintf(w, sizeof w, "%6lld", r->wrong);
    out(rep, "  %7s  %6s  %6s  %6s", t, a, b, w);
}

/* The HBM bytes of a result through the busiest rank's memory and per GPU; 0 where the peer's
 * path has no count. */
static int hbm_bytes(const mb_ctx *ctx, const mb_op *op, int in_place, const mb_result *r, double *rank,
                     double *gpu)
{
    mb_hbm h;
    mb_protocol proto;
    protocol_of(ctx, &proto);
    if (!r->ran || mb_hbm_count(op->coll, r->path, op->shape.bytes, ctx->nranks, in_place, &proto, &h) != 0)
        return 0;
    *rank = mb_hbm_per_gpu(&h, ctx->nranks, ctx->nranks);
    *gpu = mb_hbm_per_gpu(&h, ctx->nranks, ctx->ngpus);
    return 1;
}

static void record(mb_report *rep, const mb_ctx *ctx, const mb_op *op, int peer, int in_place, const mb_result *r)
{
    mb_row row;
    const bench_shape *s = &op->shape;
    memset(&row, 0, sizeof row);
    row.coll = op->coll;
    row.bytes = s->bytes;
    row.peer = peer;
    row.in_place = in_place;
    row.res = *r;
    row.algbw = (double)s->bytes / r->median_us / 1e3;
    row.busbw = row.algbw * bench_busbw_factor(op->coll, ctx->nranks);
    if (s->bytes > 0) {
        rep->busbw_sum[peer] += row.busbw;
        rep->busbw_rows[peer]++;
    }
    if (r->wrong >= 0) {
        rep->wrong += r->wrong;
        rep->checked = 1;
    }
    rep->any_wrong |= r->wrong > 0;
    if (rep->csv) {
        fprintf(rep->csv, "%s,%zu,%s,%.3f,%.3f,%.3f,%.4f,%.4f,", bench_coll_name(op->coll), row.bytes,
                mb_peer_name(peer), r->median_us, r->min_us, r->max_us, row.algbw, row.busbw);
        if (r->wrong >= 0)
            fprintf(rep->csv, "%lld", r->wrong);
        fprintf(rep->csv, ",%d,%zu,%s,%s,%d,%d,%s,", ctx->nranks, s->count, ctx->dtype->nccl_name,
                bench_coll_reduces(op->coll) ? bench_op_name(s->op) : "none",
                bench_coll_has_root(op->coll) ? s->root : -1, in_place, mb_path_name(r->path));
        double rank, gpu;
        if (hbm_bytes(ctx, op, in_place, r, &rank, &gpu))
            fprintf(rep->csv, "%.0f,%.0f,%.4f", rank, gpu, gpu / r->median_us / 1e3);
        else
            fprintf(rep->csv, ",,");
        fprintf(rep->csv, "\n");
    }
    keep_row(rep, &row);
}

/* path, hbm (the busiest rank's bytes / size) and hbmbw (bytes per GPU / time) of the place the
 * comparisons use; dashes without a count. */
static void print_hbm_columns(const mb_report *rep, const mb_ctx *ctx, const mb_op *op, int in_place,
                              const mb_result *r)
{
    char x[16], bw[16];
    double rank, gpu;
    if (!hbm_bytes(ctx, op, in_place, r, &rank, &gpu)) {
        out(rep, "  %-9s  %5s  %6s\n", r->ran && r->path != MB_PATH_UNKNOWN ? mb_path_name(r->path) : "-", "-", "-");
        return;
    }
    number(rank / (double)op->shape.bytes, 5, x, sizeof x);
    number(gpu / r->median_us / 1e3, 6, bw, sizeof bw);
    out(rep, "  %-9s  %5s  %6s\n", mb_path_name(r->path), x, bw);
}

void mb_report_size(mb_report *rep, const mb_ctx *ctx, const mb_op *op, const mb_result res[2][MB_NPEERS],
                    int first_size)
{
    const bench_shape *s = &op->shape;
    double factor = bench_busbw_factor(op->coll, ctx->nranks);
    for (int p = 0; p < MB_NPEERS; p++) {
        const mb_peer *peer = &ctx->peer[p];
        const mb_result *o = &res[0][p], *i = &res[1][p];
        /* The comparisons use out-of-place times where they were measured. */
        int k = o->ran || !(ctx->opt->places & MB_IN_PLACE) ? 0 : 1;
        char vs_nccl[16], vs_staged[16];
        if (!peer->enabled)
            continue;
        if (!peer->ready) { /* said once per collective; the header has it too */
            if (first_size)
                out(rep, "# %10zu  %-16s %s\n", s->bytes, peer->name, peer->why);
            continue;
        }
        for (int pl = 0; pl < 2; pl++)
            if (ctx->opt->places & (pl ? MB_IN_PLACE : MB_OUT_OF_PLACE) && !res[pl][p].ran)
                out(rep, "# %10zu  %-16s %s: %s\n", s->bytes, peer->name, pl ? "in place" : "out of place",
                    res[pl][p].note);
        if (!o->ran && !i->ran)
            continue;
        ratio(vs_nccl, sizeof vs_nccl, peer->nccl_ref >= 0 ? &res[k][peer->nccl_ref] : NULL, &res[k][p]);
        ratio(vs_staged, sizeof vs_staged,
              p != MB_STAGED && ctx->peer[MB_STAGED].enabled ? &res[k][MB_STAGED] : NULL, &res[k][p]);
        out(rep, "%12zu  %12zu  %8s  %6s  %6d", s->bytes, s->count, ctx->dtype->nccl_name,
            bench_coll_reduces(op->coll) ? bench_op_name(s->op) : "none",
            bench_coll_has_root(op->coll) ? s->root : -1);
        print_place(rep, o, (double)s->bytes, factor);
        print_place(rep, i, (double)s->bytes, factor);
        out(rep, "  %-16s  %7s  %9s", peer->name, vs_nccl, vs_staged);
        print_hbm_columns(rep, ctx, op, k, &res[k][p]);
        if (o->ran)
            record(rep, ctx, op, p, 0, o);
        if (i->ran)
            record(rep, ctx, op, p, 1, i);
    }
    flush(rep);
    if (rep->csv)
        fflush(rep->csv);
}

/* The split is a comment line, so that tools reading nccl-tests' tables skip it. */
void mb_report_split(mb_report *rep, const mb_op *op, const mb_split split[2])
{
    char path[1100], between[16], inside[16];
    int printed = 0;
    for (int pl = 0; pl < 2; pl++) {
        const mb_split *s = &split[pl];
        double whole = s->between_us + s->inside_us;
        if (s->calls <= 0)
            continue;
        number(s->between_us, 7, between, sizeof between);
        number(s->inside_us, 7, inside, sizeof inside);
        if (!printed)
            out(rep, "# %10zu  %-16s", op->shape.bytes, "mcoll-hier");
        out(rep, "%s %s: between domains %s us (%2.0f%%), inside domains %s us per call", printed ? ";" : "",
            pl ? "in place" : "out of place", between, whole > 0 ? 100.0 * s->between_us / whole : 0.0, inside);
        printed = 1;
        if (!rep->hier_csv) {
            snprintf(path, sizeof path, "%s/hier.csv", rep->dir);
            rep->hier_csv = fopen(path, "w");
            if (rep->hier_csv)
                fprintf(rep->hier_csv, "collective,bytes,in_place,calls,between_us,inside_us\n");
        }
        if (rep->hier_csv)
            fprintf(rep->hier_csv, "%s,%zu,%d,%ld,%.3f,%.3f\n", bench_coll_name(op->coll), op->shape.bytes, pl,
                    s->calls, s->between_us, s->inside_us);
    }
    if (printed)
        out(rep, "\n");
    flush(rep);
    if (rep->hier_csv)
        fflush(rep->hier_csv);
}

/* nccl-tests' closing lines, with a bus bandwidth line per peer. */
void mb_report_footer(mb_report *rep, const mb_ctx *ctx)
{
    if (rep->checked)
        out(rep, "# %-20s : %lld %s\n", "Out of bounds values", rep->wrong, rep->wrong ? "FAILED" : "OK");
    else
        out(rep, "# %-20s : N/A (not checked)\n", "Out of bounds values");
    for (int p = 0; p < MB_NPEERS; p++)
        if (rep->busbw_rows[p] > 0)
            out(rep, "# %-20s : %g  (peer %s)\n", "Avg bus bandwidth", rep->busbw_sum[p] / rep->busbw_rows[p],
                ctx->peer[p].name);
    out(rep, "#\n");
    flush(rep);
}

void mb_report_dry_run(const mb_options *o)
{
    out(NULL, "# mcoll-bench: MPI collectives on GPU buffers, mcoll vs NCCL vs staged MPI\n");
    print_settings_line(NULL, o);
    out(NULL, "# dry run: the settings below, nothing measured\n");
    print_settings(NULL, o);
    print_hbm(NULL, NULL, -1);
    out(NULL, "# %-17s", "collectives");
    for (int c = 0; c < BENCH_NCOLLS; c++)
        if (o->coll[c])
            out(NULL, " %s", bench_coll_name((bench_coll)c));
    out(NULL, "\n# %-17s", "peers");
    for (int p = 0; p < MB_NPEERS; p++)
        if (o->peer[p])
            out(NULL, " %s", mb_peer_name(p));
    out(NULL, "\n# %-17s %s\n", "output", o->outdir ? o->outdir : "mcoll-bench-<date>-<time>");
    out(NULL, "# %-17s a block per collective, headed by a line such as\n#\n", "table");
    print_block_title(NULL, BENCH_ALLREDUCE, o, 0);
    print_columns(NULL);
    flush(NULL);
}
