/* Host agreements (see agree.h). */
#include <limits.h>
#include "agree.h"

int mcoll_team_agree(MPI_Comm comm, int ok)
{
    int all = 0;
    ok = ok != 0;
    if (PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS) return 0;
    return all;
}

int mcoll_agree_first_failure(MPI_Comm comm, int rank, int ok)
{
    int mine = ok ? INT_MAX : rank, first = 0;
    if (PMPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS) return INT_MAX;
    return first == INT_MAX ? -1 : first;
}

int mcoll_agree_max(MPI_Comm comm, const uint64_t *mine, uint64_t *all, int n)
{
    return PMPI_Allreduce(mine, all, n, MPI_UINT64_T, MPI_MAX, comm) == MPI_SUCCESS;
}

int mcoll_agree_min(MPI_Comm comm, const uint64_t *mine, uint64_t *all, int n)
{
    return PMPI_Allreduce(mine, all, n, MPI_UINT64_T, MPI_MIN, comm) == MPI_SUCCESS;
}

/* The largest of each value and of its negation: the largest and the smallest. */
int mcoll_agree_range(MPI_Comm comm, const int64_t *mine, int64_t *lo, int64_t *hi, int n)
{
    int64_t v[16];
    int i;
    if (n < 0 || n > 8) return 0;
    for (i = 0; i < n; i++) {
        v[2 * i] = mine[i];
        v[2 * i + 1] = -mine[i];
    }
    if (PMPI_Allreduce(MPI_IN_PLACE, v, 2 * n, MPI_INT64_T, MPI_MAX, comm) != MPI_SUCCESS) return 0;
    for (i = 0; i < n; i++) {
        hi[i] = v[2 * i];
        lo[i] = -v[2 * i + 1];
    }
    return 1;
}
