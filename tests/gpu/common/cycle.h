/* Kernels of two communicators enqueued in opposite orders: even ranks call on communicator A
 * (stream A) then B (stream B), odd ranks B then A, several rounds, then wait with a deadline.
 * Every block of an mcoll kernel waits for the same block on its peers and holds its SM while
 * it waits, so the calls can only wait on each other when the GPU cannot hold every block in
 * flight at once (docs/choices.md, "Kernels of several communicators"). Two cases, both inside
 * that guarantee, both must complete within CYCLE_BOUND_S:
 *   <name>/small   default blocks, calls of 1023 elements (one block each);
 *   <name>/large   calls of 4 Mi elements on communicators created with max_blocks = the
 *                  GPU's multiprocessors / (ranks sharing a GPU x 2), at most 32 (agreed);
 * A case that does not complete in time fails and ends the program (its kernels never end). */
#ifndef GPU_CYCLE_H
#define GPU_CYCLE_H

#include <cuda_runtime_api.h>
#include <mpi.h>

#define CYCLE_BOUND_S 60.0

/* Collective over MPI_COMM_WORLD; comm_b is a duplicate of comm_a (or any communicator of the
 * same ranks). Creates and destroys its own mcoll communicators. */
void cycle_cases(const char *name, MPI_Comm comm_a, MPI_Comm comm_b, cudaStream_t stream_a, cudaStream_t stream_b);

#endif /* GPU_CYCLE_H */
