/* The GPU engines behind the MPI wrappers: one native communicator per MPI communicator,
 * built on its first device-buffer collective and cached on it with an attribute. Teams are
 * freed with their communicator, or at MPI_Finalize through an MPI_COMM_SELF attribute, whose
 * delete callback MPI runs before anything else is torn down. */
#include <stdlib.h>
#include "checks.h"
#include "comm_internal.h"
#include "config.h"
#include "dtype.h"
#include "engine.h"

typedef struct engine_record {
    mcoll_comm *comm;          /* NULL when the communicator cannot use the engines */
    struct engine_record *next;
} engine_record;

static int comm_keyval = MPI_KEYVAL_INVALID;
static int self_keyval = MPI_KEYVAL_INVALID;
static engine_record *live; /* records whose team is still alive */

static void unlink_record(engine_record *rec)
{
    engine_record **p;
    for (p = &live; *p; p = &(*p)->next)
        if (*p == rec) { *p = rec->next; return; }
}

static int delete_comm_record(MPI_Comm comm, int keyval, void *value, void *extra)
{
    engine_record *rec = value;
    (void)comm; (void)keyval; (void)extra;
    if (rec->comm) mcoll_comm_destroy(rec->comm);
    unlink_record(rec);
    free(rec);
    return MPI_SUCCESS;
}

/* MPI_Finalize: free every team still alive, before MPI itself goes. */
static int delete_all(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)comm; (void)keyval; (void)value; (void)extra;
    while (live) {
        engine_record *rec = live;
        live = rec->next;
        if (rec->comm) mcoll_comm_destroy(rec->comm);
        rec->comm = NULL;
        rec->next = NULL;
    }
    return MPI_SUCCESS;
}

void mcoll_engine_mpi_init(void)
{
    if (comm_keyval != MPI_KEYVAL_INVALID) return;
    PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_comm_record, &comm_keyval, NULL);
    PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_all, &self_keyval, NULL);
    PMPI_Comm_set_attr(MPI_COMM_SELF, self_keyval, NULL);
}

/* The communicator's engine, built on first use; NULL when it has none. */
static mcoll_comm *engine_for(MPI_Comm comm)
{
    engine_record *rec = NULL;
    const mcoll_settings *settings = mcoll_settings_get();
    mcoll_config config;
    int flag = 0, size = 0;
    mcoll_result rc;

    if (comm_keyval == MPI_KEYVAL_INVALID || settings->disable || settings->engine == MCOLL_ENGINE_STAGED) return NULL;
    if (PMPI_Comm_get_attr(comm, comm_keyval, &rec, &flag) == MPI_SUCCESS && flag) return rec->comm;
    rec = calloc(1, sizeof *rec);
    if (!rec) return NULL;
    PMPI_Comm_size(comm, &size);
    if (size >= settings->min_ranks && mcoll_driver_available()) {
        mcoll_config_init(&config);
        rc = mcoll_comm_create(comm, &config, &rec->comm);
        if (rc != MCOLL_SUCCESS) {
            rec->comm = NULL;
            MCOLL_INFO("communicator without GPU engine: %s", mcoll_strerror(rc));
        }
    }
    rec->next = live;
    live = rec;
    PMPI_Comm_set_attr(comm, comm_keyval, rec);
    return rec->comm;
}

static mcoll_result finish(mcoll_comm *c, mcoll_result rc)
{
    if (rc != MCOLL_SUCCESS) return rc;
    return mcoll_comm_sync(c);
}

/* Types and ops the kernels lack are refused before any team is built for them. */
static int reducible(MPI_Datatype type, MPI_Op op)
{
    mcoll_dtype dt;
    mcoll_op mop;
    return mcoll_dtype_from_mpi(type, &dt) == 0 && mcoll_op_from_mpi(op, dt, &mop) == 0;
}

static int contiguous(MPI_Datatype type)
{
    MPI_Aint lb, extent, true_lb, true_extent;
    int size;
    return PMPI_Type_size(type, &size) == MPI_SUCCESS && PMPI_Type_get_extent(type, &lb, &extent) == MPI_SUCCESS &&
           PMPI_Type_get_true_extent(type, &true_lb, &true_extent) == MPI_SUCCESS && extent == size &&
           true_extent == size && true_lb == 0 && lb == 0;
}

mcoll_result mcoll_engine_allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
                                    MPI_Comm comm)
{
    mcoll_comm *c;
    if (!reducible(type, op) || !(c = engine_for(comm))) return MCOLL_ERR_UNSUPPORTED;
    return finish(c, mcoll_allreduce(sendbuf, recvbuf, (size_t)count, type, op, c, mcoll_comm_stream(c)));
}

mcoll_result mcoll_engine_bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    mcoll_comm *c;
    if (!contiguous(type) || !(c = engine_for(comm))) return MCOLL_ERR_UNSUPPORTED;
    return finish(c, mcoll_bcast(buf, (size_t)count, type, root, c, mcoll_comm_stream(c)));
}

mcoll_result mcoll_engine_reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
                                 int root, MPI_Comm comm)
{
    mcoll_comm *c;
    if (!reducible(type, op) || !(c = engine_for(comm))) return MCOLL_ERR_UNSUPPORTED;
    return finish(c, mcoll_reduce(sendbuf, recvbuf, (size_t)count, type, op, root, c, mcoll_comm_stream(c)));
}

mcoll_result mcoll_engine_reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype type,
                                               MPI_Op op, MPI_Comm comm)
{
    mcoll_comm *c;
    if (!reducible(type, op) || !(c = engine_for(comm))) return MCOLL_ERR_UNSUPPORTED;
    return finish(c, mcoll_reduce_scatter(sendbuf, recvbuf, (size_t)recvcount, type, op, c, mcoll_comm_stream(c)));
}

mcoll_result mcoll_engine_allgather(const void *sendbuf, int sendcount, void *recvbuf, int recvcount, MPI_Datatype type,
                                    MPI_Comm comm)
{
    mcoll_comm *c;
    if ((sendbuf != MPI_IN_PLACE && sendcount != recvcount) || !contiguous(type) || !(c = engine_for(comm)))
        return MCOLL_ERR_UNSUPPORTED;
    return finish(c, mcoll_allgather(sendbuf, recvbuf, (size_t)recvcount, type, c, mcoll_comm_stream(c)));
}
