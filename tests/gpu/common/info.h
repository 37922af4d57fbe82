/* The communicator report: mcoll_comm_info and mcoll_comm_describe, printed and checked.
 * With NCCL_NVLS_ENABLE=0 (the only way these tests run) the engine must be unicast and the
 * reason must name the kill switch; the team must be the communicator, one GPU per rank. */
#ifndef GPU_INFO_H
#define GPU_INFO_H

#include <mpi.h>
#include "mcoll.h"

/* One case named `name`; collective over MPI_COMM_WORLD (each rank passes its own comm). */
void check_comm_info(const char *name, mcoll_comm *mc, MPI_Comm comm);

#endif /* GPU_INFO_H */
