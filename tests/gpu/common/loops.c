/* Back-to-back calls; see loops.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "devbuf.h"
#include "gen.h"
#include "loops.h"
#include "reference.h"
#include "report.h"

/* Base value of element i on rank r: a nonzero integer in [-1000, 1000]. */
static long base_value(uint64_t key, int rank, size_t i)
{
    uint64_t h = gen_mix(key ^ (((uint64_t)i << 8) | (unsigned)rank));
    long v = 1 + (long)(h % 1000);
    return (h >> 32) & 1 ? -v : v;
}

static tvalue as_value(long x)
{
    tvalue v = {0, 0, 0, 0};
    v.f = (double)x;
    v.u = (uint64_t)(int64_t)x;
    return v;
}

/* Rows of `iters` inputs for this rank; NULL on failure (recorded). */
static unsigned char *make_rows(const test_type *t, uint64_t key, int rank, size_t count, int iters)
{
    unsigned char *rows = malloc((size_t)iters * count * t->size + 1);
    size_t i;
    int k;
    if (!rows) {
        case_fail("out of host memory");
        return NULL;
    }
    for (k = 0; k < iters; k++)
        for (i = 0; i < count; i++)
            type_store(t, rows + (size_t)k * count * t->size, i, as_value(base_value(key, rank, i) + k));
    return rows;
}

/* Compare `iters` result rows with sum(base) + nranks * k. */
static void check_rows(const test_type *t, uint64_t key, int nranks, const unsigned char *rows, size_t count, int iters)
{
    long *sums = malloc(count * sizeof *sums + 1);
    size_t i;
    int k, r;
    if (!sums) {
        case_fail("out of host memory");
        return;
    }
    for (i = 0; i < count; i++)
        for (sums[i] = 0, r = 0; r < nranks; r++) sums[i] += base_value(key, r, i);
    for (k = 0; k < iters; k++)
        for (i = 0; i < count; i++) {
            tvalue got = type_load(t, rows + (size_t)k * count * t->size, i);
            expect want, previous;
            char g[64], w[64];
            want.value = as_value(sums[i] + (long)nranks * k);
            want.tol = 0;
            if (ref_matches(t, got, want)) continue;
            previous.value = as_value(sums[i] + (long)nranks * (k - 1));
            previous.tol = 0;
            type_format_value(t, got, g, sizeof g);
            type_format_value(t, want.value, w, sizeof w);
            case_fail("call %d, element %zu: got %s, want %s%s", k, i, g, w,
                      k > 0 && ref_matches(t, got, previous) ? " (the previous call's result)" : "");
            free(sums);
            return;
        }
    free(sums);
}

static coll_call allreduce_call(const test_type *t, size_t count, const void *send, void *recv)
{
    coll_call call = {0};
    call.kind = COLL_ALLREDUCE;
    call.type = t;
    call.op = op_get(OP_SUM);
    call.count = count;
    call.root = 0;
    call.sendbuf = send;
    call.recvbuf = recv;
    return call;
}

void loop_distinct(coll_api *api, const test_type *t, size_t count, int iters)
{
    size_t row = count * t->size;
    unsigned char *rows = NULL;
    devbuf in, out;
    uint64_t key;
    int k, ready;

    if (!case_begin("%s/loop/allreduce/%s/sum/n=%zu/x%d/distinct", api->name, t->name, count, iters)) return;
    key = case_seed();
    memset(&in, 0, sizeof in);
    memset(&out, 0, sizeof out);
    ready = (rows = make_rows(t, key, api->rank, count, iters)) != NULL &&
            devbuf_alloc(&in, MEM_DEVICE, row * (size_t)iters, 0) == 0 &&
            devbuf_alloc(&out, MEM_DEVICE, row * (size_t)iters, 0) == 0 &&
            devbuf_put(&in, 0, rows, row * (size_t)iters) == 0 && devbuf_poison(&out, 0, row * (size_t)iters) == 0;
    if (case_agree(ready)) {
        for (k = 0; k < iters; k++) {
            coll_call call = allreduce_call(t, count, (unsigned char *)in.data + (size_t)k * row,
                                            (unsigned char *)out.data + (size_t)k * row);
            /* No early exit: every rank makes every call, so the ranks stay in step. */
            api->issue(api, &call);
        }
        if (api->wait(api) == 0 && !case_failed() && devbuf_get(&out, 0, rows, row * (size_t)iters) == 0) {
            check_rows(t, key, api->size, rows, count, iters);
            devbuf_check_guards(&in, "input rows");
            devbuf_check_guards(&out, "output rows");
        }
    }
    devbuf_free(&in);
    devbuf_free(&out);
    free(rows);
    case_end();
}

void loop_reused(coll_api *api, const test_type *t, size_t count, int iters)
{
    size_t row = count * t->size;
    unsigned char *rows = NULL;
    devbuf in, hist, send, recv;
    uint64_t key;
    int k, ready;
    /* MPI calls need their input in place on the host's timeline: wait for each copy. */
    int sync_copies = api->mc == NULL;

    if (!case_begin("%s/loop/allreduce/%s/sum/n=%zu/x%d/reused", api->name, t->name, count, iters)) return;
    key = case_seed();
    memset(&in, 0, sizeof in);
    memset(&hist, 0, sizeof hist);
    memset(&send, 0, sizeof send);
    memset(&recv, 0, sizeof recv);
    ready = (rows = make_rows(t, key, api->rank, count, iters)) != NULL &&
            devbuf_alloc(&in, MEM_DEVICE, row * (size_t)iters, 0) == 0 &&
            devbuf_alloc(&hist, MEM_DEVICE, row * (size_t)iters, 0) == 0 &&
            devbuf_alloc(&send, MEM_DEVICE, row, 0) == 0 && devbuf_alloc(&recv, MEM_DEVICE, row, 0) == 0 &&
            devbuf_put(&in, 0, rows, row * (size_t)iters) == 0 && devbuf_poison(&hist, 0, row * (size_t)iters) == 0 &&
            devbuf_poison(&recv, 0, row) == 0;
    if (case_agree(ready)) {
        for (k = 0; k < iters; k++) {
            coll_call call = allreduce_call(t, count, send.data, recv.data);
            /* No early exit: every rank makes every call, so the ranks stay in step. */
            cuda_check(cudaMemcpyAsync(send.data, (unsigned char *)in.data + (size_t)k * row, row,
                                       cudaMemcpyDeviceToDevice, api->stream), "cudaMemcpyAsync (input row)");
            if (sync_copies) cuda_check(cudaStreamSynchronize(api->stream), "cudaStreamSynchronize (input row)");
            api->issue(api, &call);
            cuda_check(cudaMemcpyAsync((unsigned char *)hist.data + (size_t)k * row, recv.data, row,
                                       cudaMemcpyDeviceToDevice, api->stream), "cudaMemcpyAsync (history row)");
        }
        if (api->wait(api) == 0 && cuda_check(cudaStreamSynchronize(api->stream), "cudaStreamSynchronize") == 0 &&
            !case_failed() && devbuf_get(&hist, 0, rows, row * (size_t)iters) == 0) {
            check_rows(t, key, api->size, rows, count, iters);
            devbuf_check_guards(&send, "sendbuf");
            devbuf_check_guards(&recv, "recvbuf");
        }
    }
    devbuf_free(&in);
    devbuf_free(&hist);
    devbuf_free(&send);
    devbuf_free(&recv);
    free(rows);
    case_end();
}

void loop_bcast(coll_api *api, size_t count, int iters)
{
    const test_type *t = type_get(TT_INT64);
    size_t row = count * t->size;
    unsigned char *rows = NULL;
    devbuf buf;
    uint64_t key;
    gen_ctx g;
    char why[200];
    int k, ready;

    if (!case_begin("%s/loop/bcast/%s/n=%zu/x%d/rotating-root", api->name, t->name, count, iters)) return;
    key = case_seed();
    memset(&buf, 0, sizeof buf);
    rows = malloc((size_t)iters * row + 1);
    ready = rows && devbuf_alloc(&buf, MEM_DEVICE, row * (size_t)iters, 0) == 0;
    if (ready) {
        /* Row k: the root's data for call k (seeded by k); poison on the other ranks. */
        memset(rows, DEVBUF_POISON, (size_t)iters * row);
        for (k = 0; k < iters; k++) {
            gen_init(&g, t, NULL, api->size, key + (uint64_t)k);
            if (k % api->size == api->rank) gen_fill(&g, api->rank, 0, count, rows + (size_t)k * row);
        }
        ready = devbuf_put(&buf, 0, rows, row * (size_t)iters) == 0;
    }
    if (case_agree(ready)) {
        for (k = 0; k < iters; k++) {
            coll_call call = {0};
            call.kind = COLL_BCAST;
            call.type = t;
            call.op = NULL;
            call.count = count;
            call.root = k % api->size;
            call.sendbuf = NULL;
            call.recvbuf = (unsigned char *)buf.data + (size_t)k * row;
            api->issue(api, &call); /* every rank makes every call */
        }
        if (api->wait(api) == 0 && !case_failed() && devbuf_get(&buf, 0, rows, row * (size_t)iters) == 0) {
            for (k = 0; k < iters; k++) {
                gen_init(&g, t, NULL, api->size, key + (uint64_t)k);
                if (ref_check_data(&g, k % api->size, rows + (size_t)k * row, 0, count, why, sizeof why)) {
                    case_fail("call %d (root %d): %s", k, k % api->size, why);
                    break;
                }
            }
            devbuf_check_guards(&buf, "rows");
        }
    } else if (!rows) {
        case_fail("out of host memory");
    }
    devbuf_free(&buf);
    free(rows);
    case_end();
}
