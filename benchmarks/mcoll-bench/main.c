/* mcoll-bench: the side-by-side comparison of mcoll (native API on a stream, on window memory and
 * in CUDA graphs, and through MPI calls), NCCL and staged MPI, on the same sizes and run. See
 * benchmarks/README.md for what the columns mean and how the timing is kept fair. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "bench_env.h"
#include "context.h"
#include "measure.h"
#include "options.h"
#include "plot.h"
#include "progress.h"
#include "report.h"
#include "split.h"

#define MAX_SIZES 4096

/* The sizes of the sweep, min to max by the step factor (-f) or increment (-i); duplicates
 * from rounding dropped; at most MAX_SIZES. */
static int sizes(const mb_options *o, size_t *out)
{
    int n = 0;
    if (o->step_bytes) {
        for (size_t b = o->min_bytes; b <= o->max_bytes && n < MAX_SIZES; b += o->step_bytes) {
            out[n++] = b;
            if (b > o->max_bytes - o->step_bytes)
                break;
        }
        return n;
    }
    for (double s = (double)o->min_bytes; s <= (double)o->max_bytes && n < MAX_SIZES; s *= o->step) {
        size_t b = (size_t)s;
        if (n == 0 || b != out[n - 1])
            out[n++] = b;
    }
    return n;
}

static void sweep(mb_ctx *ctx, mb_report *rep)
{
    static size_t size[MAX_SIZES];
    const mb_options *o = ctx->opt;
    int nsizes = sizes(o, size), ncolls = 0, done = 0;
    for (int c = 0; c < BENCH_NCOLLS; c++)
        ncolls += o->coll[c];

    for (int c = 0; c < BENCH_NCOLLS; c++) {
        size_t last_bytes = 0;
        int first = 1;
        if (!o->coll[c])
            continue;
        if (ctx->rank == 0)
            mb_report_collective(rep, ctx, (bench_coll)c);
        for (int i = 0; i < nsizes; i++, done++) {
            mb_op op;
            mb_result res[2][MB_NPEERS];
            mb_split split[2];
            op.coll = (bench_coll)c;
            /* Sizes below one element per rank, or equal to the last after rounding down to
             * whole elements per rank, add no row. */
            if (bench_shape_for(op.coll, size[i], ctx->dtype->size, ctx->nranks, ctx->rank, &op.shape) != 0 ||
                (!first && op.shape.bytes == last_bytes))
                continue; /* barrier's shape is the same at every size: one row */
            last_bytes = op.shape.bytes;
            op.shape.root = o->root;
            op.shape.op = o->op;
            if (ctx->rank == 0)
                mb_progress(done, ncolls * nsizes, bench_coll_name(op.coll), op.shape.bytes);
            memset(res, 0, sizeof res);
            memset(split, 0, sizeof split);
            /* Every peer out of place, then every peer in place, as nccl-tests orders them. */
            for (int place = 0; place < 2; place++) {
                if (!(o->places & (place ? MB_IN_PLACE : MB_OUT_OF_PLACE)) || (place && c == BENCH_BARRIER))
                    continue;
                op.in_place = place;
                for (int p = 0; p < MB_NPEERS; p++) {
                    if (!ctx->peer[p].enabled || !ctx->peer[p].ready)
                        continue;
                    /* mcoll-mpi's calls on a communicator spanning NVLink domains: their split. */
                    mb_measure(ctx, p, &op, &res[place][p], p == MB_MCOLL_MPI ? &split[place] : NULL);
                }
            }
            if (ctx->rank == 0) {
                mb_report_size(rep, ctx, &op, (const mb_result(*)[MB_NPEERS])res, first);
                mb_report_split(rep, &op, split);
            }
            first = 0;
        }
        if (ctx->rank == 0)
            mb_report_footer(rep, ctx);
    }
}

static void default_dir(char *buf, size_t len)
{
    time_t now = time(NULL);
    char stamp[32];
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", localtime(&now));
    snprintf(buf, len, "mcoll-bench-%s", stamp);
}

int main(int argc, char **argv)
{
    mb_options opt;
    mb_ctx ctx;
    mb_report rep;
    char why[512] = "", dir[1024];
    int rc, any_wrong = 0;

    rc = mb_options_parse(argc, argv, &opt);
    if (rc != 0)
        return rc > 0 ? 0 : BENCH_EXIT_USAGE;
    if (opt.dry_run) {
        if (bench_env_is_printer())
            mb_report_dry_run(&opt);
        return 0;
    }
    /* The GPU is chosen before MPI_Init, from the launcher's local rank. */
    if (bench_select_device(why, sizeof why) < 0) {
        if (bench_env_is_printer())
            fprintf(stderr, "mcoll-bench: %s; nothing to measure (exit status %d)\n", why, BENCH_EXIT_NO_GPU);
        return BENCH_EXIT_NO_GPU;
    }
    MPI_Init(&argc, &argv);
    {
        int rank, nranks;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        MPI_Comm_size(MPI_COMM_WORLD, &nranks);
        if (opt.root >= nranks) {
            if (rank == 0)
                fprintf(stderr, "mcoll-bench: -r %d: the root must be below the %d ranks (the number of timed "
                                "batches is --reps)\n", opt.root, nranks);
            MPI_Finalize();
            return BENCH_EXIT_USAGE;
        }
    }
    mb_ctx_init(&ctx, &opt);

    memset(&rep, 0, sizeof rep);
    if (opt.outdir)
        snprintf(dir, sizeof dir, "%s", opt.outdir);
    else
        default_dir(dir, sizeof dir);
    rc = ctx.rank == 0 ? mb_report_open(&rep, &ctx, dir, why, sizeof why) : 0;
    if (!mb_agree(&ctx, rc == 0, why, sizeof why)) {
        if (ctx.rank == 0)
            fprintf(stderr, "mcoll-bench: %s\n", why);
        mb_report_close(&rep);
        mb_ctx_fini(&ctx);
        MPI_Finalize();
        return BENCH_EXIT_USAGE;
    }

    mb_mpi_setup(&ctx);
    mb_persistent_setup(&ctx);
    mb_mcoll_setup(&ctx);
    mb_window_setup(&ctx);
    mb_nccl_setup(&ctx);
    mb_report_header(&rep, &ctx);
    sweep(&ctx, &rep);

    mb_nccl_teardown(&ctx);
    mb_window_teardown(&ctx);
    mb_mcoll_teardown(&ctx);
    mb_persistent_teardown(&ctx);
    mb_mpi_teardown(&ctx);
    if (ctx.rank == 0) {
        mb_report_close(&rep);
        mb_plot_write(&rep);
        any_wrong = rep.any_wrong;
    }
    MPI_Bcast(&any_wrong, 1, MPI_INT, 0, ctx.comm);
    mb_ctx_fini(&ctx);
    MPI_Finalize();
    if (ctx.rank == 0) {
        mb_plot_run(&rep, opt.plot);
        if (any_wrong)
            printf("# some results were WRONG (#wrong column): exit status 1\n");
    }
    /* Rank 0 alone carries the status: a launcher that sees another rank fail first ends the
     * job before rank 0 has printed and plotted. */
    return ctx.rank == 0 && any_wrong ? 1 : 0;
}
