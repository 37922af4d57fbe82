/* Nonblocking and persistent collectives through mcoll, under mpirun, on host buffers and on
 * "device" buffers of the contract driver (the staged path's state machine: copy in, the MPI's
 * nonblocking call on host copies, copy back; MCOLL_CONTRACT_EVENT_DELAY makes the copies take
 * a few queries to finish, as on a GPU):
 *   - every intercepted collective, datatypes and ops, in and out of place, completed by MPI_Wait,
 *     by an MPI_Test loop and (where the MPI has persistent collectives) as a persistent request
 *     started once, each against the same call made blocking through PMPI_* on host copies;
 *   - arrays mixing mcoll's requests with the MPI's own point-to-point requests, completed by
 *     MPI_Waitall, Waitany, Waitsome, Testall, Testany and Testsome, with statuses;
 *   - 16 calls in flight interleaved with blocking collectives on the same buffers' neighbours;
 *   - MPI_Request_free of an active request (it still completes, nothing leaks);
 *   - two threads completing requests on two communicators at once (MPI_THREAD_MULTIPLE);
 *   - persistent requests started and waited in a loop, with MPI_Startall mixed with the MPI's
 *     persistent requests, an inactive one waited on, one freed while active;
 *   - bad input: MPI_Start of an active request, a NULL request, MPI_IN_PLACE where MPI forbids
 *     it, and a copy that fails (MPI_Wait and MPI_Waitall report it, MPI_ERR_IN_STATUS).
 * The GPU engines are off (MCOLL_ENGINE=staged) unless the environment says otherwise
 * (test_nonblocking_engines.sh) and the MPI is taken as not CUDA-aware. PMPI hooks check that
 * no device pointer reaches the MPI. At the end: no broken rule of the driver contract, and
 * after MPI_Finalize nothing of mcoll's left alive. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <mpi.h>
#include "common/pcoll.h"

/* ct_check (common/colltest.h) calls the blocking functions; here they become nonblocking or
 * persistent calls completed as `mode` says. (MPI_Allreduce) in parentheses is the real one. */
static int nb_allreduce(const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm);
static int nb_bcast(void *, int, MPI_Datatype, int, MPI_Comm);
static int nb_reduce(const void *, void *, int, MPI_Datatype, MPI_Op, int, MPI_Comm);
static int nb_rsb(const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm);
static int nb_rs(const void *, void *, const int *, MPI_Datatype, MPI_Op, MPI_Comm);
static int nb_allgather(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, MPI_Comm);
#define MPI_Allreduce(...) nb_allreduce(__VA_ARGS__)
#define MPI_Bcast(...) nb_bcast(__VA_ARGS__)
#define MPI_Reduce(...) nb_reduce(__VA_ARGS__)
#define MPI_Reduce_scatter_block(...) nb_rsb(__VA_ARGS__)
#define MPI_Reduce_scatter(...) nb_rs(__VA_ARGS__)
#define MPI_Allgather(...) nb_allgather(__VA_ARGS__)
#include "contract/devmem.h"
#include "contract/hostmem.h"

enum { BY_WAIT, BY_TEST, BY_PERSISTENT };
static int mode;
static const char *const mode_names[] = {"MPI_Wait", "MPI_Test loop", "persistent"};

/* ---------------------------------------------------------------------------------------------
 * PMPI hooks: what reaches the MPI library
 * ------------------------------------------------------------------------------------------- */
#define REAL(name, type) static type real_##name;                                              \
    if (!real_##name) real_##name = (type)dlsym(RTLD_NEXT, #name)

typedef int (*iallreduce_fn)(const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm, MPI_Request *);
typedef int (*ibcast_fn)(void *, int, MPI_Datatype, int, MPI_Comm, MPI_Request *);
typedef int (*ireduce_fn)(const void *, void *, int, MPI_Datatype, MPI_Op, int, MPI_Comm, MPI_Request *);
typedef int (*irsb_fn)(const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm, MPI_Request *);
typedef int (*irs_fn)(const void *, void *, const int *, MPI_Datatype, MPI_Op, MPI_Comm, MPI_Request *);
typedef int (*iallgather_fn)(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, MPI_Comm, MPI_Request *);

static long staged_calls;

int PMPI_Iallreduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op o, MPI_Comm c, MPI_Request *q)
{
    REAL(PMPI_Iallreduce, iallreduce_fn);
    check_host("PMPI_Iallreduce", s); check_host("PMPI_Iallreduce", r);
    staged_calls++;
    return real_PMPI_Iallreduce(s, r, n, t, o, c, q);
}
int PMPI_Ibcast(void *b, int n, MPI_Datatype t, int root, MPI_Comm c, MPI_Request *q)
{
    REAL(PMPI_Ibcast, ibcast_fn);
    check_host("PMPI_Ibcast", b);
    staged_calls++;
    return real_PMPI_Ibcast(b, n, t, root, c, q);
}
int PMPI_Ireduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op o, int root, MPI_Comm c, MPI_Request *q)
{
    REAL(PMPI_Ireduce, ireduce_fn);
    check_host("PMPI_Ireduce", s); check_host("PMPI_Ireduce", r);
    staged_calls++;
    return real_PMPI_Ireduce(s, r, n, t, o, root, c, q);
}
int PMPI_Ireduce_scatter_block(const void *s, void *r, int n, MPI_Datatype t, MPI_Op o, MPI_Comm c, MPI_Request *q)
{
    REAL(PMPI_Ireduce_scatter_block, irsb_fn);
    check_host("PMPI_Ireduce_scatter_block", s); check_host("PMPI_Ireduce_scatter_block", r);
    staged_calls++;
    return real_PMPI_Ireduce_scatter_block(s, r, n, t, o, c, q);
}
int PMPI_Ireduce_scatter(const void *s, void *r, const int *n, MPI_Datatype t, MPI_Op o, MPI_Comm c, MPI_Request *q)
{
    REAL(PMPI_Ireduce_scatter, irs_fn);
    check_host("PMPI_Ireduce_scatter", s); check_host("PMPI_Ireduce_scatter", r);
    staged_calls++;
    return real_PMPI_Ireduce_scatter(s, r, n, t, o, c, q);
}
int PMPI_Iallgather(const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, MPI_Comm c,
                    MPI_Request *q)
{
    REAL(PMPI_Iallgather, iallgather_fn);
    check_host("PMPI_Iallgather", s); check_host("PMPI_Iallgather", r);
    staged_calls++;
    return real_PMPI_Iallgather(s, sn, st, r, rn, rt, c, q);
}

/* ---------------------------------------------------------------------------------------------
 * ct_check's calls, nonblocking
 * ------------------------------------------------------------------------------------------- */
static int finish(int rc, MPI_Request *q)
{
    int flag = 0;
    if (rc != MPI_SUCCESS) {
        if (*q != MPI_REQUEST_NULL) CT_FAIL("a call that failed (%d) returned a request", rc);
        return rc;
    }
    if (*q == MPI_REQUEST_NULL) CT_FAIL("a call that succeeded returned MPI_REQUEST_NULL");
    if (mode == BY_WAIT) rc = MPI_Wait(q, MPI_STATUS_IGNORE);
    else
        while (rc == MPI_SUCCESS && !flag) rc = MPI_Test(q, &flag, MPI_STATUS_IGNORE);
    if (rc == MPI_SUCCESS && *q != MPI_REQUEST_NULL) CT_FAIL("%s left the request set", mode_names[mode]);
    return rc;
}

#ifdef INIT
static int finish_persistent(int rc, MPI_Request *q)
{
    if (rc != MPI_SUCCESS) return rc;
    rc = MPI_Start(q);
    if (rc == MPI_SUCCESS) rc = MPI_Wait(q, MPI_STATUS_IGNORE);
    if (*q == MPI_REQUEST_NULL) CT_FAIL("MPI_Wait freed a persistent request");
    MPI_Request_free(q);
    return rc;
}
#define PERSISTENT(call) if (mode == BY_PERSISTENT) return finish_persistent(call, &q)
#else
#define PERSISTENT(call) (void)0
#endif

static int nb_allreduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op o, MPI_Comm c)
{
    MPI_Request q = MPI_REQUEST_NULL;
    PERSISTENT(INIT(Allreduce)(s, r, n, t, o, c, MPI_INFO_NULL, &q));
    return finish(MPI_Iallreduce(s, r, n, t, o, c, &q), &q);
}
static int nb_bcast(void *b, int n, MPI_Datatype t, int root, MPI_Comm c)
{
    MPI_Request q = MPI_REQUEST_NULL;
    PERSISTENT(INIT(Bcast)(b, n, t, root, c, MPI_INFO_NULL, &q));
    return finish(MPI_Ibcast(b, n, t, root, c, &q), &q);
}
static int nb_reduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op o, int root, MPI_Comm c)
{
    MPI_Request q = MPI_REQUEST_NULL;
    PERSISTENT(INIT(Reduce)(s, r, n, t, o, root, c, MPI_INFO_NULL, &q));
    return finish(MPI_Ireduce(s, r, n, t, o, root, c, &q), &q);
}
static int nb_rsb(const void *s, void *r, int n, MPI_Datatype t, MPI_Op o, MPI_Comm c)
{
    MPI_Request q = MPI_REQUEST_NULL;
    PERSISTENT(INIT(Reduce_scatter_block)(s, r, n, t, o, c, MPI_INFO_NULL, &q));
    return finish(MPI_Ireduce_scatter_block(s, r, n, t, o, c, &q), &q);
}
static int nb_rs(const void *s, void *r, const int *n, MPI_Datatype t, MPI_Op o, MPI_Comm c)
{
    MPI_Request q = MPI_REQUEST_NULL;
    PERSISTENT(INIT(Reduce_scatter)(s, r, n, t, o, c, MPI_INFO_NULL, &q));
    return finish(MPI_Ireduce_scatter(s, r, n, t, o, c, &q), &q);
}
static int nb_allgather(const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, MPI_Comm c)
{
    MPI_Request q = MPI_REQUEST_NULL;
    PERSISTENT(INIT(Allgather)(s, sn, st, r, rn, rt, c, MPI_INFO_NULL, &q));
    return finish(MPI_Iallgather(s, sn, st, r, rn, rt, c, &q), &q);
}

/* ---------------------------------------------------------------------------------------------
 * Requests mixed with the MPI's own
 * ------------------------------------------------------------------------------------------- */
enum { WAITALL, WAITANY, WAITSOME, TESTALL, TESTANY, TESTSOME, NUM_WAYS };
static const char *const way_names[] = {"MPI_Waitall", "MPI_Waitany", "MPI_Waitsome", "MPI_Testall", "MPI_Testany",
                                        "MPI_Testsome"};

/* Complete all n requests the given way; statuses land at the requests' indices. Completed
 * requests must be freed, unless they are persistent. */
static int complete_all(int way, int n, MPI_Request *q, MPI_Status *st, int persistent)
{
    int done = 0, i, k, flag, idx[16], out, rc = MPI_SUCCESS;
    MPI_Status one[16];
    switch (way) {
    case WAITALL: return MPI_Waitall(n, q, st);
    case TESTALL:
        for (flag = 0; !flag && rc == MPI_SUCCESS;) rc = MPI_Testall(n, q, &flag, st);
        return rc;
    default: break;
    }
    while (done < n && rc == MPI_SUCCESS) {
        if (way == WAITANY || way == TESTANY) {
            flag = 1;
            rc = way == WAITANY ? MPI_Waitany(n, q, &idx[0], &one[0]) : MPI_Testany(n, q, &idx[0], &flag, &one[0]);
            if (rc != MPI_SUCCESS || !flag) continue;
            if (idx[0] == MPI_UNDEFINED) {
                CT_FAIL("%s: no active request left after %d of %d", way_names[way], done, n);
                return MPI_ERR_OTHER;
            }
            out = 1;
        } else {
            rc = way == WAITSOME ? MPI_Waitsome(n, q, &out, idx, one) : MPI_Testsome(n, q, &out, idx, one);
            if (rc != MPI_SUCCESS) continue;
            if (out == MPI_UNDEFINED) {
                CT_FAIL("%s: no active request left after %d of %d", way_names[way], done, n);
                return MPI_ERR_OTHER;
            }
        }
        for (k = 0; k < out; k++) {
            i = idx[k];
            if (!persistent && q[i] != MPI_REQUEST_NULL) CT_FAIL("%s: completed request %d not freed", way_names[way], i);
            st[i] = one[k];
        }
        done += out;
    }
    return rc;
}

/* Each rank sends its rank to the next and receives from the previous (tag 100 + rank of the
 * sender), with four device collectives in between, all completed together. */
static void check_mixed(int way, int rank, int size)
{
    enum { N = 64 };
    int host[N * 4], want, i, k, rc, to = (rank + 1) % size, from = (rank + size - 1) % size, got_msg = -1;
    int *send = d_alloc(N * sizeof(int)), *ar = d_alloc(N * sizeof(int)), *bc = d_alloc(N * sizeof(int));
    int *ag = d_alloc((size_t)N * (size_t)size * sizeof(int)), *rs = d_alloc(N * sizeof(int));
    int *rs_in = d_alloc((size_t)N * (size_t)size * sizeof(int));
    MPI_Request q[6];
    MPI_Status st[6];

    for (i = 0; i < N; i++) host[i] = rank * 1000 + i;
    d_put(send, host, N * sizeof(int));
    for (i = 0; i < N; i++) host[i] = rank == 0 ? 7 * i : -1;
    d_put(bc, host, N * sizeof(int));
    for (i = 0; i < N * 4 && i < N * size; i++) host[i] = i + rank;
    for (k = 0; k < size; k += 4)
        d_put((char *)rs_in + (size_t)k * N * sizeof(int), host, (size_t)N * (size_t)(size - k < 4 ? size - k : 4) * sizeof(int));
    memset(st, 0, sizeof st);
    MPI_Irecv(&got_msg, 1, MPI_INT, from, 100 + from, MPI_COMM_WORLD, &q[0]);
    MPI_Iallreduce(send, ar, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q[1]);
    MPI_Ibcast(bc, N, MPI_INT, 0, MPI_COMM_WORLD, &q[2]);
    MPI_Isend(&rank, 1, MPI_INT, to, 100 + rank, MPI_COMM_WORLD, &q[3]);
    MPI_Iallgather(send, N, MPI_INT, ag, N, MPI_INT, MPI_COMM_WORLD, &q[4]);
    MPI_Ireduce_scatter_block(rs_in, rs, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q[5]);
    rc = complete_all(way, 6, q, st, 0);
    if (rc != MPI_SUCCESS) CT_FAIL("%s on mixed requests returned %d", way_names[way], rc);
    for (i = 0; i < 6; i++)
        if (q[i] != MPI_REQUEST_NULL) CT_FAIL("%s: request %d not freed", way_names[way], i);
    if (got_msg != from) CT_FAIL("%s: received %d, not %d", way_names[way], got_msg, from);
    if (st[0].MPI_SOURCE != from || st[0].MPI_TAG != 100 + from)
        CT_FAIL("%s: receive status source %d tag %d", way_names[way], st[0].MPI_SOURCE, st[0].MPI_TAG);
    for (i = 1; i < 6; i++)
        if (i != 3 && (st[i].MPI_SOURCE != MPI_ANY_SOURCE || st[i].MPI_TAG != MPI_ANY_TAG))
            CT_FAIL("%s: collective %d status source %d tag %d", way_names[way], i, st[i].MPI_SOURCE, st[i].MPI_TAG);
    d_get(host, ar, N * sizeof(int));
    for (i = 0; i < N; i++)
        if (host[i] != 1000 * size * (size - 1) / 2 + size * i) {
            CT_FAIL("%s: allreduce element %d is %d", way_names[way], i, host[i]);
            break;
        }
    d_get(host, bc, N * sizeof(int));
    for (i = 0; i < N; i++)
        if (host[i] != 7 * i) {
            CT_FAIL("%s: bcast element %d is %d", way_names[way], i, host[i]);
            break;
        }
    for (k = 0; k < size; k++) {
        d_get(host, (char *)ag + (size_t)k * N * sizeof(int), N * sizeof(int));
        for (i = 0; i < N; i++)
            if (host[i] != k * 1000 + i) {
                CT_FAIL("%s: allgather block %d element %d is %d", way_names[way], k, i, host[i]);
                k = size;
                break;
            }
    }
    d_get(host, rs, N * sizeof(int));
    for (i = 0; i < N; i++) {
        want = size * ((rank * N + i) % (N * 4)) + size * (size - 1) / 2;
        if (host[i] != want) {
            CT_FAIL("%s: reduce_scatter element %d is %d, not %d", way_names[way], i, host[i], want);
            break;
        }
    }
    ct_checks++;
    d_release(send); d_release(ar); d_release(bc); d_release(ag); d_release(rs); d_release(rs_in);
}

/* ---------------------------------------------------------------------------------------------
 * Many in flight, blocking calls in between
 * ------------------------------------------------------------------------------------------- */
static void check_many(int rank, int size)
{
    enum { CALLS = 16, N = 1000 };
    int *in[CALLS], *out[CALLS], host[N], i, k, rc, b;
    int *blk = d_alloc(N * sizeof(int));
    MPI_Request q[CALLS];

    for (k = 0; k < CALLS; k++) {
        in[k] = d_alloc(N * sizeof(int));
        out[k] = d_alloc(N * sizeof(int));
        for (i = 0; i < N; i++) host[i] = k * rank + i;
        d_put(in[k], host, sizeof host);
        if (k % 4 == 3) rc = MPI_Ireduce(in[k], out[k], N, MPI_INT, MPI_MAX, k % size, MPI_COMM_WORLD, &q[k]);
        else rc = MPI_Iallreduce(in[k], out[k], N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q[k]);
        if (rc != MPI_SUCCESS) CT_FAIL("call %d in flight: %d", k, rc);
        /* A blocking collective on device buffers between the nonblocking ones. */
        b = rank + k;
        d_put(blk, &b, sizeof b);
        (MPI_Allreduce)(MPI_IN_PLACE, blk, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        d_get(&b, blk, sizeof b);
        if (b != size * (size - 1) / 2 + size * k) CT_FAIL("blocking allreduce %d between: %d", k, b);
    }
    rc = MPI_Waitall(CALLS, q, MPI_STATUSES_IGNORE);
    if (rc != MPI_SUCCESS) CT_FAIL("MPI_Waitall of %d calls: %d", CALLS, rc);
    for (k = 0; k < CALLS; k++) {
        d_get(host, out[k], sizeof host);
        for (i = 0; i < N; i++) {
            int want = k % 4 == 3 ? k * (size - 1) + i : k * size * (size - 1) / 2 + size * i;
            if ((k % 4 != 3 || rank == k % size) && host[i] != want) {
                CT_FAIL("call %d of %d in flight: element %d is %d, not %d", k, CALLS, i, host[i], want);
                break;
            }
        }
        d_release(in[k]);
        d_release(out[k]);
    }
    ct_checks++;
    d_release(blk);
}

/* ---------------------------------------------------------------------------------------------
 * MPI_Request_free of an active request
 * ------------------------------------------------------------------------------------------- */
static void check_free_active(int rank, int size)
{
    int *in = d_alloc(64 * sizeof(int)), *buf = d_alloc(64 * sizeof(int)), host[64], i, tries, flag;
    MPI_Request q, other = MPI_REQUEST_NULL;
    for (i = 0; i < 64; i++) host[i] = rank + i;
    d_put(in, host, sizeof host);
    for (i = 0; i < 64; i++) host[i] = -1;
    d_put(buf, host, sizeof host);
    if (MPI_Iallreduce(in, buf, 64, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q) != MPI_SUCCESS)
        CT_FAIL("iallreduce to free failed");
    if (MPI_Request_free(&q) != MPI_SUCCESS || q != MPI_REQUEST_NULL) CT_FAIL("MPI_Request_free of an active request");
    /* It completes in the background: any completion call moves it on. The buffers are the
     * user's again once the result is in. */
    for (tries = 0; tries < 100000; tries++) {
        MPI_Test(&other, &flag, MPI_STATUS_IGNORE);
        d_get(host, buf, sizeof host);
        if (host[63] != -1) break;
    }
    for (i = 0; i < 64; i++)
        if (host[i] != size * (size - 1) / 2 + size * i) {
            CT_FAIL("freed request: element %d is %d", i, host[i]);
            break;
        }
    ct_checks++;
    d_release(in);
    d_release(buf);
}

/* ---------------------------------------------------------------------------------------------
 * Two threads, each with its own communicator, completing their requests at the same time (a
 * thread has no current context here: mcoll uses the buffers' device's primary context)
 * ------------------------------------------------------------------------------------------- */
typedef struct {
    MPI_Comm comm;
    int rank, size, failures;
} thread_work;

static void *thread_calls(void *arg)
{
    thread_work *w = (thread_work *)arg;
    enum { N = 100, CALLS = 40 };
    int host[N], *in = d_alloc(N * sizeof(int)), *out = d_alloc(N * sizeof(int)), k, i, flag;
    MPI_Request q[2];
    for (k = 0; k < CALLS; k++) {
        for (i = 0; i < N; i++) host[i] = w->rank * k + i;
        d_put(in, host, sizeof host);
        MPI_Iallreduce(in, out, N, MPI_INT, MPI_SUM, w->comm, &q[0]);
        MPI_Ibarrier(w->comm, &q[1]);
        if (k % 2) {
            MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
        } else {
            for (flag = 0; !flag;) MPI_Testall(2, q, &flag, MPI_STATUSES_IGNORE);
        }
        d_get(host, out, sizeof host);
        for (i = 0; i < N; i++)
            if (host[i] != k * w->size * (w->size - 1) / 2 + w->size * i) {
                w->failures++;
                break;
            }
    }
    d_release(in);
    d_release(out);
    return NULL;
}

static void check_threads(int rank, int size)
{
    thread_work w[2];
    pthread_t t;
    int k;
    for (k = 0; k < 2; k++) {
        MPI_Comm_dup(MPI_COMM_WORLD, &w[k].comm);
        w[k].rank = rank;
        w[k].size = size;
        w[k].failures = 0;
    }
    if (pthread_create(&t, NULL, thread_calls, &w[1]) != 0) {
        CT_FAIL("pthread_create failed");
        thread_calls(&w[0]);
        thread_calls(&w[1]);
    } else {
        thread_calls(&w[0]);
        pthread_join(t, NULL);
    }
    if (w[0].failures + w[1].failures) CT_FAIL("two threads: %d wrong results", w[0].failures + w[1].failures);
    ct_checks++;
    for (k = 0; k < 2; k++) MPI_Comm_free(&w[k].comm);
}

/* ---------------------------------------------------------------------------------------------
 * Persistent requests
 * ------------------------------------------------------------------------------------------- */
#ifdef INIT
static void check_persistent(int rank, int size)
{
    enum { N = 300, ROUNDS = 10 };
    int *in = d_alloc(N * sizeof(int)), *out = d_alloc(N * sizeof(int)), *bc = d_alloc(N * sizeof(int));
    int host[N], r, i, rc, token = -1, flag = 0;
    MPI_Request q[4], inactive;
    MPI_Status st, st4[4];

    if (INIT(Allreduce)(in, out, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &q[0]) != MPI_SUCCESS ||
        INIT(Bcast)(bc, N, MPI_INT, size - 1, MPI_COMM_WORLD, MPI_INFO_NULL, &q[1]) != MPI_SUCCESS) {
        CT_FAIL("persistent init failed");
        return;
    }
    /* The MPI's own persistent requests alongside: a ring of one int. */
    MPI_Recv_init(&token, 1, MPI_INT, (rank + size - 1) % size, 7, MPI_COMM_WORLD, &q[2]);
    MPI_Send_init(&rank, 1, MPI_INT, (rank + 1) % size, 7, MPI_COMM_WORLD, &q[3]);
    /* Inactive: a wait returns at once with an empty status, and the request stays. */
    inactive = q[0];
    memset(&st, 0x5a, sizeof st);
    if (MPI_Wait(&inactive, &st) != MPI_SUCCESS || inactive != q[0] || st.MPI_SOURCE != MPI_ANY_SOURCE ||
        st.MPI_TAG != MPI_ANY_TAG)
        CT_FAIL("MPI_Wait on an inactive persistent request");
    if (MPI_Test(&inactive, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS || !flag)
        CT_FAIL("MPI_Test on an inactive persistent request");
    for (r = 0; r < ROUNDS; r++) {
        for (i = 0; i < N; i++) host[i] = r * rank + i;
        d_put(in, host, sizeof host);
        for (i = 0; i < N; i++) host[i] = rank == size - 1 ? r + i : -1;
        d_put(bc, host, sizeof host);
        token = -1;
        rc = r % 2 ? MPI_Startall(4, q) : MPI_Start(&q[0]) | MPI_Start(&q[1]) | MPI_Startall(2, &q[2]);
        if (rc != MPI_SUCCESS) CT_FAIL("round %d: start returned %d", r, rc);
        /* Started twice: an error, and the request goes on. */
        if (r == 3 && MPI_Start(&q[0]) != MPI_ERR_REQUEST) CT_FAIL("MPI_Start of an active request");
        rc = complete_all(r % 3 == 0 ? WAITALL : r % 3 == 1 ? WAITANY : TESTSOME, 4, q, st4, 1);
        if (rc != MPI_SUCCESS) CT_FAIL("round %d: completion returned %d", r, rc);
        for (i = 0; i < 4; i++)
            if (q[i] == MPI_REQUEST_NULL) CT_FAIL("round %d: persistent request %d freed", r, i);
        if (token != (rank + size - 1) % size) CT_FAIL("round %d: ring token %d", r, token);
        d_get(host, out, sizeof host);
        for (i = 0; i < N; i++)
            if (host[i] != r * size * (size - 1) / 2 + size * i) {
                CT_FAIL("round %d: persistent allreduce element %d is %d", r, i, host[i]);
                break;
            }
        d_get(host, bc, sizeof host);
        for (i = 0; i < N; i++)
            if (host[i] != r + i) {
                CT_FAIL("round %d: persistent bcast element %d is %d", r, i, host[i]);
                break;
            }
        ct_checks++;
    }
    for (i = 0; i < 4; i++) MPI_Request_free(&q[i]);
    /* Freed while active: the start finishes in the background (any completion call moves it
     * on), then the request is gone; the buffers are the user's once the result is in. */
    for (i = 0; i < N; i++) host[i] = -1;
    d_put(out, host, sizeof host);
    INIT(Allreduce)(in, out, N, MPI_INT, MPI_MAX, MPI_COMM_WORLD, MPI_INFO_NULL, &q[0]);
    MPI_Start(&q[0]);
    MPI_Request_free(&q[0]);
    if (q[0] != MPI_REQUEST_NULL) CT_FAIL("MPI_Request_free of an active persistent request");
    for (r = 0; r < 100000; r++) {
        MPI_Test(&q[0], &flag, MPI_STATUS_IGNORE);
        d_get(host, out, sizeof host);
        if (host[N - 1] != -1) break;
    }
    if (host[N - 1] != (ROUNDS - 1) * (size - 1) + N - 1) CT_FAIL("persistent request freed while active: no result");
    PMPI_Barrier(MPI_COMM_WORLD);
    d_release(in);
    d_release(out);
    d_release(bc);
}
#endif

/* ---------------------------------------------------------------------------------------------
 * Bad input, and an operation that fails
 * ------------------------------------------------------------------------------------------- */
static void check_errors(int rank)
{
    int *a = d_alloc(64 * sizeof(int)), *b = d_alloc(64 * sizeof(int)), host[64] = {0}, rc;
    MPI_Request q = MPI_REQUEST_NULL, qs[2];
    MPI_Status st[2];

    if (error_class(MPI_Iallreduce(a, b, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD, NULL)) != MPI_ERR_ARG)
        CT_FAIL("MPI_Iallreduce with a NULL request");
    if (error_class(MPI_Iallreduce(a, MPI_IN_PLACE, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q)) != MPI_ERR_ARG ||
        q != MPI_REQUEST_NULL)
        CT_FAIL("MPI_Iallreduce with MPI_IN_PLACE as recvbuf");
    if (error_class(MPI_Ibcast(MPI_IN_PLACE, 4, MPI_INT, 0, MPI_COMM_WORLD, &q)) != MPI_ERR_ARG)
        CT_FAIL("MPI_Ibcast of MPI_IN_PLACE");
    if (error_class(MPI_Ireduce(a, b, 4, MPI_INT, MPI_SUM, -1, MPI_COMM_WORLD, &q)) != MPI_ERR_ROOT)
        CT_FAIL("MPI_Ireduce with root -1");
    if (error_class(MPI_Iallgather(a, 4, MPI_INT, b, 4, MPI_INT, MPI_COMM_NULL, &q)) != MPI_ERR_COMM)
        CT_FAIL("MPI_Iallgather on MPI_COMM_NULL");
    if (error_class(MPI_Ibarrier(MPI_COMM_WORLD, NULL)) != MPI_ERR_ARG) CT_FAIL("MPI_Ibarrier with a NULL request");
    /* A nonblocking request is not persistent. */
    MPI_Iallreduce(a, b, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q);
    MPI_Wait(&q, MPI_STATUS_IGNORE);

    /* The copy back fails on rank 0: its MPI_Wait reports it, the others see success. */
    d_put(a, host, sizeof host);
    if (rank == 0) mcoll_contract_fail("cuMemcpyHtoDAsync", 1, CUDA_ERROR_ILLEGAL_ADDRESS);
    MPI_Iallreduce(a, b, 64, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q);
    rc = MPI_Wait(&q, MPI_STATUS_IGNORE);
    if (error_class(rc) != (rank == 0 ? MPI_ERR_OTHER : MPI_SUCCESS)) CT_FAIL("MPI_Wait after a failed copy: %d", rc);
    if (q != MPI_REQUEST_NULL) CT_FAIL("MPI_Wait left a failed request set");
    /* In a Waitall: MPI_ERR_IN_STATUS, the failing request's status says why. */
    if (rank == 0) mcoll_contract_fail("cuMemcpyHtoDAsync", 1, CUDA_ERROR_ILLEGAL_ADDRESS);
    MPI_Iallreduce(a, b, 64, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &qs[0]);
    MPI_Ibarrier(MPI_COMM_WORLD, &qs[1]);
    st[0].MPI_ERROR = st[1].MPI_ERROR = -1;
    rc = MPI_Waitall(2, qs, st);
    if (rank == 0 && (error_class(rc) != MPI_ERR_IN_STATUS || error_class(st[0].MPI_ERROR) != MPI_ERR_OTHER ||
                      st[1].MPI_ERROR != MPI_SUCCESS))
        CT_FAIL("MPI_Waitall after a failed copy: %d, statuses %d %d", rc, st[0].MPI_ERROR, st[1].MPI_ERROR);
    if (rank != 0 && rc != MPI_SUCCESS) CT_FAIL("MPI_Waitall without a failure: %d", rc);
    ct_checks++;
    d_release(a);
    d_release(b);
}

int main(int argc, char **argv)
{
    ct_type types[64];
    const char *const *op_names;
    const MPI_Op *ops;
    int ntypes, nops, t, o, w, rank, size, provided;
    CUdevice dev;
    MPI_Comm split;

    setenv("MCOLL_ENGINE", "staged", 0);
    setenv("MCOLL_CUDA_AWARE", "0", 1);
    setenv("MCOLL_CONTRACT_EVENT_DELAY", "2", 0);
    devmem_install();
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* Errors of generalized requests are raised on MPI_COMM_WORLD in Open MPI. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    devmem_start(rank, &dev);
    ntypes = ct_types(types);
    ops = ct_ops(&nops, &op_names);

    /* Every collective, completed each way, on device and host buffers */
    for (mode = BY_WAIT; mode <= BY_PERSISTENT; mode++) {
#ifndef INIT
        if (mode == BY_PERSISTENT) break;
#endif
        for (t = 0; t < ntypes; t++) {
            int every = mode == BY_WAIT || types[t].type == MPI_INT || types[t].type == MPI_DOUBLE_INT ||
                        types[t].type == MCOLL_FLOAT16;
            if (!every) continue;
            for (o = 0; o < nops; o++) {
                if (mode != BY_WAIT && ops[o] != MPI_SUM && ops[o] != MPI_MAXLOC && ops[o] != MPI_BAND) continue;
                ct_check_reductions(&device_mem, MPI_COMM_WORLD, &types[t], ops[o], op_names[o], 33);
                if (o % 3 == 0) ct_check_reductions(&host_mem, MPI_COMM_WORLD, &types[t], ops[o], op_names[o], 5);
            }
            ct_check_movers(&device_mem, MPI_COMM_WORLD, &types[t], 1);
            ct_check_movers(&device_mem, MPI_COMM_WORLD, &types[t], 33);
            ct_check_movers(&host_mem, MPI_COMM_WORLD, &types[t], 7);
        }
        ct_check_vector(&device_mem, MPI_COMM_WORLD, 2000);
        checkpoint();
    }
    /* The two halves of world, each completion mode, and an intercommunicator between them */
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &split);
    MPI_Comm_set_errhandler(split, MPI_ERRORS_RETURN);
    for (mode = BY_WAIT; mode <= BY_TEST; mode++)
        for (t = 0; t < ntypes; t++) {
            if (types[t].type != MPI_FLOAT && types[t].type != MPI_2INT) continue;
            ct_check_reductions(&device_mem, split, &types[t], types[t].type == MPI_2INT ? MPI_MINLOC : MPI_SUM,
                                types[t].type == MPI_2INT ? "MINLOC" : "SUM", 17);
            ct_check_movers(&device_mem, split, &types[t], 17);
        }
    mode = BY_WAIT;
    if (size >= 2) {
        MPI_Comm inter;
        ct_make_inter(&inter);
        for (t = 0; t < ntypes; t++)
            if (types[t].type == MPI_INT) ct_check_inter(&device_mem, inter, rank % 2 == 0, &types[t], MPI_MAX, "MAX", 9);
        MPI_Comm_free(&inter);
    }
    MPI_Comm_free(&split);
    checkpoint();

    for (w = 0; w < NUM_WAYS; w++) check_mixed(w, rank, size);
    checkpoint();
    check_many(rank, size);
    check_free_active(rank, size);
    if (provided == MPI_THREAD_MULTIPLE) check_threads(rank, size);
#ifdef INIT
    check_persistent(rank, size);
#endif
    checkpoint();
    check_errors(rank);
    checkpoint();

    if (!staged_calls) CT_FAIL("no call was staged through the MPI's nonblocking calls");
    return devmem_finish("mpi_nonblocking", dev);
}
