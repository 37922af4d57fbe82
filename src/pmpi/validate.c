/* Argument checks shared by the wrappers (see validate.h). */
#include <string.h>
#include "validate.h"
#include "typeinfo.h"

int mcoll_comm_is_null(MPI_Comm comm)
{
#ifdef OPEN_MPI
    /* Open MPI's MPI_Comm_f2c answers NULL, not MPI_COMM_NULL, for an invalid Fortran handle. */
    void *handle = NULL;
    memcpy(&handle, &comm, sizeof comm < sizeof handle ? sizeof comm : sizeof handle);
    if (!handle) return 1;
#endif
    return comm == MPI_COMM_NULL;
}

int mcoll_check_type(MPI_Datatype type, const mcoll_type_info *info, int count)
{
    if (type == MPI_DATATYPE_NULL) return MPI_ERR_TYPE;
    if (count < 0) return MPI_ERR_COUNT;
    if (!info && !mcoll_type_is_committed(type)) return MPI_ERR_TYPE;
    return MPI_SUCCESS;
}

int mcoll_check_op(const mcoll_call *c)
{
    if (c->op == MPI_OP_NULL) return MPI_ERR_OP;
    return mcoll_op_accepts(c->op, c->opi, c->type, c->info) ? MPI_SUCCESS : MPI_ERR_OP;
}

int mcoll_check_buffer(const void *buf, int count, MPI_Datatype type, const mcoll_type_info *info)
{
    MPI_Aint true_lb = 0, true_extent = 0;
    int size = 0;
    if (buf == MPI_IN_PLACE) return MPI_ERR_ARG;
    if (buf || count == 0) return MPI_SUCCESS;
    /* The rule Open MPI applies: a NULL buffer is fine only for a derived datatype whose data
     * lies at absolute addresses (MPI_BOTTOM), or which holds no data. */
    if (info) return MPI_ERR_BUFFER;
    if (PMPI_Type_size(type, &size) != MPI_SUCCESS || PMPI_Type_get_true_extent(type, &true_lb, &true_extent) != MPI_SUCCESS)
        return MPI_ERR_TYPE;
    return size > 0 && true_lb == 0 ? MPI_ERR_BUFFER : MPI_SUCCESS;
}

int mcoll_check_root(const mcoll_comm_state *cs, int root)
{
    if (cs->is_inter) {
        if (root == MPI_ROOT || root == MPI_PROC_NULL) return MPI_SUCCESS;
        return root >= 0 && root < cs->remote_size ? MPI_SUCCESS : MPI_ERR_ROOT;
    }
    return root >= 0 && root < cs->size ? MPI_SUCCESS : MPI_ERR_ROOT;
}

int mcoll_check_reduction(const mcoll_call *c)
{
    int err = mcoll_check_type(c->type, c->info, c->count);
    if (err == MPI_SUCCESS) err = mcoll_check_op(c);
    if (err == MPI_SUCCESS && c->recvbuf == MPI_IN_PLACE) err = MPI_ERR_ARG;
    if (err == MPI_SUCCESS && c->sendbuf == MPI_IN_PLACE && c->cs->is_inter) err = MPI_ERR_ARG;
    return err;
}

int mcoll_check_reduction_buffers(const mcoll_call *c)
{
    int err = mcoll_check_reduction(c);
    if (err == MPI_SUCCESS && c->sendbuf != MPI_IN_PLACE)
        err = mcoll_check_buffer(c->sendbuf, c->count, c->type, c->info);
    if (err == MPI_SUCCESS) err = mcoll_check_buffer(c->recvbuf, c->count, c->type, c->info);
    if (err == MPI_SUCCESS) err = mcoll_check_alias(c->sendbuf, c->recvbuf, c->count);
    return err;
}

int mcoll_check_alias(const void *sendbuf, const void *recvbuf, int count)
{
    return count > 0 && sendbuf && sendbuf == recvbuf ? MPI_ERR_BUFFER : MPI_SUCCESS;
}

int mcoll_check_blocks(const int *counts, const void *displs, int n)
{
    int i;
    if (n > 0 && !counts) return MPI_ERR_COUNT;
    for (i = 0; i < n; i++)
        if (counts[i] < 0) return MPI_ERR_COUNT;
    return n > 0 && !displs ? MPI_ERR_ARG : MPI_SUCCESS;
}

int mcoll_check_block_types(const MPI_Datatype *types, const int *counts, int n)
{
    int i, err = MPI_SUCCESS;
    if (n > 0 && !types) return MPI_ERR_ARG;
    for (i = 0; i < n && err == MPI_SUCCESS; i++)
        err = mcoll_check_type(types[i], mcoll_typeinfo_lookup(types[i]), counts[i]);
    return err;
}

int mcoll_check_side(const void *buf, MPI_Datatype type, const mcoll_type_info *info, int n, int vector,
                     const int *counts, const int *displs, int fixed)
{
    int err = vector ? mcoll_check_blocks(counts, displs, n) : MPI_SUCCESS;
    if (err == MPI_SUCCESS) err = mcoll_check_type(type, info, vector ? 0 : fixed);
    if (err == MPI_SUCCESS)
        err = mcoll_check_buffer(buf, vector ? mcoll_blocks_hold_data(counts, n) : n > 0 ? fixed : 0, type, info);
    return err;
}

int mcoll_blocks_hold_data(const int *counts, int n)
{
    int i;
    for (i = 0; counts && i < n; i++)
        if (counts[i] > 0) return 1;
    return 0;
}

int mcoll_check_own_block(MPI_Datatype sendtype, int sendcount, MPI_Datatype recvtype, int recvcount)
{
    int send_size = 0, recv_size = 0;
    PMPI_Type_size(sendtype, &send_size);
    PMPI_Type_size(recvtype, &recv_size);
    return (long long)send_size * sendcount == (long long)recv_size * recvcount ? MPI_SUCCESS : MPI_ERR_TRUNCATE;
}
