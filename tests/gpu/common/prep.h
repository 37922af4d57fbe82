/* One collective case: its buffers, inputs, the call, and the checks of its outputs.
 *
 * Checks after each call: every output element against the host reference (poisoned elements
 * never pass), the send buffer unchanged, the guards around every buffer untouched, and at
 * non-root ranks of reduce and gather(v), and rank 0 of exscan, a receive buffer left exactly
 * as it was. Block collectives: blocks.h. */
#ifndef GPU_PREP_H
#define GPU_PREP_H

#include <stddef.h>
#include "api.h"
#include "devbuf.h"
#include "gen.h"

typedef struct {
    coll_kind kind;
    const test_type *type;
    const test_op *op;   /* reductions */
    size_t count;        /* as in coll_call */
    int root;            /* reduce, bcast */
    int in_place;        /* MPI_IN_PLACE where MPI allows it (reduce, gather(v), scatter(v): at the
                            root only) */
    int misalign;        /* 1: buffers start one element past an aligned address */
    int null_recv;       /* reduce, gather(v): non-root ranks pass recvbuf = NULL */
    mem_kind mem;        /* device (cudaMalloc) or host buffers */
    int linear;          /* the linear input pattern (gen.h), for the largest sums */
} coll_case;

/* Most ranks a block collective's case can lay out (blocks.h). */
#define PREP_MAX_RANKS 64

typedef struct {
    coll_case c;
    int rank, size;
    int has_send, has_recv, input_in_recv;
    size_t in_elems, recv_elems, in_at; /* in elements; in_at: where the input sits in recv */
    devbuf send, recv;
    unsigned char *host_in, *host_out;
    gen_ctx gen;
    /* Block collectives (blocks.h): this rank's send [0] and receive [1] side, in elements. */
    size_t counts[2][PREP_MAX_RANKS], displs[2][PREP_MAX_RANKS];
    /* Set after prep_alloc for MPI_Exscan: rank 0's recvbuf is undefined there, so it is not
     * checked (the native call must leave it as it was). */
    int exscan_rank0_undefined;
} coll_prep;

/* Case names: <api>/<collective>/<type>[/<op>]/n=<count>[/root=<r>][/ip|/oop][/unaligned][/host][/nullrecv] */
void case_name(const char *api, const coll_case *c, char *buf, size_t len);

/* Allocate buffers for `c` on this rank of a communicator of `size`; 0 or -1 (recorded). */
int prep_alloc(coll_prep *p, const coll_case *c, int rank, int size);
/* Fresh inputs from `seed`, outputs poisoned; 0 or -1 (recorded). */
int prep_load(coll_prep *p, uint64_t seed);
void prep_call(const coll_prep *p, coll_call *call);
/* Check outputs, send buffer and guards; `label` prefixes failure details (may be ""). 0 when
 * all is well. */
int prep_check(coll_prep *p, const char *label);
void prep_free(coll_prep *p);

/* A whole case under the report: begin, allocate, load, agree, call, check, end. */
void case_run(coll_api *api, const coll_case *c);

#endif /* GPU_PREP_H */
