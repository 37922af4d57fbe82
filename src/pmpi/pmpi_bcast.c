/* MPI_Bcast. The buffer is the call's recv role: read at the root, written elsewhere. */
#include "pmpi.h"
#include "validate.h"
#include "engine.h"

/* 1: this rank sends, 0: it receives, -1: it takes no part (intercommunicator MPI_PROC_NULL). */
static int role_of(const mcoll_call *c)
{
    if (c->cs->is_inter) return c->root == MPI_ROOT ? 1 : c->root == MPI_PROC_NULL ? -1 : 0;
    return c->root == c->cs->rank;
}

static int validate(const mcoll_call *c)
{
    int err = mcoll_check_type(c->type, c->info, c->count);
    if (err == MPI_SUCCESS) err = mcoll_check_root(c->cs, c->root);
    if (err == MPI_SUCCESS && role_of(c) >= 0) err = mcoll_check_buffer(c->recvbuf, c->count, c->type, c->info);
    return err;
}

static void layout(mcoll_call *c)
{
    int role = role_of(c);
    if (role >= 0) mcoll_buf_set(&c->recv, c->recvbuf, c->type, c->count, role == 1, role == 0);
    else mcoll_buf_ignore(&c->recv, c->recvbuf);
}

static mcoll_result engine(const mcoll_call *c, const mcoll_decision *d)
{
    return mcoll_engine_bcast(c->cs, d, c->recvbuf, c->root);
}

static int mpi(const mcoll_call *c, const void *sendbuf, void *buf, int count)
{
    (void)sendbuf;
    return mcoll_next_Bcast(buf, count, c->type, c->root, c->comm);
}

const mcoll_coll mcoll_coll_bcast = {"bcast", 1, validate, layout, mcoll_block_is_count, engine, mpi, 0,
                                     MCOLL_ZERO_COPY_MESSAGE};

int mcoll_mpi_bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    mcoll_call c = {.coll = &mcoll_coll_bcast, .sendbuf = buf, .recvbuf = buf, .count = count, .type = type,
                    .recvtype = type, .op = MPI_OP_NULL, .root = root, .comm = comm};
    return mcoll_pmpi_run(&c);
}

int MPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    return mcoll_mpi_bcast(buffer, count, datatype, root, comm);
}
