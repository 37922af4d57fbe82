/* The nonblocking and persistent forms of MPI_Scan and MPI_Exscan (the table entries of
 * request.h and the entry points). Prepared and decided like the blocking calls; on the engines
 * or staged whole (a nonblocking call is never cut into chunks). */
#include "request.h"
#include "persistent_names.h"

static int iscan(const mcoll_call *c, const void *sendbuf, void *recvbuf, MPI_Request *req)
{
    return mcoll_next_Iscan(sendbuf, recvbuf, c->count, c->type, c->mpi_op, c->comm, req);
}

static int iexscan(const mcoll_call *c, const void *sendbuf, void *recvbuf, MPI_Request *req)
{
    return mcoll_next_Iexscan(sendbuf, recvbuf, c->count, c->type, c->mpi_op, c->comm, req);
}

#ifdef PMPI_INIT
static int scan_init(const mcoll_call *c, MPI_Info info, MPI_Request *req)
{
    return PMPI_INIT(Scan)(c->sendbuf, c->recvbuf, c->count, c->type, c->mpi_op, c->comm, info, req);
}

static int exscan_init(const mcoll_call *c, MPI_Info info, MPI_Request *req)
{
    return PMPI_INIT(Exscan)(c->sendbuf, c->recvbuf, c->count, c->type, c->mpi_op, c->comm, info, req);
}
#endif

const mcoll_nb_coll mcoll_nb_scan = {&mcoll_coll_scan, "iscan", iscan, INIT(scan_init), 0};
const mcoll_nb_coll mcoll_nb_exscan = {&mcoll_coll_exscan, "iexscan", iexscan, INIT(exscan_init), 0};

static int prefix(const mcoll_nb_coll *nb, const void *sendbuf, void *recvbuf, int count, MPI_Datatype type,
                  MPI_Op op, MPI_Comm comm, int persistent, MPI_Info info, MPI_Request *request)
{
    mcoll_call c = {.coll = nb->coll, .sendbuf = sendbuf, .recvbuf = recvbuf, .count = count, .type = type,
                    .recvtype = type, .op = op, .comm = comm};
    return mcoll_nb_call(&c, nb, persistent, info, request);
}

int mcoll_mpi_iscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                    MPI_Request *request)
{
    return prefix(&mcoll_nb_scan, sendbuf, recvbuf, count, type, op, comm, 0, MPI_INFO_NULL, request);
}

int mcoll_mpi_iexscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                      MPI_Request *request)
{
    return prefix(&mcoll_nb_exscan, sendbuf, recvbuf, count, type, op, comm, 0, MPI_INFO_NULL, request);
}

int MPI_Iscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
              MPI_Request *request)
{
    return mcoll_mpi_iscan(sendbuf, recvbuf, count, datatype, op, comm, request);
}

int MPI_Iexscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                MPI_Request *request)
{
    return mcoll_mpi_iexscan(sendbuf, recvbuf, count, datatype, op, comm, request);
}

#ifdef PMPI_INIT
int USER_INIT(Scan)(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                    MPI_Info info, MPI_Request *request)
{
    return prefix(&mcoll_nb_scan, sendbuf, recvbuf, count, datatype, op, comm, 1, info, request);
}

int USER_INIT(Exscan)(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                      MPI_Info info, MPI_Request *request)
{
    return prefix(&mcoll_nb_exscan, sendbuf, recvbuf, count, datatype, op, comm, 1, info, request);
}
#endif
