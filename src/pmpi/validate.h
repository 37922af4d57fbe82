/* Argument checks of the wrappers, done before anything is classified or forwarded, so a bad
 * call is reported like MPI reports it (the error class through the communicator's error
 * handler) and never reaches a device buffer or the user's memory. Each check returns
 * MPI_SUCCESS or an MPI error class. */
#ifndef MCOLL_VALIDATE_H
#define MCOLL_VALIDATE_H

#include <mpi.h>
#include "pmpi.h"
#include "raise.h" /* the checks' errors are raised with it */


/* 1 when `comm` is MPI_COMM_NULL (or, in Open MPI, the NULL an invalid Fortran handle gives). */
int mcoll_comm_is_null(MPI_Comm comm);

/* `info` is the datatype's table row, NULL for derived datatypes (c->info, c->recvinfo). */
/* Datatype given, count >= 0, datatype committed. */
int mcoll_check_type(MPI_Datatype type, const mcoll_type_info *info, int count);
/* The call's op given and defined on its datatype. */
int mcoll_check_op(const mcoll_call *c);
/* Not MPI_IN_PLACE; not NULL when it holds data (NULL is MPI_BOTTOM, allowed with a datatype
 * of absolute addresses). */
int mcoll_check_buffer(const void *buf, int count, MPI_Datatype type, const mcoll_type_info *info);
/* A rank of the communicator (intercommunicators: MPI_ROOT, MPI_PROC_NULL or a remote rank). */
int mcoll_check_root(const mcoll_comm_state *cs, int root);
/* The checks every reduction shares: datatype, count, op, and that recvbuf is not MPI_IN_PLACE,
 * and that sendbuf is MPI_IN_PLACE only on an intracommunicator. */
int mcoll_check_reduction(const mcoll_call *c);
/* mcoll_check_reduction, then sendbuf (unless MPI_IN_PLACE) and recvbuf hold `count` elements
 * and are not the same memory: allreduce, scan, exscan. */
int mcoll_check_reduction_buffers(const mcoll_call *c);
/* MPI forbids sendbuf and recvbuf to be the same memory (MPI_IN_PLACE is the way). */
int mcoll_check_alias(const void *sendbuf, const void *recvbuf, int count);

/* The v and w variants' n blocks: counts given and none negative (MPI_ERR_COUNT), displacements
 * given (MPI_ERR_ARG). */
int mcoll_check_blocks(const int *counts, const void *displs, int n);
/* The w variants' datatypes: given (MPI_ERR_ARG), then each as mcoll_check_type with its count. */
int mcoll_check_block_types(const MPI_Datatype *types, const int *counts, int n);
/* One side of a call with blocks: n blocks of `type`, counts[i] elements each at displs[i] when
 * `vector`, else `fixed` elements each: the counts and displacements, the datatype, and a
 * buffer wherever the blocks hold data. */
int mcoll_check_side(const void *buf, MPI_Datatype type, const mcoll_type_info *info, int n, int vector,
                     const int *counts, const int *displs, int fixed);
/* 1 when one of n blocks holds elements (counts NULL: none does). */
int mcoll_blocks_hold_data(const int *counts, int n);
/* The size check Open MPI makes on intracommunicators: this rank's send block must have as many
 * bytes as its receive block (MPI_ERR_TRUNCATE). */
int mcoll_check_own_block(MPI_Datatype sendtype, int sendcount, MPI_Datatype recvtype, int recvcount);

#endif /* MCOLL_VALIDATE_H */
