/* The GPU suites' inputs and host reference (tests/gpu/common: types, gen, reference) on the
 * CPU, against the kernels' own arithmetic: for every datatype and op of the suites' matrix,
 * each rank's input is made as a GPU case makes it, the datatype and op go through mcoll's MPI
 * table to the kernels' types, a host model of the unicast kernels (pack_reduce.cu) reduces
 * them, and the result must pass the suites' comparison, with the padding after the last
 * element untouched. A wrong value or index must fail it. The prefixes of scan and exscan
 * (ranks 0..k-1 in rank order) must pass the prefix comparison. Runs after MPI_Init as a
 * singleton. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include "dtype.h"
#include "gpu/common/gen.h"
#include "gpu/common/reference.h"
#include "gpu/common/types.h"
#include "pack_reduce.h"
#include "unit.h"

#define MAX_RANKS 8

/* 0 when the reduction of `count` elements over `n` ranks passes the reference. */
static int one_case(const test_type *t, const test_op *op, int n, size_t count, uint64_t seed)
{
    void *in[MAX_RANKS];
    unsigned char *out = malloc(count * t->size);
    size_t tail = t->size - type_data_end(t), bad, i;
    mcoll_dtype dt;
    mcoll_op mop;
    char why[200] = "";
    gen_ctx g;
    int r, k, failed = 0;

    gen_init(&g, t, op, n, seed);
    for (r = 0; r < n; r++) {
        in[r] = malloc(count * t->size);
        gen_fill(&g, r, 0, count, in[r]);
    }
    memset(out, 0xFF, count * t->size);
    if (mcoll_dtype_from_mpi(type_mpi(t), &dt) || mcoll_op_from_mpi(op_mpi(op), dt, &mop) ||
        pack_reduce(dt, mop, n, n - 1, (const void *const *)in, out, count)) {
        fprintf(stderr, "%s/%s: not reduced by the kernels\n", t->name, op->name);
        failed = 1;
    } else if ((bad = ref_check_reduced(&g, out, 0, count, why, sizeof why)) != 0) {
        fprintf(stderr, "%s/%s n=%zu ranks=%d: %s\n", t->name, op->name, count, n, why);
        failed = 1;
    } else {
        for (i = count * t->size - tail; i < count * t->size; i++) failed |= out[i] != 0xFF;
        if (failed) fprintf(stderr, "%s/%s: padding after the last element written\n", t->name, op->name);
        /* The comparison notices a wrong element: the value (or real part), or a pair's index. */
        if (count > 2 && !failed) {
            tvalue v = type_load(t, out, count / 2);
            if (t->format == FMT_PAIR) v.k ^= 1;
            else if (type_is_float(t) || t->format == FMT_CF32 || t->format == FMT_CF64) v.f += 1 + fabs(v.f);
            else v.u ^= 1;
            type_store(t, out, count / 2, v);
            if (ref_check_reduced(&g, out, 0, count, why, sizeof why) != 1) {
                fprintf(stderr, "%s/%s: a wrong element passed\n", t->name, op->name);
                failed = 1;
            }
        }
    }
    /* Scan and exscan: the prefix over ranks 0..k-1, combined in rank order as the kernels do,
     * against the suites' prefix reference. */
    for (k = 1; k <= n && !failed; k++) {
        memset(out, 0xFF, count * t->size);
        if (pack_reduce(dt, mop, k, 0, (const void *const *)in, out, count) ||
            ref_check_prefix(&g, k, out, 0, count, why, sizeof why)) {
            fprintf(stderr, "%s/%s n=%zu ranks=%d, prefix of %d: %s\n", t->name, op->name, count, n, k, why);
            failed = 1;
        }
    }
    for (r = 0; r < n; r++) free(in[r]);
    free(out);
    return failed;
}

int main(int argc, char **argv)
{
    static const int ranks[] = {1, 2, 3, 4, 8};
    static const size_t counts[] = {1, 3, 37, 1031};
    size_t t, o, k, c, cases = 0, failures = 0;

    MPI_Init(&argc, &argv);
    for (t = 0; t < num_reducible_types; t++)
        for (o = 0; o < num_test_ops; o++) {
            if (!op_applies(&test_ops[o], &reducible_types[t])) continue;
            for (k = 0; k < sizeof ranks / sizeof ranks[0]; k++)
                for (c = 0; c < sizeof counts / sizeof counts[0]; c++) {
                    failures += one_case(&reducible_types[t], &test_ops[o], ranks[k], counts[c], 1000 * t + 10 * o + k);
                    cases++;
                }
        }
    CHECK(failures == 0);
    CHECK(cases > 1000);
    /* Pair inputs tie often (values from a set of four) */
    {
        gen_ctx g;
        size_t i, ties = 0;
        gen_init(&g, type_get(TT_DOUBLE_INT), op_get(OP_MINLOC), 2, 7);
        for (i = 0; i < 1000; i++) ties += gen_value(&g, 0, i).f == gen_value(&g, 1, i).f;
        CHECK(ties > 150 && ties < 350);
    }
    /* Bools are 0 or 1; logical inputs of every width are zero or one bit */
    {
        gen_ctx g;
        size_t i;
        int ok = 1;
        gen_init(&g, type_get(TT_BOOL), op_get(OP_LXOR), 4, 3);
        for (i = 0; i < 1000; i++) ok &= gen_value(&g, i % 4, i).u <= 1;
        gen_init(&g, type_get(TT_UINT16), op_get(OP_LAND), 4, 3);
        for (i = 0; i < 1000; i++) {
            uint64_t u = gen_value(&g, i % 4, i).u;
            ok &= (u & (u - 1)) == 0;
        }
        CHECK(ok);
    }
    printf("%zu cases\n", cases);
    MPI_Finalize();
    return unit_exit("test_gpu_reference");
}
