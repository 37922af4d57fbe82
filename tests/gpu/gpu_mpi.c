/* MPI_* calls on device buffers through mcoll's plug-in, with an MPI that is not CUDA-aware
 * below: the same matrix as the native API (common/suite.h; the block collectives and scans
 * too: MPI_Allgatherv, MPI_Alltoall(v), MPI_Gather(v), MPI_Scatter(v), MPI_Scan, MPI_Exscan,
 * odd counts, empty blocks, every root, in place), a >= 1 GiB allreduce, 1000
 * calls back to back, MPI_COMM_WORLD and a duplicate alternating, host buffers (including the
 * 16-bit float types mcoll adds), calls the engines do not take, which must still be right
 * (MPI_AINT, a user-defined op, a strided datatype, MPI_Reduce_scatter with unequal counts),
 * in-place reduce_scatter_block, MPI_Barrier, bad arguments (an error code back, no crash), and
 * an 8 MiB allreduce whose send buffer is freed and allocated again (mostly at the same address)
 * between calls: above MCOLL_ZERO_COPY_MIN (4M by default) the plug-in maps the peers' buffers
 * for each call, and a new allocation must be mapped afresh, never read through a stale mapping.
 *   mpirun -np N gpu_mpi [-q] [-f FILTER] [-s SEED]             (NCCL_NVLS_ENABLE=0 required) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>
#include <mpi.h>
#include "common/api.h"
#include "common/devbuf.h"
#include "common/harness.h"
#include "common/loops.h"
#include "common/prep.h"
#include "common/reference.h"
#include "common/report.h"
#include "common/suite.h"
#include "mcoll.h"

#define LEN(a) (sizeof(a) / sizeof((a)[0]))

static coll_case reduction(coll_kind kind, type_id type, op_id op, size_t count, mem_kind mem)
{
    coll_case c;
    memset(&c, 0, sizeof c);
    c.kind = kind;
    c.type = type_get(type);
    c.op = op_get(op);
    c.count = count;
    c.mem = mem;
    return c;
}

/* Host buffers go to MPI untouched, and the 16-bit float types reduce there too. */
static void host_buffers(coll_api *api)
{
    static const struct { type_id type; op_id op; } list[] = {
        {TT_FLOAT16, OP_SUM}, {TT_FLOAT16, OP_MAX}, {TT_BFLOAT16, OP_SUM}, {TT_BFLOAT16, OP_MIN},
        {TT_FLOAT16, OP_PROD}, {TT_FLOAT, OP_SUM}, {TT_INT32, OP_BXOR}};
    static const size_t counts[] = {1, 1023, 65539};
    size_t k, i;
    coll_case c;
    for (k = 0; k < LEN(list); k++)
        for (i = 0; i < LEN(counts); i++) {
            c = reduction(COLL_ALLREDUCE, list[k].type, list[k].op, counts[i], MEM_HOST);
            c.in_place = (int)i & 1;
            case_run(api, &c);
        }
    c = reduction(COLL_BCAST, TT_BYTE, OP_SUM, 1023, MEM_HOST);
    c.root = api->size - 1;
    case_run(api, &c);
    for (k = 0; k < 9; k++) { /* one of each block collective and scan */
        c = suite_mixed_native((int)k, api->size);
        c.mem = MEM_HOST;
        case_run(api, &c);
    }
}

static void float_sum(void *in, void *inout, int *len, MPI_Datatype *type)
{
    int i;
    (void)type;
    for (i = 0; i < *len; i++) ((float *)inout)[i] += ((float *)in)[i];
}

/* A user-defined op on device buffers: MPI calls it on host copies. */
static void user_op(coll_api *api, size_t count)
{
    coll_case c = reduction(COLL_ALLREDUCE, TT_FLOAT, OP_SUM, count, MEM_DEVICE);
    coll_prep p;
    coll_call call = {0};
    MPI_Op op;
    int rc;

    if (!case_begin("%s/fallback/allreduce/float/user-op/n=%zu", api->name, count)) return;
    MPI_Op_create(float_sum, 1, &op);
    if (case_agree(prep_alloc(&p, &c, api->rank, api->size) == 0 && prep_load(&p, case_seed()) == 0)) {
        prep_call(&p, &call);
        rc = MPI_Allreduce(call.sendbuf, call.recvbuf, (int)count, MPI_FLOAT, op, api->comm);
        if (rc != MPI_SUCCESS) case_fail("MPI_Allreduce with a user op returned %d", rc);
        else prep_check(&p, "");
    }
    prep_free(&p);
    MPI_Op_free(&op);
    case_end();
}

/* MPI_Reduce_scatter with a different count for every rank. */
static void reduce_scatter_v(coll_api *api, size_t base)
{
    const test_type *t = type_get(TT_FLOAT);
    int *counts = malloc((size_t)api->size * sizeof *counts), r, rc;
    size_t total = 0, first = 0;
    unsigned char *host = NULL;
    devbuf send, recv;
    gen_ctx g;
    char why[200];

    if (!case_begin("%s/fallback/reduce_scatter/float/sum/n=%zu+7r", api->name, base)) {
        free(counts);
        return;
    }
    memset(&send, 0, sizeof send);
    memset(&recv, 0, sizeof recv);
    for (r = 0; counts && r < api->size; r++) {
        counts[r] = (int)(base + 7 * (size_t)r);
        if (r < api->rank) first += (size_t)counts[r];
        total += (size_t)counts[r];
    }
    gen_init(&g, t, op_get(OP_SUM), api->size, case_seed());
    if (counts && (host = malloc(total * t->size + 1)) != NULL) gen_fill(&g, api->rank, 0, total, host);
    if (case_agree(host && devbuf_alloc(&send, MEM_DEVICE, total * t->size, t->size) == 0 &&
                   devbuf_alloc(&recv, MEM_DEVICE, (size_t)counts[api->rank] * t->size, 0) == 0 &&
                   devbuf_put(&send, 0, host, total * t->size) == 0 &&
                   devbuf_poison(&recv, 0, (size_t)counts[api->rank] * t->size) == 0)) {
        rc = MPI_Reduce_scatter(send.data, recv.data, counts, MPI_FLOAT, MPI_SUM, api->comm);
        if (rc != MPI_SUCCESS) case_fail("MPI_Reduce_scatter returned %d", rc);
        else if (devbuf_get(&recv, 0, host, (size_t)counts[api->rank] * t->size) == 0 &&
                 ref_check_reduced(&g, host, first, (size_t)counts[api->rank], why, sizeof why))
            case_fail("%s", why);
        devbuf_check_guards(&send, "sendbuf");
        devbuf_check_guards(&recv, "recvbuf");
    } else if (!host) {
        case_fail("out of host memory");
    }
    devbuf_free(&send);
    devbuf_free(&recv);
    free(host);
    free(counts);
    case_end();
}

/* MPI_Bcast of a strided datatype (every other int): the gaps must stay as they were. */
static void strided_bcast(coll_api *api, int count)
{
    int *host = malloc(2 * (size_t)count * sizeof *host + 1), i, rc, root = api->size - 1;
    devbuf buf;
    MPI_Datatype every_other;

    if (!case_begin("%s/fallback/bcast/vector(int,stride 2)/n=%d/root=%d", api->name, count, root)) {
        free(host);
        return;
    }
    memset(&buf, 0, sizeof buf);
    MPI_Type_vector(count, 1, 2, MPI_INT, &every_other);
    MPI_Type_commit(&every_other);
    /* Element 2i: 1000 * (i + 1) at the root, -1 elsewhere; gap 2i+1: -(rank + 2) everywhere. */
    for (i = 0; host && i < count; i++) {
        host[2 * i] = api->rank == root ? 1000 * (i + 1) : -1;
        host[2 * i + 1] = -(api->rank + 2);
    }
    if (case_agree(host && devbuf_alloc(&buf, MEM_DEVICE, 2 * (size_t)count * sizeof(int), 0) == 0 &&
                   devbuf_put(&buf, 0, host, 2 * (size_t)count * sizeof(int)) == 0)) {
        rc = MPI_Bcast(buf.data, 1, every_other, root, api->comm);
        if (rc != MPI_SUCCESS) case_fail("MPI_Bcast returned %d", rc);
        else if (devbuf_get(&buf, 0, host, 2 * (size_t)count * sizeof(int)) == 0)
            for (i = 0; i < count; i++) {
                if (host[2 * i] != 1000 * (i + 1)) {
                    case_fail("element %d: %d, want %d", i, host[2 * i], 1000 * (i + 1));
                    break;
                }
                if (host[2 * i + 1] != -(api->rank + 2)) {
                    case_fail("gap after element %d changed to %d", i, host[2 * i + 1]);
                    break;
                }
            }
        devbuf_check_guards(&buf, "buffer");
    }
    MPI_Type_free(&every_other);
    devbuf_free(&buf);
    free(host);
    case_end();
}

static void fallbacks(coll_api *api)
{
    static const size_t counts[] = {1, 1023, ((size_t)1 << 20) + 3};
    size_t i, n = report_quick() ? 2 : LEN(counts);
    coll_case c;
    int k;

    for (i = 0; i < n; i++) {
        c = reduction(COLL_ALLREDUCE, TT_AINT, OP_SUM, counts[i], MEM_DEVICE);
        c.misalign = (int)i & 1;
        case_run(api, &c);
    }
    c = reduction(COLL_REDUCE_SCATTER, TT_FLOAT, OP_SUM, 1023, MEM_DEVICE);
    c.in_place = 1;
    case_run(api, &c);
    c = reduction(COLL_REDUCE_SCATTER, TT_BFLOAT16, OP_SUM, 4099, MEM_DEVICE);
    c.in_place = 1;
    c.misalign = 1;
    case_run(api, &c);
    user_op(api, 4099);
    reduce_scatter_v(api, report_quick() ? 100 : 65536);
    strided_bcast(api, 1000);
    if (case_begin("%s/barrier/x100", api->name)) {
        for (k = 0; k < 100; k++)
            if (MPI_Barrier(api->comm) != MPI_SUCCESS) {
                case_fail("MPI_Barrier %d failed", k);
                break;
            }
        case_end();
    }
}

/* Alternate calls on MPI_COMM_WORLD and a duplicate: each has its own engine state. */
static void two_comms(coll_api *world, int pairs)
{
    MPI_Comm dup;
    coll_api other;
    coll_case c;
    int k;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    api_mpi(&other, "mpi-dup", dup);
    for (k = 0; k < 2 * pairs; k++) {
        c = suite_mixed(k / 2 + (k % 2) * 3, world->size);
        case_run(k % 2 ? &other : world, &c);
    }
    MPI_Comm_free(&dup);
}

/* Bad arguments through the plug-in come back as MPI error codes, with nothing crashing. */
static void bad_arguments(coll_api *api)
{
    void *a = NULL, *b = NULL;
    int rc[5], i;
    if (!case_begin("%s/errors/bad-arguments", api->name)) return;
    if (case_agree(!cuda_check(cudaMalloc(&a, 4096), "cudaMalloc") && !cuda_check(cudaMalloc(&b, 4096), "cudaMalloc"))) {
        rc[0] = MPI_Allreduce(a, b, -1, MPI_FLOAT, MPI_SUM, api->comm);
        rc[1] = MPI_Bcast(a, 16, MPI_FLOAT, api->size, api->comm);
        rc[2] = MPI_Reduce(a, b, 16, MPI_FLOAT, MPI_SUM, -1, api->comm);
        rc[3] = MPI_Allreduce(a, b, 16, MPI_DATATYPE_NULL, MPI_SUM, api->comm);
        rc[4] = MPI_Allreduce(a, b, 16, MPI_FLOAT, MPI_OP_NULL, api->comm);
        for (i = 0; i < 5; i++)
            if (rc[i] == MPI_SUCCESS) {
                static const char *const what[] = {"MPI_Allreduce with count -1", "MPI_Bcast with root = size",
                                                   "MPI_Reduce with root -1", "MPI_Allreduce with MPI_DATATYPE_NULL",
                                                   "MPI_Allreduce with MPI_OP_NULL"};
                case_fail("%s returned MPI_SUCCESS", what[i]);
            }
    }
    if (a) cudaFree(a);
    if (b) cudaFree(b);
    case_end();
}

/* MPI_Allreduce of n ints whose send buffer is freed and allocated again before each round; the
 * values change every round, so a stale mapping of the old buffer gives a wrong sum. */
static void free_and_reallocate(coll_api *api, size_t n)
{
    int *host = malloc(n * sizeof *host), *send = NULL, *recv = NULL, *old = NULL;
    if (!case_begin("%s/zero-copy/allreduce/int/sum/n=%zu/free-and-reallocate", api->name, n)) {
        free(host);
        return;
    }
    if (case_agree(host && !cuda_check(cudaMalloc((void **)&recv, n * sizeof *recv), "cudaMalloc"))) {
        for (int round = 0; round < 4; round++) { /* every rank makes every call */
            int ok = !cuda_check(cudaMalloc((void **)&send, n * sizeof *send), "cudaMalloc"), same = send == old;
            for (size_t i = 0; ok && i < n; i++) host[i] = api->rank * 1000 + round * 7 + (int)(i % 1009);
            ok = ok && !cuda_check(cudaMemcpy(send, host, n * sizeof *host, cudaMemcpyHostToDevice), "cudaMemcpy");
            if (!case_agree(ok)) break;
            if (MPI_Allreduce(send, recv, (int)n, MPI_INT, MPI_SUM, api->comm) != MPI_SUCCESS)
                case_fail("round %d: MPI_Allreduce failed", round);
            else if (!cuda_check(cudaMemcpy(host, recv, n * sizeof *host, cudaMemcpyDeviceToHost), "cudaMemcpy"))
                for (size_t i = 0; i < n; i++) {
                    int want = 0;
                    for (int q = 0; q < api->size; q++) want += q * 1000 + round * 7 + (int)(i % 1009);
                    if (host[i] != want) {
                        case_fail("round %d (%s address): element %zu is %d, want %d", round,
                                  same ? "the same" : "another", i, host[i], want);
                        break;
                    }
                }
            cudaFree(send);
            old = send;
            if (round && api->rank == 0) say("%s: round %d at %s address\n", api->name, round, same ? "the same" : "another");
        }
    }
    if (recv) cudaFree(recv);
    free(host);
    case_end();
}

/* A small MPI_Allreduce (and MPI_Iallreduce) right after the application queued its input on
 * the legacy default stream, behind a long memset there, with no synchronization: the call must
 * see that input (MCOLL_LEGACY_STREAM_ORDER=1, the default: the resident kernel does not take a
 * call while the legacy stream is busy; a launch on the team's stream waits for it). */
static void legacy_stream_order(coll_api *api)
{
    const size_t big = (size_t)1 << 30;
    int *pinned = NULL, *send = NULL, *recv = NULL, got[2] = {0, 0};
    char *slow = NULL;
    if (!case_begin("%s/ordering/allreduce/int/sum/n=2/after-legacy-stream-work", api->name)) return;
    if (case_agree(!cuda_check(cudaMallocHost((void **)&pinned, 2 * sizeof *pinned), "cudaMallocHost") &&
                   !cuda_check(cudaMalloc((void **)&send, 2 * sizeof *send), "cudaMalloc") &&
                   !cuda_check(cudaMalloc((void **)&recv, 2 * sizeof *recv), "cudaMalloc") &&
                   !cuda_check(cudaMalloc((void **)&slow, big), "cudaMalloc"))) {
        int said = 0; /* the first wrong round only; every rank makes every call */
        for (int round = 0; round < 20; round++) {
            const int nonblocking = round % 2, n = api->size;
            const int want0 = n * (n + 1) / 2 + n * round * 100, want1 = -n * (n + 1) / 2;
            MPI_Request q = MPI_REQUEST_NULL;
            int ok, called;
            pinned[0] = api->rank + 1 + round * 100;
            pinned[1] = -(api->rank + 1);
            ok = !cuda_check(cudaMemsetAsync(slow, round, big, 0), "cudaMemsetAsync") &&
                 !cuda_check(cudaMemcpyAsync(send, pinned, 2 * sizeof *pinned, cudaMemcpyHostToDevice, 0),
                             "cudaMemcpyAsync");
            if (!case_agree(ok)) break;
            called = (nonblocking ? MPI_Iallreduce(send, recv, 2, MPI_INT, MPI_SUM, api->comm, &q)
                                  : MPI_Allreduce(send, recv, 2, MPI_INT, MPI_SUM, api->comm)) == MPI_SUCCESS &&
                     MPI_Wait(&q, MPI_STATUS_IGNORE) == MPI_SUCCESS;
            if (!called) {
                if (!said++) case_fail("round %d: the call failed", round);
            } else if (!cuda_check(cudaMemcpy(got, recv, sizeof got, cudaMemcpyDeviceToHost), "cudaMemcpy") &&
                       (got[0] != want0 || got[1] != want1) && !said++) {
                case_fail("round %d (%s): got {%d, %d}, want {%d, %d}: the call ran before the legacy stream's copy",
                          round, nonblocking ? "MPI_Iallreduce" : "MPI_Allreduce", got[0], got[1], want0, want1);
            }
        }
    }
    cudaFree(slow);
    cudaFree(recv);
    cudaFree(send);
    cudaFreeHost(pinned);
    case_end();
}

/* Every kernel the calls above need has run by now (small blocking calls in the resident kernel
 * included): none may have grown the context's stack limit (1 KiB per thread by default), which
 * makes the driver reserve that much local memory for every thread the GPU can hold, for the rest
 * of the process (tests/unit/test_kernel_stack.sh checks the LL kernels when they are built). */
static void stack_limit(coll_api *api)
{
    size_t stack = 0;
    if (!case_begin("%s/kernels/stack-limit", api->name)) return;
    if (cudaDeviceGetLimit(&stack, cudaLimitStackSize) != cudaSuccess)
        case_fail("cudaDeviceGetLimit(cudaLimitStackSize) failed");
    else if (stack > 1024)
        case_fail("the stack limit grew to %zu bytes per thread: a kernel needs that much local memory", stack);
    case_end();
}

int main(int argc, char **argv)
{
    gpu_opts opts;
    coll_api api;
    coll_case c;
    int iters, rc = harness_start(&argc, &argv, "gpu_mpi", "MPI_* on device buffers through mcoll's plug-in", &opts);
    if (rc >= 0) return rc;
    iters = opts.quick ? 100 : 1000;

    api_mpi(&api, "mpi", MPI_COMM_WORLD);
    suite_matrix(&api);
    suite_large(&api, 0);
    loop_distinct(&api, type_get(TT_INT32), 1023, iters);
    loop_reused(&api, type_get(TT_FLOAT), 65539, iters);
    loop_bcast(&api, 257, iters);
    two_comms(&api, opts.quick ? 4 : 10);
    host_buffers(&api);
    fallbacks(&api);
    bad_arguments(&api);
    free_and_reallocate(&api, (size_t)2 << 20);
    /* The engines still work after the errors. */
    c = reduction(COLL_ALLREDUCE, TT_FLOAT, OP_SUM, 1023, MEM_DEVICE);
    case_run(&api, &c);
    legacy_stream_order(&api);
    stack_limit(&api);
    return harness_finish();
}
