/* Placeholder until the engines land: every collective falls back. */
#include "engine.h"

mcoll_result mcoll_engine_allreduce(const void *s, void *r, int c, MPI_Datatype t, MPI_Op o, MPI_Comm comm)
{ (void)s; (void)r; (void)c; (void)t; (void)o; (void)comm; return MCOLL_ERR_UNSUPPORTED; }
mcoll_result mcoll_engine_bcast(void *b, int c, MPI_Datatype t, int root, MPI_Comm comm)
{ (void)b; (void)c; (void)t; (void)root; (void)comm; return MCOLL_ERR_UNSUPPORTED; }
mcoll_result mcoll_engine_reduce(const void *s, void *r, int c, MPI_Datatype t, MPI_Op o, int root, MPI_Comm comm)
{ (void)s; (void)r; (void)c; (void)t; (void)o; (void)root; (void)comm; return MCOLL_ERR_UNSUPPORTED; }
mcoll_result mcoll_engine_reduce_scatter_block(const void *s, void *r, int c, MPI_Datatype t, MPI_Op o, MPI_Comm comm)
{ (void)s; (void)r; (void)c; (void)t; (void)o; (void)comm; return MCOLL_ERR_UNSUPPORTED; }
mcoll_result mcoll_engine_allgather(const void *s, int sc, void *r, int rc, MPI_Datatype t, MPI_Comm comm)
{ (void)s; (void)sc; (void)r; (void)rc; (void)t; (void)comm; return MCOLL_ERR_UNSUPPORTED; }
void mcoll_engine_mpi_init(void) {}
