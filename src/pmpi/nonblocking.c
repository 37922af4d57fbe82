/* The nonblocking collectives (MPI_Iallreduce, ...) and the one table entry per collective that
 * the nonblocking and persistent calls share (request.h). A call is prepared and decided like
 * its blocking form (pmpi_run.c, decide.c), so every rank takes the same path:
 *   mpi, direct   the MPI's own nonblocking call with the user's arguments and request;
 *   engine, staged  an mcoll operation behind a generalized request. */
#define _POSIX_C_SOURCE 200809L
#include "request.h"
#include "engine.h"
#include "hier.h"
#include "plugin.h"
#include "validate.h"
#include "clock.h"
#include "log.h"
#include "persistent_names.h"
#include "reported.h"

/* ---------------------------------------------------------------------------------------------
 * The table: each collective's PMPI_I* call and, where the MPI has them, its persistent form
 * ------------------------------------------------------------------------------------------- */
static int iallreduce(const mcoll_call *c, const void *sendbuf, void *recvbuf, MPI_Request *req)
{
    return mcoll_next_Iallreduce(sendbuf, recvbuf, c->count, c->type, c->mpi_op, c->comm, req);
}

static int ibcast(const mcoll_call *c, const void *sendbuf, void *buf, MPI_Request *req)
{
    (void)sendbuf;
    return mcoll_next_Ibcast(buf, c->count, c->type, c->root, c->comm, req);
}

static int ireduce(const mcoll_call *c, const void *sendbuf, void *recvbuf, MPI_Request *req)
{
    return mcoll_next_Ireduce(sendbuf, recvbuf, c->count, c->type, c->mpi_op, c->root, c->comm, req);
}

static int ireduce_scatter_block(const mcoll_call *c, const void *sendbuf, void *recvbuf, MPI_Request *req)
{
    return mcoll_next_Ireduce_scatter_block(sendbuf, recvbuf, c->count, c->type, c->mpi_op, c->comm, req);
}

static int ireduce_scatter(const mcoll_call *c, const void *sendbuf, void *recvbuf, MPI_Request *req)
{
    return mcoll_next_Ireduce_scatter(sendbuf, recvbuf, c->recvcounts, c->type, c->mpi_op, c->comm, req);
}

static int iallgather(const mcoll_call *c, const void *sendbuf, void *recvbuf, MPI_Request *req)
{
    return mcoll_next_Iallgather(sendbuf, c->count, c->type, recvbuf, c->recvcount, c->recvtype, c->comm, req);
}

#ifdef PMPI_INIT
static int allreduce_init(const mcoll_call *c, MPI_Info info, MPI_Request *req)
{
    return PMPI_INIT(Allreduce)(c->sendbuf, c->recvbuf, c->count, c->type, c->mpi_op, c->comm, info, req);
}

static int bcast_init(const mcoll_call *c, MPI_Info info, MPI_Request *req)
{
    return PMPI_INIT(Bcast)(c->recvbuf, c->count, c->type, c->root, c->comm, info, req);
}

static int reduce_init(const mcoll_call *c, MPI_Info info, MPI_Request *req)
{
    return PMPI_INIT(Reduce)(c->sendbuf, c->recvbuf, c->count, c->type, c->mpi_op, c->root, c->comm, info, req);
}

static int reduce_scatter_block_init(const mcoll_call *c, MPI_Info info, MPI_Request *req)
{
    return PMPI_INIT(Reduce_scatter_block)(c->sendbuf, c->recvbuf, c->count, c->type, c->mpi_op, c->comm, info, req);
}

static int reduce_scatter_init(const mcoll_call *c, MPI_Info info, MPI_Request *req)
{
    return PMPI_INIT(Reduce_scatter)(c->sendbuf, c->recvbuf, c->recvcounts, c->type, c->mpi_op, c->comm, info, req);
}

static int allgather_init(const mcoll_call *c, MPI_Info info, MPI_Request *req)
{
    return PMPI_INIT(Allgather)(c->sendbuf, c->count, c->type, c->recvbuf, c->recvcount, c->recvtype, c->comm, info,
                                req);
}
#endif

const mcoll_nb_coll mcoll_nb_allreduce = {&mcoll_coll_allreduce, "iallreduce", iallreduce, INIT(allreduce_init), 1};
const mcoll_nb_coll mcoll_nb_bcast = {&mcoll_coll_bcast, "ibcast", ibcast, INIT(bcast_init), 1};
const mcoll_nb_coll mcoll_nb_reduce = {&mcoll_coll_reduce, "ireduce", ireduce, INIT(reduce_init), 1};
const mcoll_nb_coll mcoll_nb_reduce_scatter_block = {&mcoll_coll_reduce_scatter_block, "ireduce_scatter_block",
                                                     ireduce_scatter_block, INIT(reduce_scatter_block_init), 1};
const mcoll_nb_coll mcoll_nb_reduce_scatter = {&mcoll_coll_reduce_scatter, "ireduce_scatter", ireduce_scatter,
                                               INIT(reduce_scatter_init), 1};
const mcoll_nb_coll mcoll_nb_allgather = {&mcoll_coll_allgather, "iallgather", iallgather, INIT(allgather_init), 1};

/* ---------------------------------------------------------------------------------------------
 * The common run
 * ------------------------------------------------------------------------------------------- */
/* Prepare and decide without the collective domain question of a first blocking call:
 * a nonblocking call must not wait for the other ranks (comm_attr.h). */
static int prepare(mcoll_call *c, mcoll_decision *d, MPI_Request *request)
{
    int err;
    if (mcoll_plugin_active && !mcoll_comm_is_null(c->comm)) {
        char fn[64];
        if (!request) return mcoll_raise_in(mcoll_call_name(c, fn, sizeof fn), c->comm, MPI_ERR_ARG);
        *request = MPI_REQUEST_NULL;
        c->cs = mcoll_comm_state_find(c->comm);
    }
    c->nonblocking = 1;
    err = mcoll_pmpi_prepare(c, d);
    /* Their steps advance only inside MPI completion calls (docs/hierarchical.md): asked for. */
    if (err == MPI_SUCCESS && d->path == MCOLL_PATH_HIER && !mcoll_hier_nonblocking(c->cs->hier))
        mcoll_decide_without_engine(c, d, "hierarchical: nonblocking calls not asked for (MCOLL_HIER_NONBLOCKING)");
    return err;
}

int mcoll_nb_run(mcoll_call *c, const mcoll_nb_coll *nb, MPI_Request *request)
{
    mcoll_decision d;
    const uint64_t t0 = mcoll_trace_ns();
    int err = prepare(c, &d, request);
    if (err == MCOLL_PMPI_FORWARD) return nb->start(c, c->sendbuf, c->recvbuf, request);
    if (err != MPI_SUCCESS) return err;
    if (nb->ring) mcoll_engine_ring_plan(c, &d);
    if (d.path == MCOLL_PATH_ENGINE || d.path == MCOLL_PATH_STAGED || d.path == MCOLL_PATH_HIER) {
        MCOLL_TRACE("%s: %.2f us to decide", nb->name, mcoll_trace_us(t0, mcoll_trace_ns()));
        err = mcoll_nbop_create(c, &d, nb, 0, request);
        if (err != MCOLL_PMPI_FORWARD) return err;
        /* The engine declined and the MPI is CUDA-aware: the user's buffers go to it. */
    } else {
        mcoll_pmpi_log_path(c, &d);
    }
    return nb->start(c, c->sendbuf, c->recvbuf, request);
}

int mcoll_nb_init(mcoll_call *c, const mcoll_nb_coll *nb, MPI_Info info, MPI_Request *request)
{
    mcoll_decision d;
    int err = prepare(c, &d, request);
    if (err == MCOLL_PMPI_FORWARD) return nb->init(c, info, request);
    if (err != MPI_SUCCESS) return err;
    /* The plan is made once: a communicator's engine is built now, or the call staged. */
    if (d.path == MCOLL_PATH_ENGINE && !mcoll_engine_of(c->cs)) mcoll_decide_without_engine(c, &d, "declined");
    if (nb->ring) mcoll_engine_ring_plan(c, &d);
    if (d.path == MCOLL_PATH_ENGINE || d.path == MCOLL_PATH_STAGED || d.path == MCOLL_PATH_HIER)
        return mcoll_nbop_create(c, &d, nb, 1, request);
    mcoll_pmpi_log_path(c, &d);
    return nb->init(c, info, request);
}

/* ---------------------------------------------------------------------------------------------
 * Entry points: one builder per collective, for its nonblocking and persistent forms
 * ------------------------------------------------------------------------------------------- */
int mcoll_nb_call(mcoll_call *c, const mcoll_nb_coll *nb, int persistent, MPI_Info info, MPI_Request *request)
{
    c->form = persistent ? MCOLL_CALL_PERSISTENT : MCOLL_CALL_NONBLOCKING;
    return persistent ? mcoll_nb_init(c, nb, info, request) : mcoll_nb_run(c, nb, request);
}

static int allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                     int persistent, MPI_Info info, MPI_Request *request)
{
    mcoll_call c = {.coll = &mcoll_coll_allreduce, .sendbuf = sendbuf, .recvbuf = recvbuf, .count = count,
                    .type = type, .recvtype = type, .op = op, .comm = comm};
    return mcoll_nb_call(&c, &mcoll_nb_allreduce, persistent, info, request);
}

static int bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm, int persistent, MPI_Info info,
                 MPI_Request *request)
{
    mcoll_call c = {.coll = &mcoll_coll_bcast, .sendbuf = buf, .recvbuf = buf, .count = count, .type = type,
                    .recvtype = type, .op = MPI_OP_NULL, .root = root, .comm = comm};
    return mcoll_nb_call(&c, &mcoll_nb_bcast, persistent, info, request);
}

static int reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, int root,
                  MPI_Comm comm, int persistent, MPI_Info info, MPI_Request *request)
{
    mcoll_call c = {.coll = &mcoll_coll_reduce, .sendbuf = sendbuf, .recvbuf = recvbuf, .count = count,
                    .type = type, .recvtype = type, .op = op, .root = root, .comm = comm};
    return mcoll_nb_call(&c, &mcoll_nb_reduce, persistent, info, request);
}

static int reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype type, MPI_Op op,
                                MPI_Comm comm, int persistent, MPI_Info info, MPI_Request *request)
{
    mcoll_call c = {.coll = &mcoll_coll_reduce_scatter_block, .sendbuf = sendbuf, .recvbuf = recvbuf,
                    .count = recvcount, .type = type, .recvtype = type, .op = op, .comm = comm};
    return mcoll_nb_call(&c, &mcoll_nb_reduce_scatter_block, persistent, info, request);
}

static int reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype type, MPI_Op op,
                          MPI_Comm comm, int persistent, MPI_Info info, MPI_Request *request)
{
    mcoll_call c = {.coll = &mcoll_coll_reduce_scatter, .sendbuf = sendbuf, .recvbuf = recvbuf,
                    .recvcounts = recvcounts, .type = type, .recvtype = type, .op = op, .comm = comm};
    return mcoll_nb_call(&c, &mcoll_nb_reduce_scatter, persistent, info, request);
}

static int allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                     MPI_Datatype recvtype, MPI_Comm comm, int persistent, MPI_Info info, MPI_Request *request)
{
    mcoll_call c = {.coll = &mcoll_coll_allgather, .sendbuf = sendbuf, .recvbuf = recvbuf, .count = sendcount,
                    .recvcount = recvcount, .type = sendtype, .recvtype = recvtype, .op = MPI_OP_NULL, .comm = comm};
    return mcoll_nb_call(&c, &mcoll_nb_allgather, persistent, info, request);
}

/* No buffers: always the MPI's; checked like MPI_Barrier. */
static int barrier_checks(MPI_Comm comm, MPI_Request *request, const char *name)
{
    char fn[64];
    if (mcoll_comm_is_null(comm)) return mcoll_raise_in(mcoll_mpi_name(name, fn, sizeof fn), comm, MPI_ERR_COMM);
    if (!request) return mcoll_raise_in(mcoll_mpi_name(name, fn, sizeof fn), comm, MPI_ERR_ARG);
    MCOLL_REPORT_NO_BUFFERS(comm, name);
    return MPI_SUCCESS;
}

int mcoll_mpi_iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                         MPI_Request *request)
{
    return allreduce(sendbuf, recvbuf, count, type, op, comm, 0, MPI_INFO_NULL, request);
}

int mcoll_mpi_ibcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm, MPI_Request *request)
{
    return bcast(buf, count, type, root, comm, 0, MPI_INFO_NULL, request);
}

int mcoll_mpi_ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, int root,
                      MPI_Comm comm, MPI_Request *request)
{
    return reduce(sendbuf, recvbuf, count, type, op, root, comm, 0, MPI_INFO_NULL, request);
}

int mcoll_mpi_ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype type, MPI_Op op,
                                    MPI_Comm comm, MPI_Request *request)
{
    return reduce_scatter_block(sendbuf, recvbuf, recvcount, type, op, comm, 0, MPI_INFO_NULL, request);
}

int mcoll_mpi_ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype type,
                              MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    return reduce_scatter(sendbuf, recvbuf, recvcounts, type, op, comm, 0, MPI_INFO_NULL, request);
}

int mcoll_mpi_iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                         MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    return allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, 0, MPI_INFO_NULL, request);
}

int mcoll_mpi_ibarrier(MPI_Comm comm, MPI_Request *request)
{
    int err = mcoll_plugin_active ? barrier_checks(comm, request, "ibarrier") : MPI_SUCCESS;
    return err != MPI_SUCCESS ? err : mcoll_next_Ibarrier(comm, request);
}

int MPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                   MPI_Request *request)
{
    return mcoll_mpi_iallreduce(sendbuf, recvbuf, count, datatype, op, comm, request);
}

int MPI_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Request *request)
{
    return mcoll_mpi_ibcast(buffer, count, datatype, root, comm, request);
}

int MPI_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                MPI_Comm comm, MPI_Request *request)
{
    return mcoll_mpi_ireduce(sendbuf, recvbuf, count, datatype, op, root, comm, request);
}

int MPI_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op,
                              MPI_Comm comm, MPI_Request *request)
{
    return mcoll_mpi_ireduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm, request);
}

int MPI_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op,
                        MPI_Comm comm, MPI_Request *request)
{
    return mcoll_mpi_ireduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm, request);
}

int MPI_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                   MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    return mcoll_mpi_iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
}

int MPI_Ibarrier(MPI_Comm comm, MPI_Request *request) { return mcoll_mpi_ibarrier(comm, request); }

/* ---------------------------------------------------------------------------------------------
 * Persistent collectives, under the names the MPI declares: MPI_<Name>_init (MPI 4) or
 * MPIX_<Name>_init (Open MPI 4); neither when it has none (configure decides)
 * ------------------------------------------------------------------------------------------- */
#ifdef PMPI_INIT

int USER_INIT(Allreduce)(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                         MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return allreduce(sendbuf, recvbuf, count, datatype, op, comm, 1, info, request);
}

int USER_INIT(Bcast)(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Info info,
                     MPI_Request *request)
{
    return bcast(buffer, count, datatype, root, comm, 1, info, request);
}

int USER_INIT(Reduce)(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                      MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return reduce(sendbuf, recvbuf, count, datatype, op, root, comm, 1, info, request);
}

int USER_INIT(Reduce_scatter_block)(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype,
                                    MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm, 1, info, request);
}

int USER_INIT(Reduce_scatter)(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype,
                              MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm, 1, info, request);
}

int USER_INIT(Allgather)(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                         MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, 1, info, request);
}

int USER_INIT(Barrier)(MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    int err = mcoll_plugin_active ? barrier_checks(comm, request, "barrier_init") : MPI_SUCCESS;
    return err != MPI_SUCCESS ? err : PMPI_INIT(Barrier)(comm, info, request);
}
#endif
