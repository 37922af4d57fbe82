/* Steps between domains (see hier_internal.h): MPI on the cross communicator, whose ranks are
 * numbered by domain, on device pointers when the MPI is CUDA-aware, else staged (hier_mpi.c). */
#include "hier_internal.h"

void hier_inter_allreduce(hier_run *x, const void *in, void *out, size_t n)
{
    hier_mpi_step s = {HIER_ALLREDUCE, x->h->cross, in, HIER_BYTES(x, n), out, HIER_BYTES(x, n), in == MPI_IN_PLACE,
                       (int)n, 0, NULL, NULL, NULL, NULL};
    hier_mpi(x, &s);
}

void hier_inter_reduce(hier_run *x, const void *in, void *out, size_t n, int root)
{
    int at_root = x->h->my_domain == root;
    hier_mpi_step s = {HIER_REDUCE, x->h->cross, in, HIER_BYTES(x, n), at_root ? out : NULL,
                       at_root ? HIER_BYTES(x, n) : 0, in == MPI_IN_PLACE, (int)n, root, NULL, NULL, NULL, NULL};
    hier_mpi(x, &s);
}

void hier_inter_bcast(hier_run *x, void *buf, size_t n, int root)
{
    hier_mpi_step s = {HIER_BCAST, x->h->cross, NULL, 0, buf, HIER_BYTES(x, n), x->h->my_domain == root, (int)n, root,
                       NULL, NULL, NULL, NULL};
    hier_mpi(x, &s);
}

/* counts and displs: elements per domain, for every domain. */
void hier_inter_allgatherv(hier_run *x, const void *in, size_t n, void *out, const int *counts, const int *displs)
{
    int last = x->h->domains - 1;
    hier_mpi_step s = {HIER_ALLGATHERV, x->h->cross, in, HIER_BYTES(x, n), out,
                       HIER_BYTES(x, (size_t)displs[last] + (size_t)counts[last]), in == MPI_IN_PLACE, (int)n, 0,
                       counts, displs, NULL, NULL};
    hier_mpi(x, &s);
}

/* in holds every domain's counts[d] elements, domain after domain; out gets this domain's. */
void hier_inter_reduce_scatter(hier_run *x, const void *in, void *out, const int *counts)
{
    size_t total = 0;
    int d;
    hier_mpi_step s = {HIER_REDUCE_SCATTER, x->h->cross, in, 0, out, 0, 0, 0, 0, counts, NULL, NULL, NULL};
    for (d = 0; d < x->h->domains; d++) total += (size_t)counts[d];
    s.in_bytes = HIER_BYTES(x, total);
    s.out_bytes = HIER_BYTES(x, counts[x->h->my_domain]);
    hier_mpi(x, &s);
}

/* Equal domains: n elements from every domain. */
void hier_inter_allgather(hier_run *x, const void *in, void *out, size_t n)
{
    hier_mpi_step s = {HIER_ALLGATHER, x->h->cross, in, HIER_BYTES(x, n), out, HIER_BYTES(x, n * (size_t)x->h->domains),
                       in == MPI_IN_PLACE, (int)n, 0, NULL, NULL, NULL, NULL};
    hier_mpi(x, &s);
}

void hier_inter_reduce_scatter_block(hier_run *x, const void *in, void *out, size_t n)
{
    hier_mpi_step s = {HIER_REDUCE_SCATTER_BLOCK, x->h->cross, in, HIER_BYTES(x, n * (size_t)x->h->domains), out,
                       HIER_BYTES(x, n), 0, (int)n, 0, NULL, NULL, NULL, NULL};
    hier_mpi(x, &s);
}
