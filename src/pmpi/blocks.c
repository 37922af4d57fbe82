/* The buffers of the v and w variants: one block per peer, anywhere in the buffer (see
 * mcoll_buf_blocks in pmpi.h), and the peers of the neighbourhood collectives. */
#include "pmpi.h"
#include "typeinfo.h"

/* The span [*lo, *hi) grown by [a, z). */
static void grow(MPI_Aint a, MPI_Aint z, int *any, MPI_Aint *lo, MPI_Aint *hi)
{
    if (!*any || a < *lo) *lo = a;
    if (!*any || z > *hi) *hi = z;
    *any = 1;
}

/* `data` units of the span [lo, hi) are written: the rest are gaps that must be read first. */
static void set_span(mcoll_buf *b, const void *user, MPI_Datatype type, MPI_Aint lo, MPI_Aint hi, MPI_Aint data,
                     int in, int out)
{
    mcoll_buf_set(b, user, type, hi - lo, in || (out && data != hi - lo), out);
    b->first = b->out_first = lo;
}

void mcoll_buf_blocks(mcoll_buf *b, const void *user, MPI_Datatype type, int n, const int *counts,
                      const int *displs, int fixed, int in, int out)
{
    MPI_Aint lo = 0, hi = 0, data = 0;
    int i, any = 0;
    for (i = 0; i < n; i++) {
        MPI_Aint count = counts ? counts[i] : fixed, at = counts ? displs[i] : (MPI_Aint)i * fixed;
        if (count <= 0) continue;
        grow(at, at + count, &any, &lo, &hi);
        data += count;
    }
    set_span(b, user, type, lo, hi, data, in, out);
}

void mcoll_buf_blocks_w(mcoll_buf *b, const void *user, int n, const int *counts, const int *displs,
                        const MPI_Aint *displs_bytes, const MPI_Datatype *types, int in, int out)
{
    MPI_Aint lo = 0, hi = 0, data = 0;
    int i, any = 0;
    for (i = 0; i < n; i++) {
        const mcoll_type_info *info;
        MPI_Aint lb, extent, true_lb, true_extent, step, at;
        int size;
        if (counts[i] <= 0) continue;
        info = mcoll_typeinfo_lookup(types[i]);
        if (info) {
            size = info->size;
            extent = info->extent;
            true_lb = info->true_lb;
            true_extent = info->true_extent;
        } else {
            PMPI_Type_size(types[i], &size);
            PMPI_Type_get_extent(types[i], &lb, &extent);
            PMPI_Type_get_true_extent(types[i], &true_lb, &true_extent);
        }
        if (size <= 0) continue;
        /* The bytes of counts[i] elements, as stage_run.c spans them. */
        step = (MPI_Aint)(counts[i] - 1) * extent;
        at = (displs ? displs[i] : displs_bytes[i]) + true_lb + (step < 0 ? step : 0);
        grow(at, at + true_extent + (step < 0 ? -step : step), &any, &lo, &hi);
        data += (MPI_Aint)counts[i] * size;
    }
    set_span(b, user, MPI_BYTE, lo, hi, data, in, out);
}

int mcoll_neighbor_degrees(MPI_Comm comm, int *indegree, int *outdegree)
{
    int status = MPI_UNDEFINED, n = 0, rank = 0, weighted = 0;
    *indegree = *outdegree = 0;
    if (PMPI_Topo_test(comm, &status) != MPI_SUCCESS) return MPI_ERR_TOPOLOGY;
    switch (status) {
    case MPI_CART:
        if (PMPI_Cartdim_get(comm, &n) != MPI_SUCCESS) return MPI_ERR_TOPOLOGY;
        *indegree = *outdegree = 2 * n;
        return MPI_SUCCESS;
    case MPI_GRAPH:
        if (PMPI_Comm_rank(comm, &rank) != MPI_SUCCESS || PMPI_Graph_neighbors_count(comm, rank, &n) != MPI_SUCCESS)
            return MPI_ERR_TOPOLOGY;
        *indegree = *outdegree = n;
        return MPI_SUCCESS;
    case MPI_DIST_GRAPH:
        if (PMPI_Dist_graph_neighbors_count(comm, indegree, outdegree, &weighted) != MPI_SUCCESS)
            return MPI_ERR_TOPOLOGY;
        return MPI_SUCCESS;
    default:
        return MPI_ERR_TOPOLOGY;
    }
}
