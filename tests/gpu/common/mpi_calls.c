/* Every kind of coll_call through MPI_* in its three forms (mpi_calls.h). */
#include <limits.h>
#include <stdlib.h>
#include <mpi.h>
#if MCOLL_PCOLL == 2
#include <mpi-ext.h>
#endif
#include "mpi_calls.h"

/* The persistent form where the MPI has one: MPI_<Name>_init (MPI 4) or MPIX_<Name>_init. */
#if MCOLL_PCOLL == 1
#define PINIT(Name, ...) MPI_##Name##_init(__VA_ARGS__, MPI_INFO_NULL, q)
#elif MCOLL_PCOLL == 2
#define PINIT(Name, ...) MPIX_##Name##_init(__VA_ARGS__, MPI_INFO_NULL, q)
#else
#define PINIT(Name, ...) MPI_ERR_OTHER
#endif
/* MPI_<Name>(args), MPI_I<name>(args, q) or the persistent form, as `form` says. */
#define CALL(Name, name, ...)                                                                   \
    (form == FORM_BLOCKING      ? MPI_##Name(__VA_ARGS__)                                       \
     : form == FORM_NONBLOCKING ? MPI_I##name(__VA_ARGS__, q)                                   \
                                : PINIT(Name, __VA_ARGS__))

const char *mpi_function(coll_kind kind)
{
    static const char *const names[] = {"MPI_Allreduce", "MPI_Reduce", "MPI_Bcast", "MPI_Reduce_scatter_block",
                                        "MPI_Allgather", "MPI_Allgatherv", "MPI_Alltoall", "MPI_Alltoallv",
                                        "MPI_Gather", "MPI_Gatherv", "MPI_Scatter", "MPI_Scatterv", "MPI_Scan",
                                        "MPI_Exscan"};
    return (size_t)kind < sizeof names / sizeof names[0] ? names[kind] : "?";
}

/* n entries as int; NULL stays NULL; *bad set when one does not fit or memory runs out. */
static int *as_ints(const size_t *a, int n, int *bad)
{
    int *v, i;
    if (!a) return NULL;
    v = malloc((size_t)n * sizeof *v + 1);
    if (!v) *bad = 1;
    for (i = 0; v && i < n; i++) {
        if (a[i] > INT_MAX) *bad = 1;
        v[i] = (int)a[i];
    }
    return v;
}

void mpi_ints_free(mpi_ints *ints)
{
    free(ints->sendcounts);
    free(ints->sdispls);
    free(ints->recvcounts);
    free(ints->rdispls);
    ints->sendcounts = ints->sdispls = ints->recvcounts = ints->rdispls = NULL;
}

int mpi_call(MPI_Comm comm, int size, const coll_call *call, mpi_form form, mpi_ints *ints, MPI_Request *q)
{
    MPI_Datatype t = type_mpi(call->type);
    MPI_Op op = call->op ? op_mpi(call->op) : MPI_OP_NULL;
    int n = (int)call->count, root = call->root, bad = call->count > INT_MAX;
    const void *s = call->sendbuf;
    void *r = call->recvbuf;
    const int *sc, *sd, *rc, *rd;

    ints->sendcounts = as_ints(call->sendcounts, size, &bad);
    ints->sdispls = as_ints(call->sdispls, size, &bad);
    ints->recvcounts = as_ints(call->recvcounts, size, &bad);
    ints->rdispls = as_ints(call->rdispls, size, &bad);
    if (bad) return MPI_ERR_OTHER;
    sc = ints->sendcounts;
    sd = ints->sdispls;
    rc = ints->recvcounts;
    rd = ints->rdispls;
    switch (call->kind) {
    case COLL_ALLREDUCE: return CALL(Allreduce, allreduce, s, r, n, t, op, comm);
    case COLL_REDUCE: return CALL(Reduce, reduce, s, r, n, t, op, root, comm);
    case COLL_BCAST: return CALL(Bcast, bcast, r, n, t, root, comm);
    case COLL_REDUCE_SCATTER: return CALL(Reduce_scatter_block, reduce_scatter_block, s, r, n, t, op, comm);
    case COLL_ALLGATHER: return CALL(Allgather, allgather, s, n, t, r, n, t, comm);
    case COLL_ALLGATHERV: return CALL(Allgatherv, allgatherv, s, n, t, r, rc, rd, t, comm);
    case COLL_ALLTOALL: return CALL(Alltoall, alltoall, s, n, t, r, n, t, comm);
    case COLL_ALLTOALLV: return CALL(Alltoallv, alltoallv, s, sc, sd, t, r, rc, rd, t, comm);
    case COLL_GATHER: return CALL(Gather, gather, s, n, t, r, n, t, root, comm);
    case COLL_GATHERV: return CALL(Gatherv, gatherv, s, n, t, r, rc, rd, t, root, comm);
    case COLL_SCATTER: return CALL(Scatter, scatter, s, n, t, r, n, t, root, comm);
    case COLL_SCATTERV: return CALL(Scatterv, scatterv, s, sc, sd, t, r, n, t, root, comm);
    case COLL_SCAN: return CALL(Scan, scan, s, r, n, t, op, comm);
    case COLL_EXSCAN: return CALL(Exscan, exscan, s, r, n, t, op, comm);
    }
    return MPI_ERR_OTHER;
}
