/* Argument checks shared by the wrappers (see validate.h). */
#include <string.h>
#include "validate.h"
#include "typeinfo.h"

int mcoll_raise(MPI_Comm comm, int errclass)
{
    PMPI_Comm_call_errhandler(mcoll_comm_is_null(comm) ? MPI_COMM_WORLD : comm, errclass);
    return errclass;
}

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

int mcoll_check_alias(const void *sendbuf, const void *recvbuf, int count)
{
    return count > 0 && sendbuf && sendbuf == recvbuf ? MPI_ERR_BUFFER : MPI_SUCCESS;
}
