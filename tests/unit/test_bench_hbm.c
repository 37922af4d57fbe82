/* mcoll-bench's HBM byte counts (benchmarks/mcoll-bench/hbm.c) against the counts that
 * collectives/README.md derives and tests/unit/test_pipeline.cu measures on the model of the
 * kernels: the staged and zero-copy bytes of every collective and algorithm (the one-shot
 * reduce's root reading its input in place), zero-copy moving fewer bytes than staged for every
 * collective, the LL protocol's counts up to ll_max (and
 * none for barrier), the per-GPU figure with and without shared
 * GPUs, and MCOLL_ONESHOT_MAX read as the library reads it. */
#include <math.h>
#include <stdlib.h>

#include "config.h"
#include "hbm.h"
#include "unit.h"

static int near(double a, double b) { return fabs(a - b) <= 1e-9 * (fabs(b) + 1); }

/* The busiest rank's bytes, in units of S. */
static double busiest_as(bench_coll c, mb_path path, size_t S, int n, int in_place, size_t osm, size_t llm,
                         int stores)
{
    mb_hbm h;
    const mb_protocol proto = { osm, llm, stores, 4 };
    if (mb_hbm_count(c, path, S, n, in_place, &proto, &h) != 0)
        return -1;
    return (h.root > h.other ? h.root : h.other) / (double)S;
}

/* The loads' counts (MCOLL_STORE_INPUTS=0). */
static double busiest_ll(bench_coll c, mb_path path, size_t S, int n, int in_place, size_t osm, size_t llm)
{
    return busiest_as(c, path, S, n, in_place, osm, llm, 0);
}

static double busiest(bench_coll c, mb_path path, size_t S, int n, int in_place, size_t osm)
{
    return busiest_ll(c, path, S, n, in_place, osm, 0);
}

/* Root's bytes (reduce) for elements of elem_bytes, in units of S. */
static double root_as(bench_coll c, mb_path path, size_t S, int n, int in_place, size_t osm, size_t elem_bytes)
{
    mb_hbm h;
    const mb_protocol proto = { osm, 0, 0, elem_bytes };
    return mb_hbm_count(c, path, S, n, in_place, &proto, &h) != 0 ? -1 : h.root / (double)S;
}

int main(void)
{
    const size_t K = 1024, M = K * K, osm = 256 * K;

    /* The documented counts, 4 ranks. */
    CHECK(near(busiest(BENCH_ALLREDUCE, MB_PATH_STAGED, 256 * K, 4, 0, osm), 7)); /* one-shot (n + 3) */
    CHECK(near(busiest(BENCH_ALLREDUCE, MB_PATH_STAGED, 256 * K + 4, 4, 0, osm), 6)); /* two-shot */
    CHECK(near(busiest(BENCH_ALLREDUCE, MB_PATH_ZERO_COPY, M, 4, 0, osm), 2));
    CHECK(near(busiest_as(BENCH_ALLREDUCE, MB_PATH_ZERO_COPY, M, 4, 0, osm, 0, 1), 4)); /* by stores */
    CHECK(near(busiest_as(BENCH_ALLREDUCE, MB_PATH_STAGED, M, 4, 0, osm, 0, 1), 6));
    CHECK(near(busiest_as(BENCH_REDUCE_SCATTER, MB_PATH_ZERO_COPY, M, 4, 0, osm, 0, 1), 1.25)); /* loads */
    /* One-shot reduce: root reads its input in place (2S), the others copy theirs in (3S). */
    CHECK(near(busiest(BENCH_REDUCE, MB_PATH_STAGED, 64 * K, 4, 0, osm), 3));      /* the others */
    CHECK(near(root_as(BENCH_REDUCE, MB_PATH_STAGED, 64 * K, 4, 0, osm, 4), 2));
    CHECK(near(busiest(BENCH_REDUCE, MB_PATH_STAGED, M, 4, 0, osm), 6));           /* root, two-shot */
    CHECK(near(busiest(BENCH_REDUCE, MB_PATH_STAGED, M, 2, 0, osm), 3));           /* 2 ranks: one-shot */
    CHECK(near(root_as(BENCH_REDUCE, MB_PATH_STAGED, 512 * M, 2, 0, osm, 8), 2));
    CHECK(near(root_as(BENCH_REDUCE, MB_PATH_STAGED, 512 * M, 2, 1, osm, 4), 2));  /* in place too */
    CHECK(near(root_as(BENCH_REDUCE, MB_PATH_STAGED, 512 * M, 2, 0, osm, 1), 4));  /* 8-bit: copied */
    CHECK(near(root_as(BENCH_REDUCE, MB_PATH_STAGED, M, 4, 0, osm, 1), 6));        /* two-shot either way */
    CHECK(near(busiest(BENCH_REDUCE, MB_PATH_ZERO_COPY, M, 4, 0, osm), 2));        /* root */
    CHECK(near(busiest(BENCH_REDUCE, MB_PATH_ZERO_COPY, M, 2, 1, osm), 2));        /* in place too */
    CHECK(near(busiest(BENCH_BCAST, MB_PATH_STAGED, 64 * K, 4, 0, osm), 3));
    CHECK(near(busiest(BENCH_BCAST, MB_PATH_STAGED, M, 4, 0, osm), 3 + 2.0 / 3));  /* scattered */
    CHECK(near(busiest(BENCH_BCAST, MB_PATH_STAGED, M, 2, 0, osm), 3));            /* never on 2 ranks */
    CHECK(near(busiest(BENCH_BCAST, MB_PATH_ZERO_COPY, M, 4, 0, osm), 1));
    CHECK(near(busiest(BENCH_REDUCE_SCATTER, MB_PATH_STAGED, M, 4, 0, osm), 3.25));
    CHECK(near(busiest(BENCH_REDUCE_SCATTER, MB_PATH_ZERO_COPY, M, 4, 0, osm), 1.25));
    CHECK(near(busiest(BENCH_ALLGATHER, MB_PATH_STAGED, M, 4, 0, osm), 3.25));
    CHECK(near(busiest(BENCH_ALLGATHER, MB_PATH_STAGED, M, 4, 1, osm), 2.75));
    CHECK(near(busiest(BENCH_ALLGATHER, MB_PATH_ZERO_COPY, M, 4, 0, osm), 1.25));
    CHECK(near(busiest(BENCH_ALLGATHER, MB_PATH_ZERO_COPY, M, 4, 1, osm), 1));
    CHECK(busiest(BENCH_ALLREDUCE, MB_PATH_UNKNOWN, M, 4, 0, osm) < 0);
    CHECK(busiest(BENCH_BARRIER, MB_PATH_STAGED, 0, 4, 0, osm) < 0);

    /* The LL protocol up to ll_max of payload (the whole vector, or one rank's block). */
    CHECK(near(busiest_ll(BENCH_ALLREDUCE, MB_PATH_STAGED, 2 * K, 4, 0, osm, 2 * K), 18)); /* 4n + 2 */
    CHECK(near(busiest_ll(BENCH_ALLREDUCE, MB_PATH_STAGED, 2 * K + 4, 4, 0, osm, 2 * K), 7)); /* one-shot */
    CHECK(near(busiest_ll(BENCH_REDUCE, MB_PATH_STAGED, 2 * K, 2, 0, osm, 2 * K), 10)); /* root */
    CHECK(near(busiest_ll(BENCH_BCAST, MB_PATH_STAGED, 2 * K, 4, 0, osm, 2 * K), 5));
    CHECK(near(busiest_ll(BENCH_REDUCE_SCATTER, MB_PATH_STAGED, 8 * K, 4, 0, osm, 2 * K), 5.25));
    CHECK(near(busiest_ll(BENCH_ALLGATHER, MB_PATH_STAGED, 8 * K, 4, 1, osm, 2 * K), 5.25));
    CHECK(near(busiest_ll(BENCH_ALLGATHER, MB_PATH_STAGED, 16 * K, 4, 0, osm, 2 * K), 3.25)); /* block 4K */
    CHECK(near(busiest_ll(BENCH_ALLREDUCE, MB_PATH_ZERO_COPY, 2 * K, 4, 0, osm, 2 * K), 2)); /* not LL */

    /* Zero-copy moves fewer bytes than staged, for every collective that has it. */
    for (int c = 0; c < BENCH_BARRIER; c++)
        for (int n = 2; n <= 8; n++)
            for (size_t S = 1024; S <= ((size_t)1 << 30); S *= 4)
                for (int ip = 0; ip < 8; ip++) {
                    mb_hbm z, s;
                    /* loads, then stores; 4-byte, then 1-byte elements */
                    const mb_protocol proto = { osm, 0, ip / 2 % 2, ip < 4 ? 4 : 1 };
                    CHECK(mb_hbm_count((bench_coll)c, MB_PATH_ZERO_COPY, S, n, ip % 2, &proto, &z) == 0);
                    CHECK(mb_hbm_count((bench_coll)c, MB_PATH_STAGED, S, n, ip % 2, &proto, &s) == 0);
                    CHECK(mb_hbm_per_gpu(&z, n, n) < mb_hbm_per_gpu(&s, n, n));
                    CHECK(mb_hbm_per_gpu(&z, n, 1) < mb_hbm_per_gpu(&s, n, 1));
                }

    /* Per GPU: the busiest rank alone on its GPU, every rank's bytes on a shared one. */
    {
        mb_hbm h;
        const mb_protocol proto = { osm, 0, 1, 4 };
        CHECK(mb_hbm_count(BENCH_REDUCE, MB_PATH_STAGED, M, 4, 0, &proto, &h) == 0);
        CHECK(near(mb_hbm_per_gpu(&h, 4, 4), 6.0 * M));
        CHECK(near(mb_hbm_per_gpu(&h, 4, 1), (6.0 + 3 * 3.0) * M));
        CHECK(near(mb_hbm_per_gpu(&h, 4, 2), (6.0 + 3 * 3.0) * M / 2));
        /* Two ranks on one GPU: root's 2S and the other's 3S. */
        CHECK(mb_hbm_count(BENCH_REDUCE, MB_PATH_STAGED, M, 2, 0, &proto, &h) == 0);
        CHECK(near(mb_hbm_per_gpu(&h, 2, 2), 3.0 * M));
        CHECK(near(mb_hbm_per_gpu(&h, 2, 1), (2.0 + 3.0) * M));
    }

    /* MCOLL_ONESHOT_MAX as the library reads it, its default included. */
    {
        static const char *const values[] = { NULL, "1M", "64k", "0", "1G", "2G", "junk", "300000" };
        for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
            if (values[i])
                setenv("MCOLL_ONESHOT_MAX", values[i], 1);
            else
                unsetenv("MCOLL_ONESHOT_MAX");
            mcoll_settings_reload();
            if (mb_oneshot_max() != mcoll_settings_get()->oneshot_max)
                fprintf(stderr, "MCOLL_ONESHOT_MAX=%s: mcoll-bench reads %zu, mcoll %zu\n", values[i] ? values[i] : "(unset)",
                        mb_oneshot_max(), mcoll_settings_get()->oneshot_max);
            CHECK(mb_oneshot_max() == mcoll_settings_get()->oneshot_max);
        }
        unsetenv("MCOLL_ONESHOT_MAX");
        CHECK(mb_oneshot_max() == MB_ONESHOT_DEFAULT);
    }

    /* MCOLL_STORE_INPUTS likewise (a value mcoll refuses keeps its default, on). */
    {
        static const char *const values[] = { NULL, "0", "1", "off", "ON", "no", "yes", "junk" };
        for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
            if (values[i])
                setenv("MCOLL_STORE_INPUTS", values[i], 1);
            else
                unsetenv("MCOLL_STORE_INPUTS");
            mcoll_settings_reload();
            if (mb_store_inputs() != mcoll_settings_get()->store_inputs)
                fprintf(stderr, "MCOLL_STORE_INPUTS=%s: mcoll-bench reads %d, mcoll %d\n",
                        values[i] ? values[i] : "(unset)", mb_store_inputs(), mcoll_settings_get()->store_inputs);
            CHECK(mb_store_inputs() == mcoll_settings_get()->store_inputs);
        }
        unsetenv("MCOLL_STORE_INPUTS");
        mcoll_settings_reload();
    }
    return unit_exit("test_bench_hbm");
}
