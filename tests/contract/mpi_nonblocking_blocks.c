/* The nonblocking and persistent forms of the block collectives and scans through mcoll, under
 * mpirun, on host buffers and on "device" buffers of the contract driver (the staged path's
 * state machine; with the engines on, test_staged_engines.sh: asked, declined, then staged):
 * MPI_Iallgatherv, MPI_Ialltoall, MPI_Ialltoallv, MPI_Ialltoallw, MPI_Igather, MPI_Igatherv,
 * MPI_Iscatter, MPI_Iscatterv, MPI_Iscan, MPI_Iexscan and their persistent forms (where the MPI
 * has them), every root, in and out of place, empty blocks, completed by MPI_Wait, by an
 * MPI_Test loop and as persistent requests started once, each against the same call made
 * blocking through PMPI_* on host copies (common/colltest_blocks.h, common/colltest.h); on an
 * intercommunicator too. PMPI hooks check that no device pointer reaches the MPI. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include "common/pcoll.h"

/* The checks call the blocking functions; here they become nonblocking or persistent calls
 * completed as `mode` says. */
static int nb_allgatherv(const void *, int, MPI_Datatype, void *, const int *, const int *, MPI_Datatype, MPI_Comm);
static int nb_alltoall(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, MPI_Comm);
static int nb_alltoallv(const void *, const int *, const int *, MPI_Datatype, void *, const int *, const int *,
                        MPI_Datatype, MPI_Comm);
static int nb_alltoallw(const void *, const int *, const int *, const MPI_Datatype *, void *, const int *,
                        const int *, const MPI_Datatype *, MPI_Comm);
static int nb_gather(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, int, MPI_Comm);
static int nb_gatherv(const void *, int, MPI_Datatype, void *, const int *, const int *, MPI_Datatype, int, MPI_Comm);
static int nb_scatter(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, int, MPI_Comm);
static int nb_scatterv(const void *, const int *, const int *, MPI_Datatype, void *, int, MPI_Datatype, int, MPI_Comm);
static int nb_scan(const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm);
static int nb_exscan(const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm);
#define MPI_Allgatherv(...) nb_allgatherv(__VA_ARGS__)
#define MPI_Alltoall(...) nb_alltoall(__VA_ARGS__)
#define MPI_Alltoallv(...) nb_alltoallv(__VA_ARGS__)
#define MPI_Alltoallw(...) nb_alltoallw(__VA_ARGS__)
#define MPI_Gather(...) nb_gather(__VA_ARGS__)
#define MPI_Gatherv(...) nb_gatherv(__VA_ARGS__)
#define MPI_Scatter(...) nb_scatter(__VA_ARGS__)
#define MPI_Scatterv(...) nb_scatterv(__VA_ARGS__)
#define MPI_Scan(...) nb_scan(__VA_ARGS__)
#define MPI_Exscan(...) nb_exscan(__VA_ARGS__)
#include "contract/devmem.h"
#include "contract/hostmem.h"
#include "common/colltest_blocks.h"

enum { BY_WAIT, BY_TEST, BY_PERSISTENT };
static int mode;
static long staged_calls;

/* ---------------------------------------------------------------------------------------------
 * PMPI hooks: what reaches the MPI library
 * ------------------------------------------------------------------------------------------- */
#define HOOK(name, params, args, sendbuf, recvbuf)                                              \
    int P##name params                                                                         \
    {                                                                                          \
        static int(*real) params;                                                              \
        if (!real) real = (int(*) params)dlsym(RTLD_NEXT, "P" #name);                          \
        check_host("P" #name, sendbuf);                                                        \
        check_host("P" #name, recvbuf);                                                        \
        staged_calls++;                                                                        \
        return real args;                                                                      \
    }
HOOK(MPI_Iallgatherv, (const void *s, int sn, MPI_Datatype st, void *r, const int *rn, const int *rd,
                       MPI_Datatype rt, MPI_Comm c, MPI_Request *q), (s, sn, st, r, rn, rd, rt, c, q), s, r)
HOOK(MPI_Ialltoall, (const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, MPI_Comm c,
                     MPI_Request *q), (s, sn, st, r, rn, rt, c, q), s, r)
HOOK(MPI_Ialltoallv, (const void *s, const int *sn, const int *sd, MPI_Datatype st, void *r, const int *rn,
                      const int *rd, MPI_Datatype rt, MPI_Comm c, MPI_Request *q),
     (s, sn, sd, st, r, rn, rd, rt, c, q), s, r)
HOOK(MPI_Ialltoallw, (const void *s, const int *sn, const int *sd, const MPI_Datatype *st, void *r, const int *rn,
                      const int *rd, const MPI_Datatype *rt, MPI_Comm c, MPI_Request *q),
     (s, sn, sd, st, r, rn, rd, rt, c, q), s, r)
HOOK(MPI_Igather, (const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, int root, MPI_Comm c,
                   MPI_Request *q), (s, sn, st, r, rn, rt, root, c, q), s, r)
HOOK(MPI_Igatherv, (const void *s, int sn, MPI_Datatype st, void *r, const int *rn, const int *rd, MPI_Datatype rt,
                    int root, MPI_Comm c, MPI_Request *q), (s, sn, st, r, rn, rd, rt, root, c, q), s, r)
HOOK(MPI_Iscatter, (const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, int root, MPI_Comm c,
                    MPI_Request *q), (s, sn, st, r, rn, rt, root, c, q), s, r)
HOOK(MPI_Iscatterv, (const void *s, const int *sn, const int *sd, MPI_Datatype st, void *r, int rn, MPI_Datatype rt,
                     int root, MPI_Comm c, MPI_Request *q), (s, sn, sd, st, r, rn, rt, root, c, q), s, r)
HOOK(MPI_Iscan, (const void *s, void *r, int n, MPI_Datatype t, MPI_Op o, MPI_Comm c, MPI_Request *q),
     (s, r, n, t, o, c, q), s, r)
HOOK(MPI_Iexscan, (const void *s, void *r, int n, MPI_Datatype t, MPI_Op o, MPI_Comm c, MPI_Request *q),
     (s, r, n, t, o, c, q), s, r)

/* ---------------------------------------------------------------------------------------------
 * The checks' calls, nonblocking or persistent
 * ------------------------------------------------------------------------------------------- */
static int finish(int rc, MPI_Request *q)
{
    int flag = 0;
    if (rc != MPI_SUCCESS) {
        if (*q != MPI_REQUEST_NULL) CT_FAIL("a call that failed (%d) returned a request", rc);
        return rc;
    }
    if (mode == BY_PERSISTENT) {
        rc = MPI_Start(q);
        if (rc == MPI_SUCCESS) rc = MPI_Wait(q, MPI_STATUS_IGNORE);
        if (*q == MPI_REQUEST_NULL) CT_FAIL("MPI_Wait freed a persistent request");
        MPI_Request_free(q);
        return rc;
    }
    if (*q == MPI_REQUEST_NULL) CT_FAIL("a call that succeeded returned MPI_REQUEST_NULL");
    if (mode == BY_WAIT) rc = MPI_Wait(q, MPI_STATUS_IGNORE);
    else
        while (rc == MPI_SUCCESS && !flag) rc = MPI_Test(q, &flag, MPI_STATUS_IGNORE);
    if (rc == MPI_SUCCESS && *q != MPI_REQUEST_NULL) CT_FAIL("completion left the request set");
    return rc;
}

/* The nonblocking call, or with mode BY_PERSISTENT its persistent form (never reached where the
 * MPI has none: main skips that mode). */
#ifdef INIT
#define NB(Name, name, ...)                                                                   \
    MPI_Request q = MPI_REQUEST_NULL;                                                           \
    return finish(mode == BY_PERSISTENT ? INIT(Name)(__VA_ARGS__, MPI_INFO_NULL, &q)            \
                                        : MPI_I##name(__VA_ARGS__, &q),                        \
                  &q)
#else
#define NB(Name, name, ...)                                                                   \
    MPI_Request q = MPI_REQUEST_NULL;                                                           \
    return finish(MPI_I##name(__VA_ARGS__, &q), &q)
#endif

static int nb_allgatherv(const void *s, int sn, MPI_Datatype st, void *r, const int *rn, const int *rd,
                         MPI_Datatype rt, MPI_Comm c)
{
    NB(Allgatherv, allgatherv, s, sn, st, r, rn, rd, rt, c);
}
static int nb_alltoall(const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, MPI_Comm c)
{
    NB(Alltoall, alltoall, s, sn, st, r, rn, rt, c);
}
static int nb_alltoallv(const void *s, const int *sn, const int *sd, MPI_Datatype st, void *r, const int *rn,
                        const int *rd, MPI_Datatype rt, MPI_Comm c)
{
    NB(Alltoallv, alltoallv, s, sn, sd, st, r, rn, rd, rt, c);
}
static int nb_alltoallw(const void *s, const int *sn, const int *sd, const MPI_Datatype *st, void *r, const int *rn,
                        const int *rd, const MPI_Datatype *rt, MPI_Comm c)
{
    NB(Alltoallw, alltoallw, s, sn, sd, st, r, rn, rd, rt, c);
}
static int nb_gather(const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, int root, MPI_Comm c)
{
    NB(Gather, gather, s, sn, st, r, rn, rt, root, c);
}
static int nb_gatherv(const void *s, int sn, MPI_Datatype st, void *r, const int *rn, const int *rd,
                      MPI_Datatype rt, int root, MPI_Comm c)
{
    NB(Gatherv, gatherv, s, sn, st, r, rn, rd, rt, root, c);
}
static int nb_scatter(const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, int root, MPI_Comm c)
{
    NB(Scatter, scatter, s, sn, st, r, rn, rt, root, c);
}
static int nb_scatterv(const void *s, const int *sn, const int *sd, MPI_Datatype st, void *r, int rn,
                       MPI_Datatype rt, int root, MPI_Comm c)
{
    NB(Scatterv, scatterv, s, sn, sd, st, r, rn, rt, root, c);
}
static int nb_scan(const void *s, void *r, int n, MPI_Datatype t, MPI_Op o, MPI_Comm c)
{
    NB(Scan, scan, s, r, n, t, o, c);
}
static int nb_exscan(const void *s, void *r, int n, MPI_Datatype t, MPI_Op o, MPI_Comm c)
{
    NB(Exscan, exscan, s, r, n, t, o, c);
}


static void scans(const colltest_mem *mem, const ct_type *t, MPI_Op op, const char *opname, int count)
{
    int in_place;
    for (in_place = 0; in_place < 2; in_place++) {
        ct_check(mem, MPI_COMM_WORLD, CT_SCAN, t, op, opname, count, in_place, 0);
        ct_check(mem, MPI_COMM_WORLD, CT_EXSCAN, t, op, opname, count, in_place, 0);
    }
}

int main(int argc, char **argv)
{
    static const int counts[] = {0, 1, 5};
    ct_type types[64];
    const char *const *op_names;
    const MPI_Op *ops;
    int ntypes, nops, t, o, k, rank, size;
    CUdevice dev;

    setenv("MCOLL_ENGINE", "staged", 0);
    setenv("MCOLL_CUDA_AWARE", "0", 1);
    setenv("MCOLL_CONTRACT_EVENT_DELAY", "2", 0);
    devmem_mpi_init(&argc, &argv, &rank, &size, &dev);
    ntypes = ct_types(types);
    ops = ct_ops(&nops, &op_names);

    for (mode = BY_WAIT; mode <= BY_PERSISTENT; mode++) {
#ifndef INIT
        if (mode == BY_PERSISTENT) break;
#endif
        for (t = 0; t < ntypes; t++) {
            int few = types[t].type == MPI_INT || types[t].type == MPI_DOUBLE_INT || types[t].type == MCOLL_FLOAT16 ||
                      types[t].type == MPI_CHAR;
            if (mode != BY_WAIT && !few) continue;
            for (k = 0; k < 3; k++) cb_check_all(&device_mem, MPI_COMM_WORLD, &types[t], counts[k]);
            if (few) cb_check_all(&host_mem, MPI_COMM_WORLD, &types[t], 3);
            for (o = 0; o < nops; o++) {
                if (mode != BY_WAIT && ops[o] != MPI_SUM && ops[o] != MPI_MAXLOC) continue;
                scans(&device_mem, &types[t], ops[o], op_names[o], 7);
                if (few) scans(&host_mem, &types[t], ops[o], op_names[o], 3);
            }
            checkpoint();
        }
    }
    mode = BY_WAIT;
    if (size >= 2) {
        MPI_Comm inter;
        ct_make_inter(&inter);
        for (t = 0; t < ntypes; t++)
            if (types[t].type == MPI_INT) {
                cb_check_inter(&device_mem, inter, rank % 2 == 0, &types[t], 7);
                cb_check_inter(&device_mem, inter, rank % 2 == 1, &types[t], 2);
            }
        MPI_Comm_free(&inter);
    }
    checkpoint();

    if (!staged_calls) CT_FAIL("no call was staged through the MPI's nonblocking calls");
    return devmem_finish("mpi_nonblocking_blocks", dev);
}
