/* Nonblocking and persistent hierarchical calls on "device" buffers of the contract driver, under
 * mpirun, with the steps inside each domain made through MPI (MCOLL_HIER=mpi, MCOLL_DOMAIN_SIZE=2,
 * MPI not CUDA-aware unless the environment says, MCOLL_STAGE_CHUNK=64K so that calls run in
 * several chunks or pieces, MCOLL_HIER_NONBLOCKING=1; test_hier.sh runs it in other settings
 * too, and with the setting off on some rank, where every call must be staged): many
 * calls of every hierarchical collective outstanding at once, with a blocking call between
 * them, which finishes them first; a start that must not wait for the peers; persistent allreduce and bcast started
 * several times; a communicator freed with a call in flight. Every result is checked against the
 * value it must have; the steps were nonblocking calls on the hierarchy's sub-communicators, on
 * host memory only when the MPI is not CUDA-aware; the events answer NOT_READY twice after each record, so every step is
 * tested before it is done; nothing is left allocated at the end (devmem_finish).
 *
 * The program defines the PMPI_I* calls of the steps itself (mcoll is linked statically) to
 * count those made on sub-communicators and to check that no device pointer reaches them. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <unistd.h>
#include "contract/devmem.h"
#include "contract/pmpi_real.h"
#include "contract/hier_test.h"
#include "common/pcoll.h"

static int world_rank, world_size, cuda_aware, hier_nonblocking;
static long sub_calls;

static void note(MPI_Comm c, const char *call, const void *s, const void *r)
{
    int n = 0;
    PMPI_Comm_size(c, &n);
    if (n < world_size) sub_calls++;
    if (cuda_aware) return;
    check_host(call, s);
    check_host(call, r);
}

typedef int (*iallreduce_fn)(const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm, MPI_Request *);
typedef int (*ireduce_fn)(const void *, void *, int, MPI_Datatype, MPI_Op, int, MPI_Comm, MPI_Request *);
typedef int (*ibcast_fn)(void *, int, MPI_Datatype, int, MPI_Comm, MPI_Request *);
typedef int (*iallgather_fn)(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, MPI_Comm, MPI_Request *);
typedef int (*irsb_fn)(const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm, MPI_Request *);
typedef int (*ialltoallv_fn)(const void *, const int *, const int *, MPI_Datatype, void *, const int *, const int *,
                             MPI_Datatype, MPI_Comm, MPI_Request *);
typedef int (*igatherv_fn)(const void *, int, MPI_Datatype, void *, const int *, const int *, MPI_Datatype, int,
                           MPI_Comm, MPI_Request *);
typedef int (*iallgatherv_fn)(const void *, int, MPI_Datatype, void *, const int *, const int *, MPI_Datatype,
                              MPI_Comm, MPI_Request *);
static long exchanges; /* reductions between domains exchanged in parts (src/hier/exchange.c) */

int PMPI_Iallreduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op o, MPI_Comm c, MPI_Request *q)
{
    REAL(PMPI_Iallreduce, iallreduce_fn);
    note(c, "PMPI_Iallreduce", s, r);
    return real_PMPI_Iallreduce(s, r, n, t, o, c, q);
}
int PMPI_Ireduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op o, int root, MPI_Comm c, MPI_Request *q)
{
    REAL(PMPI_Ireduce, ireduce_fn);
    note(c, "PMPI_Ireduce", s, r);
    return real_PMPI_Ireduce(s, r, n, t, o, root, c, q);
}
int PMPI_Ibcast(void *b, int n, MPI_Datatype t, int root, MPI_Comm c, MPI_Request *q)
{
    REAL(PMPI_Ibcast, ibcast_fn);
    note(c, "PMPI_Ibcast", b, NULL);
    return real_PMPI_Ibcast(b, n, t, root, c, q);
}
int PMPI_Iallgather(const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, MPI_Comm c,
                    MPI_Request *q)
{
    REAL(PMPI_Iallgather, iallgather_fn);
    note(c, "PMPI_Iallgather", s, r);
    return real_PMPI_Iallgather(s, sn, st, r, rn, rt, c, q);
}
int PMPI_Ireduce_scatter_block(const void *s, void *r, int n, MPI_Datatype t, MPI_Op o, MPI_Comm c, MPI_Request *q)
{
    REAL(PMPI_Ireduce_scatter_block, irsb_fn);
    note(c, "PMPI_Ireduce_scatter_block", s, r);
    return real_PMPI_Ireduce_scatter_block(s, r, n, t, o, c, q);
}

/* The exchange of parts between domains and the sharing of the reduced parts. */
int PMPI_Ialltoallv(const void *s, const int *sn, const int *sd, MPI_Datatype st, void *r, const int *rn,
                    const int *rd, MPI_Datatype rt, MPI_Comm c, MPI_Request *q)
{
    REAL(PMPI_Ialltoallv, ialltoallv_fn);
    note(c, "PMPI_Ialltoallv", s, r);
    exchanges++;
    return real_PMPI_Ialltoallv(s, sn, sd, st, r, rn, rd, rt, c, q);
}
int PMPI_Igatherv(const void *s, int sn, MPI_Datatype st, void *r, const int *rn, const int *rd, MPI_Datatype rt,
                  int root, MPI_Comm c, MPI_Request *q)
{
    REAL(PMPI_Igatherv, igatherv_fn);
    note(c, "PMPI_Igatherv", s, r);
    return real_PMPI_Igatherv(s, sn, st, r, rn, rd, rt, root, c, q);
}
int PMPI_Iallgatherv(const void *s, int sn, MPI_Datatype st, void *r, const int *rn, const int *rd, MPI_Datatype rt,
                     MPI_Comm c, MPI_Request *q)
{
    REAL(PMPI_Iallgatherv, iallgatherv_fn);
    note(c, "PMPI_Iallgatherv", s, r);
    return real_PMPI_Iallgatherv(s, sn, st, r, rn, rd, rt, c, q);
}

/* One outstanding call: its device buffers and what its output must hold. */
typedef struct {
    const char *name;
    int *d_in, *d_out;
    int *want;         /* NULL: this rank receives nothing (a reduce's non-root) */
    int count;         /* elements of `want` */
    MPI_Request req;
} pending;

static int *device_ints(const int *host, int n)
{
    int *d = d_alloc((size_t)n * sizeof(int));
    if (host) d_put(d, host, (size_t)n * sizeof(int));
    return d;
}

static int *ints(int n) { return malloc((size_t)(n > 0 ? n : 1) * sizeof(int)); }

/* Element i of rank r's input, for call number k. */
static int value(int k, int r, int i) { return 1000 * r + 7 * k + i % 101; }

static void start_allreduce(pending *p, int k, int n, int in_place)
{
    int *in = ints(n), i, r;
    p->name = in_place ? "MPI_Iallreduce in place" : "MPI_Iallreduce";
    p->want = ints(n);
    p->count = n;
    for (i = 0; i < n; i++) {
        in[i] = value(k, world_rank, i);
        for (p->want[i] = 0, r = 0; r < world_size; r++) p->want[i] += value(k, r, i);
    }
    p->d_in = device_ints(in, n);
    p->d_out = in_place ? p->d_in : device_ints(NULL, n);
    MPI_Iallreduce(in_place ? MPI_IN_PLACE : p->d_in, p->d_out, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &p->req);
    free(in);
}

static void start_reduce(pending *p, int k, int n, int root)
{
    int *in = ints(n), i, r;
    p->name = "MPI_Ireduce";
    p->want = world_rank == root ? ints(n) : NULL;
    p->count = n;
    for (i = 0; i < n; i++) {
        in[i] = value(k, world_rank, i);
        if (p->want)
            for (p->want[i] = 0, r = 0; r < world_size; r++) p->want[i] += value(k, r, i);
    }
    p->d_in = device_ints(in, n);
    p->d_out = device_ints(NULL, n);
    MPI_Ireduce(p->d_in, p->d_out, n, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD, &p->req);
    free(in);
}

static void start_bcast(pending *p, int k, int n, int root)
{
    int *in = ints(n), i;
    p->name = "MPI_Ibcast";
    p->want = ints(n);
    p->count = n;
    for (i = 0; i < n; i++) {
        in[i] = world_rank == root ? value(k, root, i) : -1;
        p->want[i] = value(k, root, i);
    }
    p->d_in = NULL;
    p->d_out = device_ints(in, n);
    MPI_Ibcast(p->d_out, n, MPI_INT, root, MPI_COMM_WORLD, &p->req);
    free(in);
}

static void start_allgather(pending *p, int k, int n)
{
    int *in = ints(n), i, r;
    p->name = "MPI_Iallgather";
    p->count = n * world_size;
    p->want = ints(p->count);
    for (i = 0; i < n; i++) in[i] = value(k, world_rank, i);
    for (r = 0; r < world_size; r++)
        for (i = 0; i < n; i++) p->want[r * n + i] = value(k, r, i);
    p->d_in = device_ints(in, n);
    p->d_out = device_ints(NULL, p->count);
    MPI_Iallgather(p->d_in, n, MPI_INT, p->d_out, n, MPI_INT, MPI_COMM_WORLD, &p->req);
    free(in);
}

static void start_reduce_scatter(pending *p, int k, int n)
{
    int total = n * world_size, *in = ints(total), i, r;
    p->name = "MPI_Ireduce_scatter_block";
    p->count = n;
    p->want = ints(n);
    for (i = 0; i < total; i++) in[i] = value(k, world_rank, i);
    for (i = 0; i < n; i++)
        for (p->want[i] = 0, r = 0; r < world_size; r++) p->want[i] += value(k, r, world_rank * n + i);
    p->d_in = device_ints(in, total);
    p->d_out = device_ints(NULL, n);
    MPI_Ireduce_scatter_block(p->d_in, p->d_out, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &p->req);
    free(in);
}

/* The output of a finished call against what it must hold; its buffers freed. */
static void finish(pending *p)
{
    int *got = ints(p->count), i;
    ct_checks++;
    if (p->want) {
        d_get(got, p->d_out, (size_t)p->count * sizeof(int));
        for (i = 0; i < p->count && got[i] == p->want[i]; i++) continue;
        if (i < p->count)
            CT_FAIL("%s of %d ints: element %d is %d, wanted %d", p->name, p->count, i, got[i], p->want[i]);
    }
    if (p->d_in && p->d_in != p->d_out) d_release(p->d_in);
    d_release(p->d_out);
    free(got);
    free(p->want);
}

/* Many calls of every collective outstanding at once, a blocking allreduce among them. */
static void many_outstanding(int n, int round)
{
    pending p[8];
    int k = 0, i, blocking[64], ok = 1, *d_blocking, done = 0;
    MPI_Request reqs[8];
    start_allreduce(&p[k], round + k, n, 0), k++;
    start_reduce(&p[k], round + k, n, (round + 1) % world_size), k++;
    start_bcast(&p[k], round + k, n, round % world_size), k++;
    /* On the hierarchical path too: the calls before it finish first. */
    for (i = 0; i < 64; i++) blocking[i] = world_rank + i;
    d_blocking = device_ints(blocking, 64);
    MPI_Allreduce(MPI_IN_PLACE, d_blocking, 64, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    d_get(blocking, d_blocking, sizeof blocking);
    d_release(d_blocking);
    for (i = 0; i < 64; i++) ok &= blocking[i] == world_size * i + world_size * (world_size - 1) / 2;
    ct_checks += 2;
    if (!ok) CT_FAIL("blocking MPI_Allreduce between nonblocking calls: wrong result");
    /* It made its steps after theirs, so they are done: one test completes them all. */
    for (i = 0; i < k; i++) reqs[i] = p[i].req;
    MPI_Testall(k, reqs, &done, MPI_STATUSES_IGNORE);
    if (!done && hier_nonblocking) CT_FAIL("the nonblocking calls before a blocking hierarchical call were not finished by it");
    for (i = 0; i < k; i++) p[i].req = reqs[i];
    start_allgather(&p[k], round + k, n), k++;
    start_reduce_scatter(&p[k], round + k, n), k++;
    start_allreduce(&p[k], round + k, n, 1), k++;
    for (i = 0; i < k; i++) reqs[i] = p[i].req;
    if (MPI_Waitall(k, reqs, MPI_STATUSES_IGNORE) != MPI_SUCCESS) CT_FAIL("MPI_Waitall of %d hierarchical calls", k);
    for (i = 0; i < k; i++) finish(&p[i]);
}

/* Rank 0 starts an allreduce and then sends a token, which rank 1 receives before it starts its
 * own: the start must not wait for the peers. Then MPI_Test until done. */
static void start_is_local(int n)
{
    pending p;
    int token = 0, flag = 0;
    if (world_rank == 1) MPI_Recv(&token, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    start_allreduce(&p, 99, n, 0);
    if (world_rank == 0) MPI_Send(&token, 1, MPI_INT, 1, 5, MPI_COMM_WORLD);
    while (!flag) MPI_Test(&p.req, &flag, MPI_STATUS_IGNORE);
    finish(&p);
}

/* Persistent allreduce and bcast, each started three times on new inputs. */
static void persistent(int n)
{
#ifdef INIT
    int *in = ints(n), *out = ints(n), *d_in = device_ints(NULL, n), *d_out = device_ints(NULL, n), *d_b = device_ints(NULL, n);
    MPI_Request q[2];
    int start, i, r, want, bad = 0;
    INIT(Allreduce)(d_in, d_out, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &q[0]);
    INIT(Bcast)(d_b, n, MPI_INT, 1 % world_size, MPI_COMM_WORLD, MPI_INFO_NULL, &q[1]);
    for (start = 0; start < 3; start++) {
        for (i = 0; i < n; i++) in[i] = value(start, world_rank, i);
        d_put(d_in, in, (size_t)n * sizeof(int));
        d_put(d_b, in, (size_t)n * sizeof(int));
        MPI_Startall(2, q);
        MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
        d_get(out, d_out, (size_t)n * sizeof(int));
        for (i = 0; i < n; i++) {
            for (want = 0, r = 0; r < world_size; r++) want += value(start, r, i);
            bad += out[i] != want;
        }
        d_get(out, d_b, (size_t)n * sizeof(int));
        for (i = 0; i < n; i++) bad += out[i] != value(start, 1 % world_size, i);
        ct_checks++;
        if (bad) CT_FAIL("persistent allreduce and bcast, start %d: %d wrong elements", start, bad);
    }
    MPI_Request_free(&q[0]);
    MPI_Request_free(&q[1]);
    d_release(d_in), d_release(d_out), d_release(d_b);
    free(in), free(out);
#else
    (void)n;
#endif
}

/* A communicator freed while a call on it is in flight: the call still finishes. */
static void freed_in_flight(int n)
{
    MPI_Comm dup;
    int one = 1, *in = ints(n), *out = ints(n), *d = device_ints(NULL, n), i, bad = 0;
    MPI_Request q;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Allreduce(MPI_IN_PLACE, &one, 1, MPI_INT, MPI_SUM, dup); /* learns its domains */
    for (i = 0; i < n; i++) in[i] = i;
    d_put(d, in, (size_t)n * sizeof(int));
    MPI_Iallreduce(MPI_IN_PLACE, d, n, MPI_INT, MPI_SUM, dup, &q);
    MPI_Comm_free(&dup);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    d_get(out, d, (size_t)n * sizeof(int));
    for (i = 0; i < n; i++) bad += out[i] != world_size * i;
    ct_checks++;
    if (bad) CT_FAIL("allreduce on a communicator freed while in flight: %d wrong elements", bad);
    d_release(d);
    free(in), free(out);
}

int main(int argc, char **argv)
{
    static const int counts[] = {1, 33, 3 * ((64 << 10) / 4 / 2) + 5, 2 * (64 << 10) / 4 + 3};
    CUdevice dev;
    int k, warm = 0, *d_warm;
    long before;

    cuda_aware = hier_test_settings();
    setenv("MCOLL_CONTRACT_EVENT_DELAY", "2", 0);
    /* On unless the run says; "rank0" turns it on for world rank 0 alone, which must leave it
     * off everywhere (the ranks agree when they learn the domains). */
    setenv("MCOLL_HIER_NONBLOCKING", "1", 0);
    if (!strcmp(getenv("MCOLL_HIER_NONBLOCKING"), "rank0"))
        setenv("MCOLL_HIER_NONBLOCKING", getenv("OMPI_COMM_WORLD_RANK") && atoi(getenv("OMPI_COMM_WORLD_RANK")) == 0 ? "1" : "0", 1);
    hier_nonblocking = getenv("MCOLL_HIER_NONBLOCKING")[0] == '1';
    devmem_mpi_init(&argc, &argv, &world_rank, &world_size, &dev);

    /* A first blocking call on device memory learns the domains (nonblocking calls never ask). */
    d_warm = device_ints(&warm, 1);
    MPI_Allreduce(MPI_IN_PLACE, d_warm, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    d_release(d_warm);
    MPI_Allreduce(MPI_IN_PLACE, &hier_nonblocking, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD); /* on where all have it */

    before = sub_calls;
    for (k = 0; k < (int)(sizeof counts / sizeof counts[0]); k++) many_outstanding(counts[k], k);
    if (world_size > 1) start_is_local(counts[2]);
    persistent(counts[3]);
    freed_in_flight(counts[1]);
    checkpoint();
    before = sub_calls - before;
    MPI_Allreduce(MPI_IN_PLACE, &before, 1, MPI_LONG, MPI_MIN, MPI_COMM_WORLD);
    if (hier_nonblocking && before == 0)
        CT_FAIL("no nonblocking MPI call on a domain or cross communicator: not the hierarchical path");
    if (!hier_nonblocking && before != 0)
        CT_FAIL("MCOLL_HIER_NONBLOCKING is off on some rank, yet %ld nonblocking calls ran on sub-communicators", before);
    /* With the GPU engines allowed (MCOLL_HIER=auto; the runs that set it make their set-up fail,
     * so the parts are reduced on the host) the reductions between equal domains are exchanged in
     * parts; through MPI inside the domains (MCOLL_HIER=mpi) they are the MPI's. */
    ct_checks++;
    if (hier_nonblocking && !strcmp(getenv("MCOLL_HIER"), "auto") && world_size % 2 == 0 && !exchanges)
        CT_FAIL("no reduction between domains exchanged in parts");
    if (strcmp(getenv("MCOLL_HIER"), "auto") && exchanges)
        CT_FAIL("%ld exchanges of parts with MCOLL_HIER=%s", exchanges, getenv("MCOLL_HIER"));
    return devmem_finish("mpi_hier_nonblocking", dev);
}
