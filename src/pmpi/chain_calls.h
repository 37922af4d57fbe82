/* The MPI functions that take part in the PMPI tool chain (chain.h), one line each:
 *   X(Name, (parameters as mpi.h declares them), (the parameters as arguments))
 * The build reads the names from the lines that start with X( (src/build.mk), so keep one entry
 * per line. */
#ifndef MCOLL_CHAIN_CALLS_H
#define MCOLL_CHAIN_CALLS_H

/* The calls mcoll makes on the user's behalf, which go to the next MPI_<Name> in the chain:
 * start-up and finalize, the blocking collectives and the nonblocking ones. */
#define MCOLL_CHAIN_PASSED(X) \
    X(Init, (int *argc, char ***argv), (argc, argv)) \
    X(Init_thread, (int *argc, char ***argv, int required, int *provided), (argc, argv, required, provided)) \
    X(Finalize, (void), ()) \
    X(Allreduce, (const void *s, void *r, int n, MPI_Datatype t, MPI_Op o, MPI_Comm c), (s, r, n, t, o, c)) \
    X(Bcast, (void *b, int n, MPI_Datatype t, int root, MPI_Comm c), (b, n, t, root, c)) \
    X(Reduce, (const void *s, void *r, int n, MPI_Datatype t, MPI_Op o, int root, MPI_Comm c), (s, r, n, t, o, root, c)) \
    X(Reduce_scatter_block, (const void *s, void *r, int n, MPI_Datatype t, MPI_Op o, MPI_Comm c), (s, r, n, t, o, c)) \
    X(Reduce_scatter, (const void *s, void *r, const int rn[], MPI_Datatype t, MPI_Op o, MPI_Comm c), (s, r, rn, t, o, c)) \
    X(Allgather, (const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, MPI_Comm c), (s, sn, st, r, rn, rt, c)) \
    X(Allgatherv, (const void *s, int sn, MPI_Datatype st, void *r, const int rn[], const int d[], MPI_Datatype rt, MPI_Comm c), (s, sn, st, r, rn, d, rt, c)) \
    X(Alltoall, (const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, MPI_Comm c), (s, sn, st, r, rn, rt, c)) \
    X(Alltoallv, (const void *s, const int sn[], const int sd[], MPI_Datatype st, void *r, const int rn[], const int rd[], MPI_Datatype rt, MPI_Comm c), (s, sn, sd, st, r, rn, rd, rt, c)) \
    X(Alltoallw, (const void *s, const int sn[], const int sd[], const MPI_Datatype st[], void *r, const int rn[], const int rd[], const MPI_Datatype rt[], MPI_Comm c), (s, sn, sd, st, r, rn, rd, rt, c)) \
    X(Gather, (const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, int root, MPI_Comm c), (s, sn, st, r, rn, rt, root, c)) \
    X(Gatherv, (const void *s, int sn, MPI_Datatype st, void *r, const int rn[], const int d[], MPI_Datatype rt, int root, MPI_Comm c), (s, sn, st, r, rn, d, rt, root, c)) \
    X(Scatter, (const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, int root, MPI_Comm c), (s, sn, st, r, rn, rt, root, c)) \
    X(Scatterv, (const void *s, const int sn[], const int d[], MPI_Datatype st, void *r, int rn, MPI_Datatype rt, int root, MPI_Comm c), (s, sn, d, st, r, rn, rt, root, c)) \
    X(Scan, (const void *s, void *r, int n, MPI_Datatype t, MPI_Op o, MPI_Comm c), (s, r, n, t, o, c)) \
    X(Exscan, (const void *s, void *r, int n, MPI_Datatype t, MPI_Op o, MPI_Comm c), (s, r, n, t, o, c)) \
    X(Reduce_local, (const void *s, void *r, int n, MPI_Datatype t, MPI_Op o), (s, r, n, t, o)) \
    X(Barrier, (MPI_Comm c), (c)) \
    X(Neighbor_allgather, (const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, MPI_Comm c), (s, sn, st, r, rn, rt, c)) \
    X(Neighbor_allgatherv, (const void *s, int sn, MPI_Datatype st, void *r, const int rn[], const int d[], MPI_Datatype rt, MPI_Comm c), (s, sn, st, r, rn, d, rt, c)) \
    X(Neighbor_alltoall, (const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, MPI_Comm c), (s, sn, st, r, rn, rt, c)) \
    X(Neighbor_alltoallv, (const void *s, const int sn[], const int sd[], MPI_Datatype st, void *r, const int rn[], const int rd[], MPI_Datatype rt, MPI_Comm c), (s, sn, sd, st, r, rn, rd, rt, c)) \
    X(Neighbor_alltoallw, (const void *s, const int sn[], const MPI_Aint sd[], const MPI_Datatype st[], void *r, const int rn[], const MPI_Aint rd[], const MPI_Datatype rt[], MPI_Comm c), (s, sn, sd, st, r, rn, rd, rt, c)) \
    X(Iallreduce, (const void *s, void *r, int n, MPI_Datatype t, MPI_Op o, MPI_Comm c, MPI_Request *q), (s, r, n, t, o, c, q)) \
    X(Ibcast, (void *b, int n, MPI_Datatype t, int root, MPI_Comm c, MPI_Request *q), (b, n, t, root, c, q)) \
    X(Ireduce, (const void *s, void *r, int n, MPI_Datatype t, MPI_Op o, int root, MPI_Comm c, MPI_Request *q), (s, r, n, t, o, root, c, q)) \
    X(Ireduce_scatter_block, (const void *s, void *r, int n, MPI_Datatype t, MPI_Op o, MPI_Comm c, MPI_Request *q), (s, r, n, t, o, c, q)) \
    X(Ireduce_scatter, (const void *s, void *r, const int rn[], MPI_Datatype t, MPI_Op o, MPI_Comm c, MPI_Request *q), (s, r, rn, t, o, c, q)) \
    X(Iallgather, (const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, MPI_Comm c, MPI_Request *q), (s, sn, st, r, rn, rt, c, q)) \
    X(Ibarrier, (MPI_Comm c, MPI_Request *q), (c, q))

/* The completion calls, which must reach mcoll whenever one of its requests may be among their
 * arguments (the MPI alone would wait on it for ever); they go on to the MPI itself. */
#define MCOLL_CHAIN_COMPLETION(X) \
    X(Wait, (MPI_Request *q, MPI_Status *st), (q, st)) \
    X(Test, (MPI_Request *q, int *f, MPI_Status *st), (q, f, st)) \
    X(Waitall, (int n, MPI_Request q[], MPI_Status st[]), (n, q, st)) \
    X(Testall, (int n, MPI_Request q[], int *f, MPI_Status st[]), (n, q, f, st)) \
    X(Waitany, (int n, MPI_Request q[], int *i, MPI_Status *st), (n, q, i, st)) \
    X(Testany, (int n, MPI_Request q[], int *i, int *f, MPI_Status *st), (n, q, i, f, st)) \
    X(Waitsome, (int n, MPI_Request q[], int *on, int ix[], MPI_Status st[]), (n, q, on, ix, st)) \
    X(Testsome, (int n, MPI_Request q[], int *on, int ix[], MPI_Status st[]), (n, q, on, ix, st)) \
    X(Request_get_status, (MPI_Request q, int *f, MPI_Status *st), (q, f, st)) \
    X(Start, (MPI_Request *q), (q)) \
    X(Startall, (int n, MPI_Request q[]), (n, q)) \
    X(Request_free, (MPI_Request *q), (q))

/* Every PMPI_<Name> that mcoll answers (chain_pmpi.c). */
#define MCOLL_CHAIN_ANSWERED(X) MCOLL_CHAIN_PASSED(X) MCOLL_CHAIN_COMPLETION(X)

#endif /* MCOLL_CHAIN_CALLS_H */
