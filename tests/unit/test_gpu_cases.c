/* The GPU suites' cases of the block collectives (allgatherv ... scatterv) and of scan and
 * exscan, on the CPU: every rank of a team is prepared in this one process with host buffers
 * (tests/gpu/common: prep, blocks), the calls it would make are carried out by a plain host
 * version of each collective written from the MPI definitions (scans through the kernels'
 * arithmetic, pack_reduce.cu), and every rank's check must pass; after one changed element of a
 * receive buffer it must fail. So the suites' counts, displacements, in-place layouts and
 * expected buffers agree with MPI before a GPU ever runs them. Runs after MPI_Init as a
 * singleton, at 1 to 5 ranks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include "dtype.h"
#include "gpu/common/api.h"
#include "gpu/common/blocks.h"
#include "gpu/common/prep.h"
#include "gpu/common/report.h"
#include "pack_reduce.h"
#include "unit.h"

#define MAX_RANKS 5

static unsigned char *copy_of(const void *p, size_t n)
{
    unsigned char *c = malloc(n + 1);
    if (c && n) memcpy(c, p, n);
    return c;
}

/* What rank r's call does to its receive buffer, from every rank's call and a copy of every
 * rank's input as it was before any of them (in place: the receive buffer). */
static void host_collective(const coll_case *c, const coll_call *call, unsigned char *const *in, int size, int r)
{
    const coll_call *k = &call[r], *root = &call[c->root];
    unsigned char *rb = k->recvbuf;
    size_t el = c->type->size, n = c->count;
    int q;

    switch (c->kind) {
    case COLL_ALLGATHERV:
        for (q = 0; q < size; q++) /* in place, rank q's block is at its displacement */
            memcpy(rb + k->rdispls[q] * el, in[q] + (call[q].sendbuf == MPI_IN_PLACE ? call[q].rdispls[q] * el : 0),
                   k->recvcounts[q] * el);
        break;
    case COLL_ALLTOALL:
        for (q = 0; q < size; q++) memcpy(rb + q * n * el, in[q] + r * n * el, n * el);
        break;
    case COLL_ALLTOALLV:
        for (q = 0; q < size; q++) {
            const size_t *sd = call[q].sendbuf == MPI_IN_PLACE ? call[q].rdispls : call[q].sdispls;
            memcpy(rb + k->rdispls[q] * el, in[q] + sd[r] * el, k->recvcounts[q] * el);
        }
        break;
    case COLL_GATHER:
    case COLL_GATHERV:
        if (r != c->root) break;
        for (q = 0; q < size; q++) {
            if (q == r && k->sendbuf == MPI_IN_PLACE) continue;
            memcpy(rb + (c->kind == COLL_GATHER ? q * n : k->rdispls[q]) * el, in[q],
                   (c->kind == COLL_GATHER ? n : k->recvcounts[q]) * el);
        }
        break;
    case COLL_SCATTER:
    case COLL_SCATTERV:
        if (k->recvbuf == MPI_IN_PLACE) break;
        memcpy(rb, in[c->root] + (c->kind == COLL_SCATTER ? r * n : root->sdispls[r]) * el, k->count * el);
        break;
    case COLL_SCAN:
    case COLL_EXSCAN: {
        mcoll_dtype dt;
        mcoll_op op;
        int upto = c->kind == COLL_SCAN ? r + 1 : r;
        if (upto && n && !mcoll_dtype_from_mpi(type_mpi(c->type), &dt) && !mcoll_op_from_mpi(op_mpi(c->op), dt, &op))
            pack_reduce(dt, op, upto, 0, (const void *const *)in, rb, n);
        break;
    }
    default:
        break;
    }
}

/* 0 when the checks of every rank agree with `broken` (a receive buffer changed or not). */
static int one_case(coll_case c, int size, int broken)
{
    coll_prep prep[MAX_RANKS];
    coll_call call[MAX_RANKS];
    unsigned char *in[MAX_RANKS];
    size_t el = c.type->size;
    int r, failed = 0, wrong = 0;
    char name[192], label[16];

    c.mem = MEM_HOST;
    case_name("host", &c, name, sizeof name);
    case_begin("%s", name); /* the failures of this case only; no case_end, which prints */
    for (r = 0; r < size; r++) {
        if (prep_alloc(&prep[r], &c, r, size) || prep_load(&prep[r], case_seed())) { /* one seed, all ranks */
            fprintf(stderr, "%s: could not prepare rank %d\n", name, r);
            return 1;
        }
        prep_call(&prep[r], &call[r]);
    }
    for (r = 0; r < size; r++) {
        int ip = call[r].sendbuf == MPI_IN_PLACE;
        in[r] = copy_of(ip ? call[r].recvbuf : call[r].sendbuf, (ip ? prep[r].recv_elems : prep[r].in_elems) * el);
    }
    for (r = 0; r < size; r++) host_collective(&c, call, in, size, r);
    if (broken) {
        broken = 0;
        for (r = size - 1; r >= 0 && !broken; r--)
            if (prep[r].has_recv && prep[r].recv_elems) {
                unsigned char *e = (unsigned char *)call[r].recvbuf + prep[r].recv_elems / 2 * el;
                size_t i;
                for (i = 0; i < el; i++) e[i] ^= 0x5A;
                broken = 1;
            }
    }
    for (r = 0; r < size; r++) {
        snprintf(label, sizeof label, "rank %d: ", r);
        failed |= prep_check(&prep[r], label) != 0;
    }
    if (failed != broken) {
        fprintf(stderr, "%s at %d ranks: the checks %s %s\n", name, size,
                broken ? "passed a changed receive buffer" : "failed the right result:", case_detail());
        wrong = 1;
    }
    for (r = 0; r < size; r++) {
        prep_free(&prep[r]);
        free(in[r]);
    }
    return wrong;
}

int main(int argc, char **argv)
{
    static const coll_kind blocks[] = {COLL_ALLGATHERV, COLL_ALLTOALL, COLL_ALLTOALLV, COLL_GATHER,
                                       COLL_GATHERV, COLL_SCATTER, COLL_SCATTERV};
    static const type_id types[] = {TT_BYTE, TT_FLOAT16, TT_CDOUBLE};
    static const size_t counts[] = {0, 1, 7, 1023};
    static const gpu_opts opts = {0, NULL, 1};
    size_t k, t, i, o;
    int size, ip, root, broken, cases = 0, wrong = 0;

    MPI_Init(&argc, &argv);
    report_init("test_gpu_cases", &opts);
    for (size = 1; size <= MAX_RANKS; size++)
        for (k = 0; k < sizeof blocks / sizeof blocks[0]; k++)
            for (t = 0; t < sizeof types / sizeof types[0]; t++)
                for (i = 0; i < sizeof counts / sizeof counts[0]; i++)
                    for (ip = 0; ip < 4; ip++)
                        for (root = 0; root < size; root++)
                            for (broken = 0; broken < 2; broken++) {
                                coll_case c = {blocks[k], type_get(types[t]), NULL, counts[i], root, ip & 1, ip >> 1, 0,
                                               MEM_HOST, 0};
                                wrong += one_case(c, size, broken);
                                cases++;
                                if (blocks[k] != COLL_GATHER && blocks[k] != COLL_GATHERV) continue;
                                c.null_recv = 1;
                                wrong += one_case(c, size, broken);
                                cases++;
                            }
    for (size = 1; size <= MAX_RANKS; size++)
        for (t = 0; t < num_reducible_types; t++)
            for (o = 0; o < num_test_ops; o++) {
                if (!op_applies(&test_ops[o], &reducible_types[t])) continue;
                for (k = 0; k < 2; k++)
                    for (i = 1; i < sizeof counts / sizeof counts[0]; i++)
                        for (ip = 0; ip < 2; ip++)
                            for (broken = 0; broken < 2; broken++) {
                                coll_case c = {k ? COLL_EXSCAN : COLL_SCAN, &reducible_types[t], &test_ops[o], counts[i],
                                               0, ip, ip, 0, MEM_HOST, 0};
                                wrong += one_case(c, size, broken);
                                cases++;
                            }
            }
    printf("%d cases, %d wrong verdicts\n", cases, wrong);
    CHECK(wrong == 0);
    CHECK(cases > 10000);
    MPI_Finalize();
    return unit_exit("test_gpu_cases");
}
