/* One collective case; see prep.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "blocks.h"
#include "prep.h"
#include "reference.h"
#include "report.h"

void case_name(const char *api, const coll_case *c, char *buf, size_t len)
{
    int has_op = c->kind != COLL_BCAST && c->kind != COLL_ALLGATHER && !blocks_kind(c->kind);
    int has_root = c->kind == COLL_REDUCE || c->kind == COLL_BCAST || c->kind == COLL_GATHER ||
                   c->kind == COLL_GATHERV || c->kind == COLL_SCATTER || c->kind == COLL_SCATTERV;
    char root[24] = "";
    if (has_root) snprintf(root, sizeof root, "/root=%d", c->root);
    snprintf(buf, len, "%s/%s/%s%s%s/n=%zu%s%s%s%s%s", api, coll_name(c->kind), c->type->name, has_op ? "/" : "",
             has_op ? c->op->name : "", c->count, root,
             c->kind == COLL_BCAST ? "" : c->in_place ? "/ip" : "/oop", c->misalign ? "/unaligned" : "",
             c->mem == MEM_HOST ? "/host" : "", c->null_recv ? "/nullrecv" : "");
}

static int is_scatter_kind(coll_kind kind) { return kind == COLL_SCATTER || kind == COLL_SCATTERV; }

/* Block collectives: this rank's blocks, and where its input and output live. */
static void layout_blocks(coll_prep *p)
{
    const coll_case *c = &p->c;
    size_t send_extent, recv_extent, unused[PREP_MAX_RANKS];
    int root = p->rank == c->root, me = p->rank;

    send_extent = block_side(c, p->size, me, 0, p->counts[0], p->displs[0]);
    recv_extent = block_side(c, p->size, me, 1, p->counts[1], p->displs[1]);
    p->in_at = 0;
    p->has_recv = 1;
    p->input_in_recv = 0;
    switch (c->kind) {
    case COLL_ALLGATHERV:
        p->in_elems = p->counts[0][me];
        p->recv_elems = recv_extent;
        p->input_in_recv = c->in_place;
        p->in_at = p->displs[1][me];
        break;
    case COLL_ALLTOALL:
    case COLL_ALLTOALLV: /* in place: the send blocks are the receive blocks (symmetric counts) */
        p->in_elems = send_extent;
        p->recv_elems = recv_extent;
        p->input_in_recv = c->in_place;
        break;
    case COLL_GATHER:
    case COLL_GATHERV:
        p->in_elems = p->counts[0][c->root];
        /* Every rank's receive buffer is the size of root's; off the root it must stay as it is. */
        p->recv_elems = root ? recv_extent : block_side(c, p->size, c->root, 1, unused, unused);
        p->has_recv = root || !c->null_recv;
        p->input_in_recv = c->in_place && root;
        p->in_at = p->displs[1][me];
        break;
    case COLL_SCATTER:
    case COLL_SCATTERV:
        p->in_elems = root ? send_extent : 0;
        p->recv_elems = recv_extent;
        p->has_recv = !(c->in_place && root); /* root passes MPI_IN_PLACE */
        break;
    default:
        break;
    }
    p->has_send = !p->input_in_recv && !(is_scatter_kind(c->kind) && !root);
}

/* Where this rank's input and output live for the collective. */
static void layout(coll_prep *p)
{
    const coll_case *c = &p->c;
    size_t n = (size_t)p->size, count = c->count;
    int root = p->rank == c->root;

    if (blocks_kind(c->kind)) {
        layout_blocks(p);
        return;
    }
    p->in_elems = count;
    p->recv_elems = count;
    p->in_at = 0;
    p->has_recv = 1;
    switch (c->kind) {
    case COLL_ALLREDUCE:
    case COLL_SCAN:
    case COLL_EXSCAN:
        p->input_in_recv = c->in_place;
        break;
    case COLL_REDUCE:
        p->input_in_recv = c->in_place && root;
        p->has_recv = root || !c->null_recv;
        break;
    case COLL_BCAST:
        p->input_in_recv = root;
        break;
    case COLL_REDUCE_SCATTER:
        p->in_elems = n * count;
        p->recv_elems = c->in_place ? n * count : count;
        p->input_in_recv = c->in_place;
        break;
    case COLL_ALLGATHER:
        p->recv_elems = n * count;
        p->input_in_recv = c->in_place;
        p->in_at = c->in_place ? (size_t)p->rank * count : 0;
        break;
    default:
        break;
    }
    p->has_send = c->kind != COLL_BCAST && !p->input_in_recv;
}

int prep_alloc(coll_prep *p, const coll_case *c, int rank, int size)
{
    size_t el = c->type->size, offset = c->misalign ? el : 0, host_bytes;
    memset(p, 0, sizeof *p);
    p->c = *c;
    p->rank = rank;
    p->size = size;
    if (blocks_kind(c->kind) && size > PREP_MAX_RANKS) {
        case_fail("%d ranks: block cases lay out at most %d", size, PREP_MAX_RANKS);
        return -1;
    }
    layout(p);
    host_bytes = (p->in_elems > p->recv_elems ? p->in_elems : p->recv_elems) * el + 1;
    p->host_in = malloc(p->in_elems * el + 1);
    p->host_out = malloc(host_bytes);
    if (!p->host_in || !p->host_out) {
        case_fail("out of host memory (%zu bytes)", host_bytes);
        return -1;
    }
    if (p->has_send && devbuf_alloc(&p->send, c->mem, p->in_elems * el, offset)) return -1;
    if (p->has_recv && devbuf_alloc(&p->recv, c->mem, p->recv_elems * el, offset)) return -1;
    return 0;
}

int prep_load(coll_prep *p, uint64_t seed)
{
    const coll_case *c = &p->c;
    size_t el = c->type->size;
    int data_only = c->kind == COLL_BCAST || c->kind == COLL_ALLGATHER || blocks_kind(c->kind);

    gen_init(&p->gen, c->type, data_only ? NULL : c->op, p->size, seed);
    p->gen.linear = c->linear;
    if (c->kind != COLL_BCAST || p->rank == c->root) gen_fill(&p->gen, p->rank, 0, p->in_elems, p->host_in);
    if (p->has_send && devbuf_put(&p->send, 0, p->host_in, p->in_elems * el)) return -1;
    if (p->has_recv && devbuf_poison(&p->recv, 0, p->recv_elems * el)) return -1;
    if (p->input_in_recv && devbuf_put(&p->recv, p->in_at * el, p->host_in, p->in_elems * el)) return -1;
    return 0;
}

void prep_call(const coll_prep *p, coll_call *call)
{
    call->kind = p->c.kind;
    call->type = p->c.type;
    call->op = p->c.op;
    call->count = p->c.count;
    call->root = p->c.root;
    const coll_kind kind = p->c.kind;
    const int root = p->rank == p->c.root, me = p->rank;
    call->sendbuf = p->has_send ? p->send.data : kind == COLL_BCAST || (is_scatter_kind(kind) && !root) ? NULL : MPI_IN_PLACE;
    call->recvbuf = p->has_recv ? p->recv.data : is_scatter_kind(kind) && root && p->c.in_place ? MPI_IN_PLACE : NULL;
    call->sendcounts = call->sdispls = call->recvcounts = call->rdispls = NULL;
    /* What MPI reads on the root only is NULL elsewhere; the send side of an in-place alltoallv
     * is ignored, so NULL too. */
    switch (kind) {
    case COLL_ALLGATHERV:
        call->count = p->counts[0][me];
        call->recvcounts = p->counts[1];
        call->rdispls = p->displs[1];
        break;
    case COLL_ALLTOALLV:
        if (!p->c.in_place) {
            call->sendcounts = p->counts[0];
            call->sdispls = p->displs[0];
        }
        call->recvcounts = p->counts[1];
        call->rdispls = p->displs[1];
        break;
    case COLL_GATHERV:
        call->count = p->counts[0][p->c.root];
        if (root) {
            call->recvcounts = p->counts[1];
            call->rdispls = p->displs[1];
        }
        break;
    case COLL_SCATTERV:
        call->count = p->counts[1][p->c.root];
        if (root) {
            call->sendcounts = p->counts[0];
            call->sdispls = p->displs[0];
        }
        break;
    default:
        break;
    }
}

/* Pairs such as MPI_DOUBLE_INT end in padding that is not part of the datatype's span: after
 * the last element of the result (the end of what MPI lets a buffer hold) it must be untouched,
 * still the input's or the poison. */
static size_t check_tail(const coll_prep *p, char *why, size_t len)
{
    const test_type *t = p->c.type;
    size_t end = p->c.count * t->size, tail = t->size - type_data_end(t), used;
    if (!tail || !p->c.count) return 0;
    used = (size_t)snprintf(why, len, "padding after the last element: ");
    return ref_check_fill(p->host_out + end - tail, p->input_in_recv ? TYPE_PAD_BYTE : DEVBUF_POISON, tail, why + used,
                          len - used);
}

/* A prefix of one operand (scan on rank 0, exscan on rank 1) is rank 0's input, which MPIs pass
 * through as it is (Open MPI copies it) where the engines normalize a logical op's result to 0
 * or 1: with a logical op, either is right. 1 when this rank (`rank`) holds rank 0's input. */
static int one_operand_as_is(const coll_prep *p, int rank)
{
    const test_op *op = p->c.op;
    char why[8];
    if (p->rank != rank || !op || (op->id != OP_LAND && op->id != OP_LOR && op->id != OP_LXOR)) return 0;
    return ref_check_data(&p->gen, 0, p->host_out, 0, p->c.count, why, sizeof why) == 0 &&
           check_tail(p, why, sizeof why) == 0;
}

/* The outputs this rank must hold, checked against the reference. */
static size_t check_outputs(coll_prep *p, char *why, size_t len)
{
    const coll_case *c = &p->c;
    size_t el = c->type->size, count = c->count, bad = 0, used;
    int q;

    switch (c->kind) {
    case COLL_ALLREDUCE:
        return ref_check_reduced(&p->gen, p->host_out, 0, count, why, len) || check_tail(p, why, len);
    case COLL_REDUCE:
        if (p->rank == c->root) return ref_check_reduced(&p->gen, p->host_out, 0, count, why, len) || check_tail(p, why, len);
        if (!p->has_recv) return 0;
        used = (size_t)snprintf(why, len, "recvbuf of a non-root rank was written: ");
        return ref_check_fill(p->host_out, DEVBUF_POISON, p->recv_elems * el, why + used, len - used);
    case COLL_BCAST:
        return ref_check_data(&p->gen, c->root, p->host_out, 0, count, why, len);
    case COLL_REDUCE_SCATTER:
        return ref_check_reduced(&p->gen, p->host_out, (size_t)p->rank * count, count, why, len) || check_tail(p, why, len);
    case COLL_ALLGATHER:
        for (q = 0; q < p->size && !bad; q++) {
            used = (size_t)snprintf(why, len, "block of rank %d: ", q);
            bad = ref_check_data(&p->gen, q, p->host_out + (size_t)q * count * el, 0, count, why + used, len - used);
        }
        return bad;
    case COLL_SCAN:
        if (one_operand_as_is(p, 0)) return 0;
        return ref_check_prefix(&p->gen, p->rank + 1, p->host_out, 0, count, why, len) || check_tail(p, why, len);
    case COLL_EXSCAN:
        if (p->rank == 1 && one_operand_as_is(p, 1)) return 0;
        if (p->rank > 0)
            return ref_check_prefix(&p->gen, p->rank, p->host_out, 0, count, why, len) || check_tail(p, why, len);
        if (p->exscan_rank0_undefined) return 0;
        used = (size_t)snprintf(why, len, "recvbuf of rank 0 was written: ");
        if (p->input_in_recv) return ref_check_bytes(p->host_out, p->host_in, count * el, why + used, len - used);
        return ref_check_fill(p->host_out, DEVBUF_POISON, count * el, why + used, len - used);
    default:
        return blocks_check(p, p->host_out, why, len);
    }
}

int prep_check(coll_prep *p, const char *label)
{
    size_t el = p->c.type->size;
    char why[200] = "";
    int failed = 0;

    if (p->has_recv) {
        if (devbuf_get(&p->recv, 0, p->host_out, p->recv_elems * el)) return -1;
        if (check_outputs(p, why, sizeof why)) {
            case_fail("%s%s", label, why);
            failed = 1;
        }
    }
    if (p->has_send) {
        if (devbuf_get(&p->send, 0, p->host_out, p->in_elems * el)) return -1;
        if (ref_check_bytes(p->host_out, p->host_in, p->in_elems * el, why, sizeof why)) {
            case_fail("%ssendbuf changed: %s", label, why);
            failed = 1;
        }
    }
    snprintf(why, sizeof why, "%ssendbuf", label);
    if (devbuf_check_guards(&p->send, why)) failed = 1;
    snprintf(why, sizeof why, "%srecvbuf", label);
    if (devbuf_check_guards(&p->recv, why)) failed = 1;
    return failed ? -1 : 0;
}

void prep_free(coll_prep *p)
{
    devbuf_free(&p->send);
    devbuf_free(&p->recv);
    free(p->host_in);
    free(p->host_out);
    p->host_in = p->host_out = NULL;
}

void case_run(coll_api *api, const coll_case *c)
{
    char name[192];
    coll_prep p;
    coll_call call = {0};
    int ready;

    case_name(api->name, c, name, sizeof name);
    if (!case_begin("%s", name)) return;
    ready = prep_alloc(&p, c, api->rank, api->size) == 0 && prep_load(&p, case_seed()) == 0;
    if (case_agree(ready)) {
        prep_call(&p, &call);
        if (api_run(api, &call) == 0) prep_check(&p, "");
    }
    prep_free(&p);
    case_end();
}
