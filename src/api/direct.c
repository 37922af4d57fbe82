/* Zero-copy collectives: when a call's buffers lie in windows (memory every rank maps, src/mem/),
 * the kernels work on the users' buffers directly instead of copying through the staging area.
 * The windows are the user's (mcoll_mem_alloc, mcoll_mem_register) or, for one call through
 * MPI, its buffers mapped for that call (src/mem/call_windows.h): the same code runs both.
 *
 * Every rank must take the same path. Each decides alone from what is alike everywhere under
 * the symmetric rule of mcoll.h (every rank's buffer in the same window at the same offset):
 * the team's engine, the window's usable size (the smallest rank's), the offset, the counts,
 * and the alignment of every rank's buffer, which this rank sees through its mappings of them.
 * A call that does not qualify on one rank qualifies on none, and takes the staged path. */
#include "checks.h"
#include "comm_internal.h"
#include "direct.h"

/* Zero-copy runs on peer loads and stores; a multicast team keeps its staged path. */
int mcoll_direct_team(const mcoll_comm *comm) { return comm->team->engine == MCOLL_ENGINE_UNICAST; }

static int possible(const mcoll_comm *comm) { return comm->windows.head && mcoll_direct_team(comm); }

/* The launch's result; a call launched zero-copy is counted (mcoll_comm_info). */
static int taken(mcoll_comm *comm, int status, const char *what, mcoll_result *rc)
{
    *rc = mcoll_comm_launched(status, what);
    if (*rc == MCOLL_SUCCESS) comm->zero_copy_calls++;
    return 1;
}

size_t mcoll_direct_round16(size_t n) { return (n + 15) & ~(size_t)15; }

/* The team with peer_data[q] = rank q's buffer at ptr's offset in its window, when
 * [ptr, ptr + reach) lies in one (and with aligned16, every rank's buffer is 16-byte aligned):
 * that window, else NULL. */
static const mcoll_window *window_view(const mcoll_comm *comm, const void *ptr, size_t reach, int aligned16, mcoll_dev_team *view)
{
    const mcoll_team *t = comm->team;
    const mcoll_window *w = mcoll_window_find(&comm->windows, ptr, reach);
    size_t off;
    int q;
    if (!w) return NULL;
    off = (size_t)((const char *)ptr - w->base);
    *view = *mcoll_comm_dev(comm); /* armed for the launch, where it is */
    for (q = 0; q < t->size; q++) {
        view->peer_data[q] = w->peer[q] + off;
        if (aligned16 && ((uintptr_t)view->peer_data[q] & 15)) return NULL;
    }
    return w;
}

int mcoll_direct_allreduce(mcoll_comm *comm, const void *sendbuf, void *recvbuf, size_t count, mcoll_dtype dtype,
                           mcoll_op op, struct CUstream_st *stream, mcoll_result *rc)
{
    mcoll_dev_team send, recv;
    const size_t bytes = mcoll_dtype_span(dtype, count);
    if (!possible(comm) || !window_view(comm, sendbuf, mcoll_direct_round16(bytes), 1, &send) ||
        !window_view(comm, recvbuf, bytes, 0, &recv))
        return 0;
    return taken(comm, mcoll_launch_allreduce_direct(&send, &recv, count, dtype, op, stream), "zero-copy allreduce",
                 rc);
}

int mcoll_direct_reduce(mcoll_comm *comm, const void *sendbuf, void *recvbuf, size_t count, mcoll_dtype dtype,
                        mcoll_op op, int root, struct CUstream_st *stream, mcoll_result *rc)
{
    mcoll_dev_team send, recv;
    const mcoll_team *t = comm->team;
    const size_t bytes = mcoll_dtype_span(dtype, count);
    /* The input (an in-place root's is its recvbuf) decides, at any alignment: it lies in one
     * window on every rank, so this test reads alike everywhere without recvbuf, which MPI lets
     * the others leave NULL. Root tells the others in the kernel whether it is in place and
     * where its recvbuf lies in that window (outside it, root reduces everything itself). */
    const mcoll_window *w = possible(comm) && t->size > 1 ? window_view(comm, sendbuf, bytes, 0, &send) : NULL;
    /* A call through MPI may map root's recvbuf for itself: every rank knows that window. */
    const mcoll_window *rw = mcoll_window_by_id(&comm->windows, MCOLL_WINDOW_CALL_ROOT, 0);
    size_t at = (size_t)-1;
    if (!w) return 0;
    if (!rw) rw = w;
    recv = *mcoll_comm_dev(comm);
    recv.peer_data[root] = rw->peer[root];
    if (t->rank == root) {
        recv.peer_data[root] = recvbuf;
        if (mcoll_window_find(&comm->windows, recvbuf, bytes) == rw) at = (size_t)((const char *)recvbuf - rw->base);
    }
    return taken(comm,
                 mcoll_launch_reduce_direct(&send, &recv, count, dtype, op, root, sendbuf == recvbuf, at, stream),
                 "zero-copy reduce", rc);
}

int mcoll_direct_apart(const void *sendbuf, size_t total, const void *recvbuf, size_t block)
{
    const char *s = sendbuf, *r = recvbuf;
    return r + block <= s || r >= s + total;
}

size_t mcoll_direct_reduce_scatter_total(size_t recvcount, mcoll_dtype dtype, int size)
{
    const size_t block = recvcount * mcoll_dtype_size(dtype);
    return block * (size_t)size - (block - mcoll_dtype_span(dtype, recvcount));
}

int mcoll_direct_reduce_scatter(mcoll_comm *comm, const void *sendbuf, void *recvbuf, size_t recvcount,
                                mcoll_dtype dtype, mcoll_op op, struct CUstream_st *stream, mcoll_result *rc)
{
    mcoll_dev_team send, recv;
    const size_t block = recvcount * mcoll_dtype_size(dtype);
    const size_t total = mcoll_direct_reduce_scatter_total(recvcount, dtype, comm->team->size);
    /* Block r of the peers is loaded in 16-byte packs from r * block. */
    if (!possible(comm) || block % 16 || !window_view(comm, sendbuf, mcoll_direct_round16(total), 1, &send) ||
        !mcoll_direct_apart(sendbuf, total, recvbuf, block))
        return 0;
    recv = *mcoll_comm_dev(comm);
    recv.peer_data[comm->team->rank] = recvbuf;
    return taken(comm, mcoll_launch_reduce_scatter_direct(&send, &recv, recvcount, dtype, op, stream),
                 "zero-copy reduce_scatter", rc);
}

int mcoll_direct_bcast(mcoll_comm *comm, void *buf, size_t bytes, int root, struct CUstream_st *stream,
                       mcoll_result *rc)
{
    mcoll_dev_team view;
    if (!possible(comm) || !window_view(comm, buf, bytes, 0, &view)) return 0;
    return taken(comm, mcoll_launch_bcast_direct(&view, bytes, root, stream), "zero-copy bcast", rc);
}

int mcoll_direct_allgather(mcoll_comm *comm, const void *sendbuf, void *recvbuf, size_t sendbytes,
                           struct CUstream_st *stream, mcoll_result *rc)
{
    mcoll_dev_team view;
    if (!possible(comm) || !window_view(comm, recvbuf, sendbytes * (size_t)comm->team->size, 0, &view)) return 0;
    return taken(comm, mcoll_launch_allgather_direct(&view, sendbuf, sendbytes, stream), "zero-copy allgather", rc);
}
