/* The plug-in's side of the hierarchical path (src/hier): which decided calls it takes, and
 * running one. A communicator whose ranks span several NVLink domains (comm_attr.h: its `hier`
 * record) has its device-buffer allreduce, reduce, bcast, allgather and reduce-scatters (equal
 * blocks) run as steps inside each domain on the GPU engine and steps between domains through
 * the MPI, when MCOLL_HIER is not 0; nonblocking and persistent calls as recorded steps
 * (src/hier/hier_op.h) that the request layer advances (operation.c). */
#ifndef MCOLL_HIER_PATH_H
#define MCOLL_HIER_PATH_H

#include "decide.h"
#include "hier.h"

/* The engines' refusal of a communicator that spans domains (the reason text, compared by
 * address). */
extern const char mcoll_hier_why[];

/* Called by the decision when the engines refused the call with mcoll_hier_why and everything
 * else suits them (d->count, d->bytes and the kernels' types are set): 1 with d->path set to
 * MCOLL_PATH_HIER when the hierarchical path takes it. Depends only on what every rank sees
 * alike. */
int mcoll_hier_takes(mcoll_call *c, mcoll_decision *d);

/* Run a call decided MCOLL_PATH_HIER; MCOLL_SUCCESS or the first error. */
mcoll_result mcoll_hier_path_run(mcoll_call *c, const mcoll_decision *d);

/* 1 when this rank is a reduce's root with a host receive buffer: its result goes through
 * device scratch memory, which mcoll_hier_path_record is then given as root_device. */
int mcoll_hier_path_host_root(const mcoll_call *c);
/* The steps of a nonblocking or persistent call decided MCOLL_PATH_HIER, recorded (local: no
 * communication); NULL with *rc set when they cannot be. */
mcoll_hier_op *mcoll_hier_path_record(const mcoll_call *c, const mcoll_decision *d, void *root_device,
                                      mcoll_result *rc);

#endif /* MCOLL_HIER_PATH_H */
