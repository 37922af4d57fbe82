/* Nonblocking and persistent collectives on device buffers through mcoll's plug-in, with an MPI
 * that is not CUDA-aware below: MPI_Iallreduce, MPI_Ireduce, MPI_Ibcast,
 * MPI_Ireduce_scatter_block, MPI_Iallgather, and the block collectives and scans
 * (MPI_Iallgatherv, MPI_Ialltoall(v), MPI_Igather(v), MPI_Iscatter(v), MPI_Iscan, MPI_Iexscan)
 * over the same matrix as the blocking calls (common/suite.h, each result against the host
 * reference), completed by MPI_Waitall, by
 * MPI_Wait in reverse order, by an MPI_Testall loop and as persistent requests (where the MPI
 * has them); 1000 calls in flight at once; 16 calls in flight with blocking calls on device
 * buffers between them; calls on two communicators in flight together; 200 small calls in
 * flight (more than the resident kernel's ring holds) with larger, blocking and persistent
 * ones between them, on one and on two communicators; starts that must not wait for the peers
 * (a rank that starts its calls only after a message the others send once they have started
 * theirs, also after a synchronous cudaMemcpy on the starting rank); device collectives in one MPI_Waitany loop with point-to-point requests; persistent requests started again and again
 * on new inputs; host buffers; bad arguments.
 *   mpirun -np N gpu_nonblocking [-q] [-f FILTER] [-s SEED]     (NCCL_NVLS_ENABLE=0 required) */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>
#include <mpi.h>
#include "common/pcoll.h"
#include "common/api.h"
#include "common/devbuf.h"
#include "common/harness.h"
#include "common/loops.h"
#include "common/mpi_calls.h"
#include "common/prep.h"
#include "common/report.h"
#include "common/suite.h"
#include "mcoll.h"

#define LEN(a) (sizeof(a) / sizeof((a)[0]))
#define MAX_REQUESTS 4096

/* How the requests issued since the last wait complete. */
typedef enum { BY_WAITALL, BY_WAIT_REVERSED, BY_TESTALL, BY_PERSISTENT } completion;
static completion how;
static MPI_Request requests[MAX_REQUESTS];
static mpi_ints request_ints[MAX_REQUESTS];
static int nrequests;

/* The nonblocking (or persistent: initialized and started) form of one call; its count arrays
 * are kept in `ints` until it completes. */
static int start_call(coll_api *api, const coll_call *call, mpi_ints *ints, MPI_Request *q)
{
    int rc = mpi_call(api->comm, api->size, call, how == BY_PERSISTENT ? FORM_PERSISTENT : FORM_NONBLOCKING, ints, q);
    return rc == MPI_SUCCESS && how == BY_PERSISTENT ? MPI_Start(q) : rc;
}

static int nb_issue(coll_api *api, const coll_call *call)
{
    int rc;
    if (nrequests >= MAX_REQUESTS) {
        case_fail("%d requests in flight: too many", nrequests);
        return -1;
    }
    rc = start_call(api, call, &request_ints[nrequests], &requests[nrequests]);
    if (rc != MPI_SUCCESS) {
        mpi_ints_free(&request_ints[nrequests]);
        case_fail("nonblocking %s returned %d", coll_name(call->kind), rc);
        return -1;
    }
    nrequests++;
    return 0;
}

static int nb_wait(coll_api *api)
{
    int rc = MPI_SUCCESS, i, flag = 0;
    (void)api;
    switch (how) {
    case BY_WAIT_REVERSED:
        for (i = nrequests - 1; i >= 0 && rc == MPI_SUCCESS; i--) rc = MPI_Wait(&requests[i], MPI_STATUS_IGNORE);
        break;
    case BY_TESTALL:
        while (!flag && rc == MPI_SUCCESS) rc = MPI_Testall(nrequests, requests, &flag, MPI_STATUSES_IGNORE);
        break;
    default:
        rc = MPI_Waitall(nrequests, requests, MPI_STATUSES_IGNORE);
        break;
    }
    for (i = 0; i < nrequests; i++) {
        if (how == BY_PERSISTENT && requests[i] != MPI_REQUEST_NULL) MPI_Request_free(&requests[i]);
        mpi_ints_free(&request_ints[i]);
        if (requests[i] != MPI_REQUEST_NULL) {
            case_fail("request %d of %d still set after completion", i, nrequests);
            rc = MPI_ERR_REQUEST;
        }
    }
    if (rc != MPI_SUCCESS) case_fail("completion of %d requests returned %d", nrequests, rc);
    nrequests = 0;
    return rc == MPI_SUCCESS ? 0 : -1;
}

static void api_nonblocking(coll_api *api, const char *name, MPI_Comm comm)
{
    api_mpi(api, name, comm);
    api->issue = nb_issue;
    api->wait = nb_wait;
}

/* A varied sequence of calls (suite.h): suite_mixed, or suite_mixed_native over the block
 * collectives and the scans. */
typedef coll_case (*sequence)(int i, int size);

/* The sum over the ranks of rank + k, which an allreduce of that value gives. */
static int sum_of(int k) { return report_size() * (report_size() - 1) / 2 + report_size() * k; }

/* A blocking MPI_Allreduce (the k-th) of one int in `one`, between nonblocking calls. */
static void blocking_between(devbuf *one, int k)
{
    int value = report_rank() + k;
    devbuf_put(one, 0, &value, sizeof value);
    if (MPI_Allreduce(MPI_IN_PLACE, one->data, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD) != MPI_SUCCESS)
        case_fail("blocking MPI_Allreduce %d between nonblocking calls failed", k);
    devbuf_get(one, 0, &value, sizeof value);
    if (value != sum_of(k)) case_fail("blocking MPI_Allreduce %d between: %d, want %d", k, value, sum_of(k));
}

/* Cases of `seq`, `n` at once, each prepared, issued, and checked after one wait; between two
 * issues, when `blocking` is set, a blocking MPI_Allreduce on device buffers of its own. */
static void in_flight(coll_api **apis, int napis, int n, int blocking, sequence seq)
{
    coll_prep *p = calloc((size_t)n, sizeof *p);
    coll_call call = {0};
    devbuf one;
    int k, ready = p != NULL;

    if (!case_begin("%s/in-flight/x%d%s%s%s", apis[0]->name, n, napis > 1 ? "/two-comms" : "",
                    blocking ? "/blocking-between" : "", seq == suite_mixed ? "" : "/blocks+scans")) {
        free(p);
        return;
    }
    memset(&one, 0, sizeof one);
    ready = ready && devbuf_alloc(&one, MEM_DEVICE, sizeof(int), 0) == 0;
    for (k = 0; ready && k < n; k++) {
        coll_case c = seq(k, apis[k % napis]->size);
        ready = prep_alloc(&p[k], &c, apis[k % napis]->rank, apis[k % napis]->size) == 0 &&
                prep_load(&p[k], case_seed() + (uint64_t)k) == 0;
    }
    if (case_agree(ready)) {
        for (k = 0; k < n; k++) {
            prep_call(&p[k], &call);
            apis[k % napis]->issue(apis[k % napis], &call);
            if (blocking) blocking_between(&one, k);
        }
        if (apis[0]->wait(apis[0]) == 0)
            for (k = 0; k < n; k++) {
                char label[32];
                snprintf(label, sizeof label, "call %d: ", k);
                prep_check(&p[k], label);
            }
    }
    for (k = 0; p && k < n; k++) prep_free(&p[k]);
    devbuf_free(&one);
    free(p);
    case_end();
}

/* Calls of the LL protocol's size (run.sh's ll step: through the resident kernel's ring), `n`
 * at once, more than its ring's 64 slots, alternating between the communicators, with a larger
 * (launched) call every 7th, a blocking small MPI_Allreduce every 5th and a persistent small
 * MPI_Allreduce (in place, the same call every time) started every 10th and waited for before its
 * next start; every result checked after one wait. */
static void small_in_flight(coll_api **apis, int napis, int n)
{
    static const coll_kind kinds[] = {COLL_ALLREDUCE, COLL_BCAST, COLL_REDUCE, COLL_REDUCE_SCATTER, COLL_ALLGATHER};
    coll_prep *p = calloc((size_t)n, sizeof *p);
    coll_call call = {0};
    MPI_Request ps = MPI_REQUEST_NULL;
    devbuf one, mine;
    int k, ready = p != NULL, value, starts = 0;

    if (!case_begin("%s/small-in-flight/x%d%s", apis[0]->name, n, napis > 1 ? "/two-comms" : "")) {
        free(p);
        return;
    }
    memset(&one, 0, sizeof one);
    memset(&mine, 0, sizeof mine);
    ready = ready && devbuf_alloc(&one, MEM_DEVICE, sizeof(int), 0) == 0 &&
            devbuf_alloc(&mine, MEM_DEVICE, sizeof(int), 0) == 0;
    for (k = 0; ready && k < n; k++) {
        const coll_api *a = apis[k % napis];
        coll_case c;
        memset(&c, 0, sizeof c);
        c.kind = kinds[k % LEN(kinds)];
        c.type = type_get(k % 2 ? TT_INT32 : TT_FLOAT);
        c.op = op_get(OP_SUM);
        c.count = k % 7 == 6 ? (size_t)(65536 + k) : 1 + (size_t)k % 13;
        c.root = k % a->size;
        c.in_place = c.kind == COLL_ALLREDUCE && k % 3 == 0;
        c.mem = MEM_DEVICE;
        ready = prep_alloc(&p[k], &c, a->rank, a->size) == 0 && prep_load(&p[k], case_seed() + (uint64_t)k) == 0;
    }
#ifdef INIT
    if (ready) ready = INIT(Allreduce)(MPI_IN_PLACE, mine.data, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &ps) ==
                       MPI_SUCCESS;
#endif
    if (case_agree(ready)) {
        for (k = 0; k < n; k++) {
            prep_call(&p[k], &call);
            apis[k % napis]->issue(apis[k % napis], &call);
            if (k % 5 == 4) blocking_between(&one, k);
            if (k % 10 == 9 && ps != MPI_REQUEST_NULL) {
                if (starts++ && MPI_Wait(&ps, MPI_STATUS_IGNORE) != MPI_SUCCESS) case_fail("persistent wait %d", k);
                value = report_rank() + k;
                devbuf_put(&mine, 0, &value, sizeof value);
                if (MPI_Start(&ps) != MPI_SUCCESS) case_fail("persistent start %d", k);
            }
        }
        if (apis[0]->wait(apis[0]) == 0)
            for (k = 0; k < n; k++) {
                char label[32];
                snprintf(label, sizeof label, "call %d: ", k);
                prep_check(&p[k], label);
            }
        if (starts && MPI_Wait(&ps, MPI_STATUS_IGNORE) != MPI_SUCCESS) case_fail("last persistent wait");
        if (starts) {
            k = 10 * starts - 1; /* the last start's value */
            devbuf_get(&mine, 0, &value, sizeof value);
            if (value != sum_of(k)) case_fail("persistent MPI_Allreduce: %d, want %d", value, sum_of(k));
        }
    }
    if (ps != MPI_REQUEST_NULL) MPI_Request_free(&ps);
    for (k = 0; p && k < n; k++) prep_free(&p[k]);
    devbuf_free(&one);
    devbuf_free(&mine);
    free(p);
    case_end();
}

/* A nonblocking start is local (MPI): rank 0 starts `n` small allreduces (more than the resident
 * kernel's ring holds) and a larger one, then sends a token to every other rank, which starts
 * the same calls only once it has the token. A start that waited for the peers to reach the calls
 * before it (a full ring, a launch behind ring calls) would wait for ever here. With `copy`, rank
 * 0 makes a synchronous cudaMemcpy (legacy default stream) before sending: it must not wait for
 * the started calls' kernels, which wait for the peers (docs/pmpi.md, "The team's two streams").
 * A blocking call first: a communicator's first engine call builds its team, with every rank
 * (docs/pmpi.md). */
static void starts_are_local(coll_api *api, int n, int copy)
{
    coll_prep *p = calloc((size_t)n + 1, sizeof *p);
    MPI_Request *q = calloc((size_t)n + 1, sizeof *q);
    mpi_ints *ints = calloc((size_t)n + 1, sizeof *ints);
    coll_call call = {0};
    devbuf one;
    int k, token = 7, ready = p && q && ints;

    if (!case_begin("%s/starts-are-local/x%d%s", api->name, n + 1, copy ? "/legacy-copy" : "")) goto out;
    memset(&one, 0, sizeof one);
    ready = ready && devbuf_alloc(&one, MEM_DEVICE, sizeof(int), 0) == 0;
    for (k = 0; ready && k <= n; k++) {
        coll_case c;
        memset(&c, 0, sizeof c);
        c.kind = COLL_ALLREDUCE;
        c.type = type_get(TT_INT32);
        c.op = op_get(OP_SUM);
        c.count = k == n ? 65536 + 3 : 1 + (size_t)k % 13; /* the last one larger: launched */
        c.mem = MEM_DEVICE;
        ready = prep_alloc(&p[k], &c, api->rank, api->size) == 0 && prep_load(&p[k], case_seed() + (uint64_t)k) == 0;
    }
    if (case_agree(ready)) {
        blocking_between(&one, 0);
        if (api->rank != 0 && MPI_Recv(&token, 1, MPI_INT, 0, 43, api->comm, MPI_STATUS_IGNORE) != MPI_SUCCESS)
            case_fail("receive of the token");
        for (k = 0; k <= n; k++) {
            prep_call(&p[k], &call);
            if (start_call(api, &call, &ints[k], &q[k]) != MPI_SUCCESS) case_fail("call %d did not start", k);
        }
        if (api->rank == 0 && copy) {
            int value = 0;
            devbuf_get(&one, 0, &value, sizeof value);
            if (value != sum_of(0)) case_fail("the copy after the starts: %d, want %d", value, sum_of(0));
        }
        if (api->rank == 0)
            for (k = 1; k < api->size; k++)
                if (MPI_Send(&token, 1, MPI_INT, k, 43, api->comm) != MPI_SUCCESS) case_fail("send of the token to %d", k);
        if (MPI_Waitall(n + 1, q, MPI_STATUSES_IGNORE) != MPI_SUCCESS) case_fail("MPI_Waitall of %d calls", n + 1);
        for (k = 0; k <= n; k++) mpi_ints_free(&ints[k]);
        for (k = 0; k <= n && !case_failed(); k++) prep_check(&p[k], "");
    }
    for (k = 0; p && k <= n; k++) prep_free(&p[k]);
    devbuf_free(&one);
    case_end();
out:
    free(p);
    free(q);
    free(ints);
}

/* Device allreduces, a ring of point-to-point messages and an MPI_Ibarrier, all in one
 * MPI_Waitany loop; the receive's status is checked. */
static void with_point_to_point(coll_api *api, int calls)
{
    coll_prep p[8];
    coll_call call = {0};
    MPI_Request q[8 + 3];
    mpi_ints ints[8];
    MPI_Status st;
    int k, index, token = -1, done = 0, ready = 1, n = calls < 8 ? calls : 8;
    int to = (api->rank + 1) % api->size, from = (api->rank + api->size - 1) % api->size;

    if (!case_begin("%s/with-point-to-point/x%d/waitany", api->name, n)) return;
    memset(p, 0, sizeof p);
    for (k = 0; k < n && ready; k++) {
        coll_case c = suite_mixed(3 * k, api->size);
        ready = prep_alloc(&p[k], &c, api->rank, api->size) == 0 && prep_load(&p[k], case_seed() + (uint64_t)k) == 0;
    }
    if (case_agree(ready)) {
        MPI_Irecv(&token, 1, MPI_INT, from, 42, api->comm, &q[0]);
        for (k = 0; k < n; k++) {
            prep_call(&p[k], &call);
            if (start_call(api, &call, &ints[k], &q[1 + k]) != MPI_SUCCESS) case_fail("call %d did not start", k);
        }
        MPI_Ibarrier(api->comm, &q[n + 1]);
        MPI_Isend(&api->rank, 1, MPI_INT, to, 42, api->comm, &q[n + 2]);
        while (done < n + 3 && !case_failed()) {
            if (MPI_Waitany(n + 3, q, &index, &st) != MPI_SUCCESS || index == MPI_UNDEFINED) {
                case_fail("MPI_Waitany failed after %d of %d", done, n + 3);
                break;
            }
            if (index == 0 && (st.MPI_SOURCE != from || st.MPI_TAG != 42))
                case_fail("receive status: source %d tag %d", st.MPI_SOURCE, st.MPI_TAG);
            done++;
        }
        if (token != from) case_fail("received %d, want %d", token, from);
        for (k = 0; k < n; k++) mpi_ints_free(&ints[k]);
        for (k = 0; k < n && !case_failed(); k++) prep_check(&p[k], "");
    }
    for (k = 0; k < n; k++) prep_free(&p[k]);
    case_end();
}

#ifdef INIT
/* One persistent allreduce and one persistent bcast started `rounds` times on new inputs. */
static void persistent_rounds(coll_api *api, size_t count, int rounds)
{
    coll_case c[2];
    coll_prep p[2];
    coll_call call = {0};
    MPI_Request q[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    int r, k, ready;

    if (!case_begin("%s/persistent/allreduce+bcast/n=%zu/x%d", api->name, count, rounds)) return;
    memset(c, 0, sizeof c);
    c[0].kind = COLL_ALLREDUCE;
    c[0].type = type_get(TT_FLOAT);
    c[0].op = op_get(OP_SUM);
    c[1].kind = COLL_BCAST;
    c[1].type = type_get(TT_INT32);
    c[1].root = api->size - 1;
    c[0].count = c[1].count = count;
    c[0].mem = c[1].mem = MEM_DEVICE;
    ready = prep_alloc(&p[0], &c[0], api->rank, api->size) == 0 && prep_alloc(&p[1], &c[1], api->rank, api->size) == 0;
    if (case_agree(ready)) {
        prep_call(&p[0], &call);
        INIT(Allreduce)(call.sendbuf, call.recvbuf, (int)count, MPI_FLOAT, MPI_SUM, api->comm, MPI_INFO_NULL, &q[0]);
        prep_call(&p[1], &call);
        INIT(Bcast)(call.recvbuf, (int)count, MPI_INT, api->size - 1, api->comm, MPI_INFO_NULL, &q[1]);
        for (r = 0; r < rounds && !case_failed(); r++) {
            for (k = 0; k < 2; k++) prep_load(&p[k], case_seed() + (uint64_t)r);
            if (MPI_Startall(2, q) != MPI_SUCCESS || MPI_Waitall(2, q, MPI_STATUSES_IGNORE) != MPI_SUCCESS)
                case_fail("round %d: MPI_Startall/MPI_Waitall failed", r);
            for (k = 0; k < 2; k++) prep_check(&p[k], "");
        }
        for (k = 0; k < 2; k++) MPI_Request_free(&q[k]);
    }
    for (k = 0; k < 2; k++) prep_free(&p[k]);
    case_end();
}
#endif

/* Host buffers go to the MPI's own nonblocking calls. */
static void host_buffers(coll_api *api)
{
    static const coll_kind kinds[] = {COLL_ALLREDUCE, COLL_REDUCE, COLL_BCAST, COLL_REDUCE_SCATTER, COLL_ALLGATHER};
    size_t k;
    coll_case c;
    for (k = 0; k < LEN(kinds); k++) {
        c = suite_mixed((int)k, api->size);
        c.kind = kinds[k];
        c.mem = MEM_HOST;
        case_run(api, &c);
    }
    for (k = 0; k < 9; k++) { /* one of each block collective and scan */
        c = suite_mixed_native((int)k, api->size);
        c.mem = MEM_HOST;
        case_run(api, &c);
    }
}

/* One of each call of suite_mixed_native `rounds` times over (roots, types, counts, in place
 * and alignment move on), one at a time. */
static void blocks_and_scans(coll_api *api, int rounds)
{
    int k;
    for (k = 0; k < 9 * rounds; k++) {
        coll_case c = suite_mixed_native(k, api->size);
        case_run(api, &c);
    }
}

/* Bad arguments come back as error codes, with no request and nothing crashing. */
static void bad_arguments(coll_api *api)
{
    void *a = NULL, *b = NULL;
    MPI_Request q = MPI_REQUEST_NULL;
    int rc[4], i;
    if (!case_begin("%s/errors/bad-arguments", api->name)) return;
    if (case_agree(!cuda_check(cudaMalloc(&a, 4096), "cudaMalloc") && !cuda_check(cudaMalloc(&b, 4096), "cudaMalloc"))) {
        rc[0] = MPI_Iallreduce(a, b, -1, MPI_FLOAT, MPI_SUM, api->comm, &q);
        rc[1] = MPI_Ibcast(a, 16, MPI_FLOAT, api->size, api->comm, &q);
        rc[2] = MPI_Iallreduce(a, MPI_IN_PLACE, 16, MPI_FLOAT, MPI_SUM, api->comm, &q);
        rc[3] = MPI_Iallreduce(a, b, 16, MPI_FLOAT, MPI_SUM, api->comm, NULL);
        for (i = 0; i < 4; i++)
            if (rc[i] == MPI_SUCCESS) case_fail("bad call %d returned MPI_SUCCESS", i);
        if (q != MPI_REQUEST_NULL) case_fail("a refused call returned a request");
    }
    if (a) cudaFree(a);
    if (b) cudaFree(b);
    case_end();
}

int main(int argc, char **argv)
{
    gpu_opts opts;
    coll_api api, other, *both[2] = {&api, &other};
    MPI_Comm dup;
    int iters, rc = harness_start(&argc, &argv, "gpu_nonblocking", "MPI_I* and persistent collectives on device buffers",
                                  &opts);
    if (rc >= 0) return rc;
    iters = opts.quick ? 100 : 1000;

    how = BY_WAITALL;
    api_nonblocking(&api, "mpi-nb", MPI_COMM_WORLD);
    suite_matrix(&api);
    suite_large(&api, 0);
    loop_distinct(&api, type_get(TT_INT32), 1023, iters);
    loop_bcast(&api, 257, iters);
    in_flight(both, 1, 16, 1, suite_mixed);
    in_flight(both, 1, 18, 1, suite_mixed_native);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    api_nonblocking(&other, "mpi-nb-dup", dup);
    in_flight(both, 2, 16, 0, suite_mixed);
    in_flight(both, 2, 18, 0, suite_mixed_native);
    small_in_flight(both, 1, 200);
    small_in_flight(both, 2, 200);
    with_point_to_point(&api, 6);
    starts_are_local(&api, 80, 0);
    starts_are_local(&api, 80, 1);
    host_buffers(&api);
    bad_arguments(&api);

    how = BY_WAIT_REVERSED;
    api_nonblocking(&api, "mpi-nb-wait", MPI_COMM_WORLD);
    suite_subset(&api);
    blocks_and_scans(&api, 2);
    how = BY_TESTALL;
    api_nonblocking(&api, "mpi-nb-testall", MPI_COMM_WORLD);
    suite_subset(&api);
    blocks_and_scans(&api, 2);
    in_flight(both, 2, 16, 1, suite_mixed);
    in_flight(both, 2, 18, 1, suite_mixed_native);
#ifdef INIT
    how = BY_PERSISTENT;
    api_nonblocking(&api, "mpi-persistent", MPI_COMM_WORLD);
    suite_subset(&api);
    blocks_and_scans(&api, 2);
    in_flight(both, 1, 18, 0, suite_mixed_native);
    loop_distinct(&api, type_get(TT_FLOAT), 4099, iters / 10);
    persistent_rounds(&api, 65539, iters / 10);
#endif
    MPI_Comm_free(&dup);
    return harness_finish();
}
