/* The native, stream-ordered API as a coll_api; see api.h. */
#include <stdio.h>
#include "api.h"
#include "devbuf.h"
#include "report.h"

const char *coll_name(coll_kind kind)
{
    switch (kind) {
    case COLL_ALLREDUCE: return "allreduce";
    case COLL_REDUCE: return "reduce";
    case COLL_BCAST: return "bcast";
    case COLL_REDUCE_SCATTER: return "reduce_scatter";
    case COLL_ALLGATHER: return "allgather";
    case COLL_ALLGATHERV: return "allgatherv";
    case COLL_ALLTOALL: return "alltoall";
    case COLL_ALLTOALLV: return "alltoallv";
    case COLL_GATHER: return "gather";
    case COLL_GATHERV: return "gatherv";
    case COLL_SCATTER: return "scatter";
    case COLL_SCATTERV: return "scatterv";
    case COLL_SCAN: return "scan";
    case COLL_EXSCAN: return "exscan";
    }
    return "?";
}

int api_run(coll_api *api, const coll_call *call)
{
    if (api->issue(api, call)) return -1;
    return api->wait(api);
}

mcoll_result native_enqueue(mcoll_comm *mc, cudaStream_t stream, const coll_call *call)
{
    MPI_Datatype type = type_mpi(call->type);
    switch (call->kind) {
    case COLL_ALLREDUCE:
        return mcoll_allreduce(call->sendbuf, call->recvbuf, call->count, type, op_mpi(call->op), mc, stream);
    case COLL_REDUCE:
        return mcoll_reduce(call->sendbuf, call->recvbuf, call->count, type, op_mpi(call->op), call->root, mc, stream);
    case COLL_BCAST:
        return mcoll_bcast(call->recvbuf, call->count, type, call->root, mc, stream);
    case COLL_REDUCE_SCATTER:
        return mcoll_reduce_scatter(call->sendbuf, call->recvbuf, call->count, type, op_mpi(call->op), mc, stream);
    case COLL_ALLGATHER:
        return mcoll_allgather(call->sendbuf, call->recvbuf, call->count, type, mc, stream);
    case COLL_ALLGATHERV:
        return mcoll_allgatherv(call->sendbuf, call->count, call->recvbuf, call->recvcounts, call->rdispls, type, mc,
                                stream);
    case COLL_ALLTOALL:
        return mcoll_alltoall(call->sendbuf, call->recvbuf, call->count, type, mc, stream);
    case COLL_ALLTOALLV:
        return mcoll_alltoallv(call->sendbuf, call->sendcounts, call->sdispls, call->recvbuf, call->recvcounts,
                               call->rdispls, type, mc, stream);
    case COLL_GATHER:
        return mcoll_gather(call->sendbuf, call->recvbuf, call->count, type, call->root, mc, stream);
    case COLL_GATHERV:
        return mcoll_gatherv(call->sendbuf, call->count, call->recvbuf, call->recvcounts, call->rdispls, type,
                             call->root, mc, stream);
    case COLL_SCATTER:
        return mcoll_scatter(call->sendbuf, call->recvbuf, call->count, type, call->root, mc, stream);
    case COLL_SCATTERV:
        return mcoll_scatterv(call->sendbuf, call->sendcounts, call->sdispls, call->recvbuf, call->count, type,
                              call->root, mc, stream);
    case COLL_SCAN:
        return mcoll_scan(call->sendbuf, call->recvbuf, call->count, type, op_mpi(call->op), mc, stream);
    case COLL_EXSCAN:
        return mcoll_exscan(call->sendbuf, call->recvbuf, call->count, type, op_mpi(call->op), mc, stream);
    }
    return MCOLL_ERR_INVALID_ARG;
}

void native_describe(mcoll_result rc, char *buf, size_t len)
{
    const char *warning = mcoll_last_warning();
    if (warning && *warning) snprintf(buf, len, "%s (last warning: %s)", mcoll_strerror(rc), warning);
    else snprintf(buf, len, "%s", mcoll_strerror(rc));
}

static int native_issue(coll_api *api, const coll_call *call)
{
    char text[200];
    mcoll_result rc = native_enqueue(api->mc, api->stream, call);
    if (rc == MCOLL_SUCCESS) return cuda_check(cudaGetLastError(), "cudaGetLastError after the call");
    native_describe(rc, text, sizeof text);
    case_fail("mcoll_%s returned %d: %s", coll_name(call->kind), (int)rc, text);
    return -1;
}

static int native_wait(coll_api *api)
{
    return cuda_check(cudaStreamSynchronize(api->stream), "cudaStreamSynchronize after the collective");
}

/* Capture the call into a graph of its own, launch it once, wait, and free the graph: the
 * graph's resources must come and go with it. */
static int graph_issue(coll_api *api, const coll_call *call)
{
    cudaGraph_t graph = NULL;
    cudaGraphExec_t exec = NULL;
    mcoll_result rc;
    char text[200];
    int ok;

    if (cuda_check(cudaStreamBeginCapture(api->stream, cudaStreamCaptureModeGlobal), "cudaStreamBeginCapture")) return -1;
    rc = native_enqueue(api->mc, api->stream, call);
    /* End the capture whatever happened, or the stream stays unusable. */
    ok = !cuda_check(cudaStreamEndCapture(api->stream, &graph), "cudaStreamEndCapture");
    if (rc != MCOLL_SUCCESS) {
        native_describe(rc, text, sizeof text);
        case_fail("mcoll_%s returned %d during capture: %s", coll_name(call->kind), (int)rc, text);
        ok = 0;
    }
    ok = ok && !cuda_check(cudaGraphInstantiate(&exec, graph, 0), "cudaGraphInstantiate") &&
         !cuda_check(cudaGraphLaunch(exec, api->stream), "cudaGraphLaunch") &&
         !cuda_check(cudaStreamSynchronize(api->stream), "cudaStreamSynchronize after the graph");
    if (exec) cudaGraphExecDestroy(exec);
    if (graph) cudaGraphDestroy(graph);
    return ok ? 0 : -1;
}

void api_graph(coll_api *api, const char *name, MPI_Comm comm, mcoll_comm *mc, cudaStream_t stream)
{
    api_native(api, name, comm, mc, stream);
    api->issue = graph_issue;
}

void api_native(coll_api *api, const char *name, MPI_Comm comm, mcoll_comm *mc, cudaStream_t stream)
{
    api->name = name;
    api->comm = comm;
    MPI_Comm_rank(comm, &api->rank);
    MPI_Comm_size(comm, &api->size);
    api->mc = mc;
    api->stream = stream;
    api->issue = native_issue;
    api->wait = native_wait;
}
