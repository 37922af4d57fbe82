/* A root's own buffer in host memory on the engines (blocking calls): reduce's and gather's
 * receive buffer, scatter's send buffer. Only the root has it, so its kind must not change
 * whether the engines are asked (the other ranks are in them already): the root runs the
 * kernel on device scratch memory, copied in first where the buffer is read, and back after
 * where it is written. The nonblocking calls do the same in operation.c. */
#include "engine.h"
#include "stage.h"

mcoll_buf *mcoll_engine_host_role(mcoll_call *e)
{
    if (e->recv.local_only && (e->recv.in || e->recv.out) && e->recv.mem == MCOLL_MEM_HOST) return &e->recv;
    if (e->send.local_only && e->send.in && e->send.mem == MCOLL_MEM_HOST) return &e->send;
    return NULL;
}

mcoll_result mcoll_engine_root(const mcoll_call *c, const mcoll_decision *d, mcoll_engine_fn run)
{
    mcoll_call e = *c;
    mcoll_buf *b = mcoll_engine_host_role(&e), *other;
    mcoll_stage *st;
    char *scratch, *base = NULL;
    MPI_Aint lo = 0, out_lo = 0;
    size_t bytes = 0, out_bytes = 0;
    mcoll_result rc = MCOLL_SUCCESS;

    if (!b) return run(c, d);
    other = b == &e.recv ? &e.send : &e.recv;
    mcoll_buf_span(b, b->first, b->count, &lo, &bytes);
    st = mcoll_stage_begin(other->device);
    scratch = st ? (char *)mcoll_stage_device(st, bytes ? bytes : 1) : NULL;
    if (!scratch) rc = MCOLL_ERR_NO_MEMORY;
    else base = scratch - lo; /* the span at the offsets it has in the user's buffer */
    if (rc == MCOLL_SUCCESS && b->in && bytes) rc = mcoll_stage_to_device(st, scratch, b->user + lo, bytes);
    if (rc == MCOLL_SUCCESS && b->in) rc = mcoll_stage_sync(st);
    if (rc == MCOLL_SUCCESS) {
        b->user = base;
        b->mem = MCOLL_MEM_DEVICE;
        if (b == &e.recv) e.recvbuf = base;
        else e.sendbuf = base;
        rc = run(&e, d);
    }
    if (rc == MCOLL_SUCCESS && b->out) { /* only a receive buffer is written */
        mcoll_buf_span(b, b->out_first, b->out_count, &out_lo, &out_bytes);
        if (out_bytes) rc = mcoll_stage_to_host(st, c->recv.user + out_lo, base + out_lo, out_bytes);
        if (rc == MCOLL_SUCCESS) rc = mcoll_stage_sync(st);
    }
    mcoll_stage_end(st);
    return rc;
}
