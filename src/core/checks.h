/* Three forms of every check: return the error, jump to a cleanup label, or log and go on.
 * Each level a failure passes through logs one line with file and line, so a failure prints a
 * short trail from where it happened to where it was handled.
 * The *_GOTO forms expect a local `mcoll_result rc` and a label. */
#ifndef MCOLL_CHECKS_H
#define MCOLL_CHECKS_H

#include "mcoll.h"
#include "driver.h"
#include "log.h"

/* CUDA driver calls through the table: `CU_RETURN(cuMemMap(ptr, size, 0, h, 0));` */
#define CU_RETURN(call)                                                                      \
    do {                                                                                     \
        CUresult cu_rc_ = mcoll_cu.call;                                                     \
        if (cu_rc_ != CUDA_SUCCESS) {                                                        \
            MCOLL_WARN("%s failed: %s", #call, mcoll_cu_errname(cu_rc_));                    \
            return MCOLL_ERR_CUDA;                                                           \
        }                                                                                    \
    } while (0)

#define CU_GOTO(call, label)                                                                 \
    do {                                                                                     \
        CUresult cu_rc_ = mcoll_cu.call;                                                     \
        if (cu_rc_ != CUDA_SUCCESS) {                                                        \
            MCOLL_WARN("%s failed: %s", #call, mcoll_cu_errname(cu_rc_));                    \
            rc = MCOLL_ERR_CUDA;                                                             \
            goto label;                                                                      \
        }                                                                                    \
    } while (0)

#define CU_WARN(call)                                                                        \
    do {                                                                                     \
        CUresult cu_rc_ = mcoll_cu.call;                                                     \
        if (cu_rc_ != CUDA_SUCCESS) MCOLL_WARN("%s failed: %s", #call, mcoll_cu_errname(cu_rc_)); \
    } while (0)

/* mcoll calls returning mcoll_result. */
#define MC_RETURN(call)                                                                      \
    do {                                                                                     \
        mcoll_result mc_rc_ = (call);                                                        \
        if (mc_rc_ != MCOLL_SUCCESS) {                                                       \
            MCOLL_INFO("%s -> %s", #call, mcoll_strerror(mc_rc_));                           \
            return mc_rc_;                                                                   \
        }                                                                                    \
    } while (0)

#define MC_GOTO(call, label)                                                                 \
    do {                                                                                     \
        rc = (call);                                                                         \
        if (rc != MCOLL_SUCCESS) {                                                           \
            MCOLL_INFO("%s -> %s", #call, mcoll_strerror(rc));                               \
            goto label;                                                                      \
        }                                                                                    \
    } while (0)

/* MPI calls made by mcoll itself (through PMPI, so they are never intercepted again). */
#define MPI_RETURN(call)                                                                     \
    do {                                                                                     \
        int mpi_rc_ = (call);                                                                \
        if (mpi_rc_ != MPI_SUCCESS) {                                                        \
            MCOLL_WARN("%s failed: MPI error %d", #call, mpi_rc_);                           \
            return MCOLL_ERR_MPI;                                                            \
        }                                                                                    \
    } while (0)

#define MPI_GOTO(call, label)                                                                \
    do {                                                                                     \
        int mpi_rc_ = (call);                                                                \
        if (mpi_rc_ != MPI_SUCCESS) {                                                        \
            MCOLL_WARN("%s failed: MPI error %d", #call, mpi_rc_);                           \
            rc = MCOLL_ERR_MPI;                                                              \
            goto label;                                                                      \
        }                                                                                    \
    } while (0)

#endif /* MCOLL_CHECKS_H */
