/* Error texts and the version query. */
#include "mcoll.h"

const char *mcoll_strerror(mcoll_result code)
{
    switch (code) {
    case MCOLL_SUCCESS: return "success";
    case MCOLL_ERR_INVALID_ARG: return "invalid argument";
    case MCOLL_ERR_UNSUPPORTED: return "not supported by the GPU engines";
    case MCOLL_ERR_NO_DEVICE: return "no usable NVIDIA driver or GPU";
    case MCOLL_ERR_CUDA: return "CUDA call failed";
    case MCOLL_ERR_MPI: return "MPI call failed";
    case MCOLL_ERR_NO_MEMORY: return "out of memory";
    case MCOLL_ERR_SYSTEM: return "operating-system call failed";
    case MCOLL_ERR_INTERNAL: return "internal error";
    case MCOLL_ERR_ABORTED: return "a peer exited or MCOLL_TIMEOUT passed; the communicator cannot be used";
    }
    return "unknown error code";
}

int mcoll_version(void) { return MCOLL_API_VERSION; }
