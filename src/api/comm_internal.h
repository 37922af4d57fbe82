/* What the MPI layer needs of a native communicator beyond the public API. */
#ifndef MCOLL_COMM_INTERNAL_H
#define MCOLL_COMM_INTERNAL_H

#include "mcoll.h"

/* The team's blocking stream: ordered after the legacy default stream, like MPI users expect. */
struct CUstream_st *mcoll_comm_stream(mcoll_comm *comm);
/* Wait for everything enqueued on that stream. */
mcoll_result mcoll_comm_sync(mcoll_comm *comm);

#endif /* MCOLL_COMM_INTERNAL_H */
