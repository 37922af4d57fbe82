/* The nonblocking and persistent forms of the collectives with a block per peer: allgatherv,
 * alltoall, alltoallv, alltoallw, gather, gatherv, scatter and scatterv (the table entries of
 * request.h and the entry points). Prepared and decided like the blocking calls; gatherv,
 * scatterv and alltoallv never go to the engines here, whose choice for them the ranks agree on
 * in a blocking call only (decide.c). The counts and displacement arrays are the user's,
 * read until the call completes (and at every start of a persistent one), as MPI requires. */
#include "request.h"
#include "persistent_names.h"

static int iallgatherv(const mcoll_call *c, const void *sendbuf, void *recvbuf, MPI_Request *req)
{
    return mcoll_next_Iallgatherv(sendbuf, c->count, c->type, recvbuf, c->recvcounts, c->rdispls, c->recvtype, c->comm, req);
}

static int ialltoall(const mcoll_call *c, const void *sendbuf, void *recvbuf, MPI_Request *req)
{
    return mcoll_next_Ialltoall(sendbuf, c->count, c->type, recvbuf, c->recvcount, c->recvtype, c->comm, req);
}

static int ialltoallv(const mcoll_call *c, const void *sendbuf, void *recvbuf, MPI_Request *req)
{
    return mcoll_next_Ialltoallv(sendbuf, c->sendcounts, c->sdispls, c->type, recvbuf, c->recvcounts, c->rdispls,
                           c->recvtype, c->comm, req);
}

static int ialltoallw(const mcoll_call *c, const void *sendbuf, void *recvbuf, MPI_Request *req)
{
    return mcoll_next_Ialltoallw(sendbuf, c->sendcounts, c->sdispls, c->sendtypes, recvbuf, c->recvcounts, c->rdispls,
                           c->recvtypes, c->comm, req);
}

static int igather(const mcoll_call *c, const void *sendbuf, void *recvbuf, MPI_Request *req)
{
    return mcoll_next_Igather(sendbuf, c->count, c->type, recvbuf, c->recvcount, c->recvtype, c->root, c->comm, req);
}

static int igatherv(const mcoll_call *c, const void *sendbuf, void *recvbuf, MPI_Request *req)
{
    return mcoll_next_Igatherv(sendbuf, c->count, c->type, recvbuf, c->recvcounts, c->rdispls, c->recvtype, c->root,
                         c->comm, req);
}

static int iscatter(const mcoll_call *c, const void *sendbuf, void *recvbuf, MPI_Request *req)
{
    return mcoll_next_Iscatter(sendbuf, c->count, c->type, recvbuf, c->recvcount, c->recvtype, c->root, c->comm, req);
}

static int iscatterv(const mcoll_call *c, const void *sendbuf, void *recvbuf, MPI_Request *req)
{
    return mcoll_next_Iscatterv(sendbuf, c->sendcounts, c->sdispls, c->type, recvbuf, c->recvcount, c->recvtype, c->root,
                          c->comm, req);
}

#ifdef PMPI_INIT
static int allgatherv_init(const mcoll_call *c, MPI_Info info, MPI_Request *req)
{
    return PMPI_INIT(Allgatherv)(c->sendbuf, c->count, c->type, c->recvbuf, c->recvcounts, c->rdispls, c->recvtype,
                                 c->comm, info, req);
}

static int alltoall_init(const mcoll_call *c, MPI_Info info, MPI_Request *req)
{
    return PMPI_INIT(Alltoall)(c->sendbuf, c->count, c->type, c->recvbuf, c->recvcount, c->recvtype, c->comm, info,
                               req);
}

static int alltoallv_init(const mcoll_call *c, MPI_Info info, MPI_Request *req)
{
    return PMPI_INIT(Alltoallv)(c->sendbuf, c->sendcounts, c->sdispls, c->type, c->recvbuf, c->recvcounts,
                                c->rdispls, c->recvtype, c->comm, info, req);
}

static int alltoallw_init(const mcoll_call *c, MPI_Info info, MPI_Request *req)
{
    return PMPI_INIT(Alltoallw)(c->sendbuf, c->sendcounts, c->sdispls, c->sendtypes, c->recvbuf, c->recvcounts,
                                c->rdispls, c->recvtypes, c->comm, info, req);
}

static int gather_init(const mcoll_call *c, MPI_Info info, MPI_Request *req)
{
    return PMPI_INIT(Gather)(c->sendbuf, c->count, c->type, c->recvbuf, c->recvcount, c->recvtype, c->root, c->comm,
                             info, req);
}

static int gatherv_init(const mcoll_call *c, MPI_Info info, MPI_Request *req)
{
    return PMPI_INIT(Gatherv)(c->sendbuf, c->count, c->type, c->recvbuf, c->recvcounts, c->rdispls, c->recvtype,
                              c->root, c->comm, info, req);
}

static int scatter_init(const mcoll_call *c, MPI_Info info, MPI_Request *req)
{
    return PMPI_INIT(Scatter)(c->sendbuf, c->count, c->type, c->recvbuf, c->recvcount, c->recvtype, c->root, c->comm,
                              info, req);
}

static int scatterv_init(const mcoll_call *c, MPI_Info info, MPI_Request *req)
{
    return PMPI_INIT(Scatterv)(c->sendbuf, c->sendcounts, c->sdispls, c->type, c->recvbuf, c->recvcount,
                               c->recvtype, c->root, c->comm, info, req);
}
#endif

const mcoll_nb_coll mcoll_nb_allgatherv = {&mcoll_coll_allgatherv, "iallgatherv", iallgatherv, INIT(allgatherv_init), 0};
const mcoll_nb_coll mcoll_nb_alltoall = {&mcoll_coll_alltoall, "ialltoall", ialltoall, INIT(alltoall_init), 0};
const mcoll_nb_coll mcoll_nb_alltoallv = {&mcoll_coll_alltoallv, "ialltoallv", ialltoallv, INIT(alltoallv_init), 0};
const mcoll_nb_coll mcoll_nb_alltoallw = {&mcoll_coll_alltoallw, "ialltoallw", ialltoallw, INIT(alltoallw_init), 0};
const mcoll_nb_coll mcoll_nb_gather = {&mcoll_coll_gather, "igather", igather, INIT(gather_init), 0};
const mcoll_nb_coll mcoll_nb_gatherv = {&mcoll_coll_gatherv, "igatherv", igatherv, INIT(gatherv_init), 0};
const mcoll_nb_coll mcoll_nb_scatter = {&mcoll_coll_scatter, "iscatter", iscatter, INIT(scatter_init), 0};
const mcoll_nb_coll mcoll_nb_scatterv = {&mcoll_coll_scatterv, "iscatterv", iscatterv, INIT(scatterv_init), 0};

/* ---------------------------------------------------------------------------------------------
 * One builder per collective, for its nonblocking and persistent forms
 * ------------------------------------------------------------------------------------------- */
static int allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                      const int displs[], MPI_Datatype recvtype, MPI_Comm comm, int persistent, MPI_Info info,
                      MPI_Request *request)
{
    mcoll_call c = {.coll = &mcoll_coll_allgatherv, .sendbuf = sendbuf, .recvbuf = recvbuf, .count = sendcount,
                    .recvcounts = recvcounts, .rdispls = displs, .type = sendtype, .recvtype = recvtype,
                    .op = MPI_OP_NULL, .comm = comm};
    return mcoll_nb_call(&c, &mcoll_nb_allgatherv, persistent, info, request);
}

static int alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                    MPI_Datatype recvtype, MPI_Comm comm, int persistent, MPI_Info info, MPI_Request *request)
{
    mcoll_call c = {.coll = &mcoll_coll_alltoall, .sendbuf = sendbuf, .recvbuf = recvbuf, .count = sendcount,
                    .recvcount = recvcount, .type = sendtype, .recvtype = recvtype, .op = MPI_OP_NULL, .comm = comm};
    return mcoll_nb_call(&c, &mcoll_nb_alltoall, persistent, info, request);
}

static int alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                     void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                     int persistent, MPI_Info info, MPI_Request *request)
{
    mcoll_call c = {.coll = &mcoll_coll_alltoallv, .sendbuf = sendbuf, .recvbuf = recvbuf, .sendcounts = sendcounts,
                    .sdispls = sdispls, .recvcounts = recvcounts, .rdispls = rdispls, .type = sendtype,
                    .recvtype = recvtype, .op = MPI_OP_NULL, .comm = comm};
    return mcoll_nb_call(&c, &mcoll_nb_alltoallv, persistent, info, request);
}

static int alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[],
                     void *recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[],
                     MPI_Comm comm, int persistent, MPI_Info info, MPI_Request *request)
{
    mcoll_call c = {.coll = &mcoll_coll_alltoallw, .sendbuf = sendbuf, .recvbuf = recvbuf, .sendcounts = sendcounts,
                    .sdispls = sdispls, .recvcounts = recvcounts, .rdispls = rdispls, .sendtypes = sendtypes,
                    .recvtypes = recvtypes, .type = MPI_DATATYPE_NULL, .recvtype = MPI_DATATYPE_NULL,
                    .op = MPI_OP_NULL, .comm = comm};
    return mcoll_nb_call(&c, &mcoll_nb_alltoallw, persistent, info, request);
}

/* gather and scatter: the same arguments. */
static int rooted(const mcoll_nb_coll *nb, const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, int persistent, MPI_Info info,
                  MPI_Request *request)
{
    mcoll_call c = {.coll = nb->coll, .sendbuf = sendbuf, .recvbuf = recvbuf, .count = sendcount,
                    .recvcount = recvcount, .type = sendtype, .recvtype = recvtype, .op = MPI_OP_NULL, .root = root,
                    .comm = comm};
    return mcoll_nb_call(&c, nb, persistent, info, request);
}

static int gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                   const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm, int persistent, MPI_Info info,
                   MPI_Request *request)
{
    mcoll_call c = {.coll = &mcoll_coll_gatherv, .sendbuf = sendbuf, .recvbuf = recvbuf, .count = sendcount,
                    .recvcounts = recvcounts, .rdispls = displs, .type = sendtype, .recvtype = recvtype,
                    .op = MPI_OP_NULL, .root = root, .comm = comm};
    return mcoll_nb_call(&c, &mcoll_nb_gatherv, persistent, info, request);
}

static int scatterv(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                    void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, int persistent,
                    MPI_Info info, MPI_Request *request)
{
    mcoll_call c = {.coll = &mcoll_coll_scatterv, .sendbuf = sendbuf, .recvbuf = recvbuf, .sendcounts = sendcounts,
                    .sdispls = displs, .recvcount = recvcount, .type = sendtype, .recvtype = recvtype,
                    .op = MPI_OP_NULL, .root = root, .comm = comm};
    return mcoll_nb_call(&c, &mcoll_nb_scatterv, persistent, info, request);
}

/* ---------------------------------------------------------------------------------------------
 * Entry points
 * ------------------------------------------------------------------------------------------- */
int mcoll_mpi_iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                          const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                          MPI_Request *request)
{
    return allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, 0, MPI_INFO_NULL,
                      request);
}

int mcoll_mpi_ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                        MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    return alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, 0, MPI_INFO_NULL, request);
}

int mcoll_mpi_ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                         void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                         MPI_Comm comm, MPI_Request *request)
{
    return alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, 0,
                     MPI_INFO_NULL, request);
}

int mcoll_mpi_ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                         const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[],
                         const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request)
{
    return alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm, 0,
                     MPI_INFO_NULL, request);
}

int mcoll_mpi_igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                      MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
    return rooted(&mcoll_nb_gather, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, 0,
                  MPI_INFO_NULL, request);
}

int mcoll_mpi_igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                       const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm,
                       MPI_Request *request)
{
    return gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm, 0, MPI_INFO_NULL,
                   request);
}

int mcoll_mpi_iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                       MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
    return rooted(&mcoll_nb_scatter, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, 0,
                  MPI_INFO_NULL, request);
}

int mcoll_mpi_iscatterv(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                        void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                        MPI_Request *request)
{
    return scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm, 0,
                    MPI_INFO_NULL, request);
}

int MPI_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                    const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    return mcoll_mpi_iallgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, request);
}

int MPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    return mcoll_mpi_ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
}

int MPI_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                   void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                   MPI_Request *request)
{
    return mcoll_mpi_ialltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm,
                                request);
}

int MPI_Ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[],
                   void *recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[],
                   MPI_Comm comm, MPI_Request *request)
{
    return mcoll_mpi_ialltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes,
                                comm, request);
}

int MPI_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
    return mcoll_mpi_igather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request);
}

int MPI_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                 const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
    return mcoll_mpi_igatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm,
                              request);
}

int MPI_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                 MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
    return mcoll_mpi_iscatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request);
}

int MPI_Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                  void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
    return mcoll_mpi_iscatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm,
                               request);
}

#ifdef PMPI_INIT
int USER_INIT(Allgatherv)(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                          const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                          MPI_Info info, MPI_Request *request)
{
    return allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, 1, info, request);
}

int USER_INIT(Alltoall)(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                        MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, 1, info, request);
}

int USER_INIT(Alltoallv)(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                         void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                         MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, 1, info,
                     request);
}

int USER_INIT(Alltoallw)(const void *sendbuf, const int sendcounts[], const int sdispls[],
                         const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[],
                         const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm, 1, info,
                     request);
}

int USER_INIT(Gather)(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                      MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return rooted(&mcoll_nb_gather, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, 1, info,
                  request);
}

int USER_INIT(Gatherv)(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                       const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm,
                       MPI_Info info, MPI_Request *request)
{
    return gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm, 1, info, request);
}

int USER_INIT(Scatter)(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                       MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return rooted(&mcoll_nb_scatter, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, 1, info,
                  request);
}

int USER_INIT(Scatterv)(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                        void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                        MPI_Request *request)
{
    return scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm, 1, info,
                    request);
}
#endif
