/* The GPU engines behind the MPI wrappers: one native communicator per MPI communicator,
 * built on its first device-buffer collective and kept in the communicator's record
 * (comm_attr.h), which frees it with the communicator or at MPI_Finalize. */
#include <stdlib.h>
#include "checks.h"
#include "comm_internal.h"
#include "config.h"
#include "dtype.h"
#include "engine.h"
#include "comm_attr.h"

/* The communicator's engine, built on first use; NULL when it has none. */
static mcoll_comm *engine_for(mcoll_comm_state *cs)
{
    const mcoll_settings *settings = mcoll_settings_get();
    mcoll_comm *engine = NULL;
    mcoll_config config;
    mcoll_result rc;

    if (cs->engine_tried) return cs->engine;
    if (cs->size >= settings->min_ranks && mcoll_driver_available()) {
        mcoll_config_init(&config);
        rc = mcoll_comm_create(cs->comm, &config, &engine);
        if (rc != MCOLL_SUCCESS) {
            engine = NULL;
            MCOLL_INFO("communicator without GPU engine: %s", mcoll_strerror(rc));
        }
    }
    mcoll_comm_state_set_engine(cs, engine);
    return engine;
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
                                    mcoll_comm_state *cs)
{
    mcoll_comm *c;
    if (!reducible(type, op) || !(c = engine_for(cs))) return MCOLL_ERR_UNSUPPORTED;
    return finish(c, mcoll_allreduce(sendbuf, recvbuf, (size_t)count, type, op, c, mcoll_comm_stream(c)));
}

mcoll_result mcoll_engine_bcast(void *buf, int count, MPI_Datatype type, int root, mcoll_comm_state *cs)
{
    mcoll_comm *c;
    if (!contiguous(type) || !(c = engine_for(cs))) return MCOLL_ERR_UNSUPPORTED;
    return finish(c, mcoll_bcast(buf, (size_t)count, type, root, c, mcoll_comm_stream(c)));
}

mcoll_result mcoll_engine_reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
                                 int root, mcoll_comm_state *cs)
{
    mcoll_comm *c;
    if (!reducible(type, op) || !(c = engine_for(cs))) return MCOLL_ERR_UNSUPPORTED;
    return finish(c, mcoll_reduce(sendbuf, recvbuf, (size_t)count, type, op, root, c, mcoll_comm_stream(c)));
}

mcoll_result mcoll_engine_reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype type,
                                               MPI_Op op, mcoll_comm_state *cs)
{
    mcoll_comm *c;
    if (!reducible(type, op) || !(c = engine_for(cs))) return MCOLL_ERR_UNSUPPORTED;
    return finish(c, mcoll_reduce_scatter(sendbuf, recvbuf, (size_t)recvcount, type, op, c, mcoll_comm_stream(c)));
}

mcoll_result mcoll_engine_allgather(const void *sendbuf, int sendcount, void *recvbuf, int recvcount, MPI_Datatype type,
                                    mcoll_comm_state *cs)
{
    mcoll_comm *c;
    if ((sendbuf != MPI_IN_PLACE && sendcount != recvcount) || !contiguous(type) || !(c = engine_for(cs)))
        return MCOLL_ERR_UNSUPPORTED;
    return finish(c, mcoll_allgather(sendbuf, recvbuf, (size_t)recvcount, type, c, mcoll_comm_stream(c)));
}
