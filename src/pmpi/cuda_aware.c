/* Whether the MPI below takes device buffers. MCOLL_CUDA_AWARE=0/1 decides; auto asks Open
 * MPI's MPIX_Query_cuda_support() (configure sets MCOLL_HAVE_MPIX_CUDA when it links), which
 * answers for the library actually loaded, not the one compiled against. Without the query the
 * MPI is taken as not CUDA-aware, which is always safe: device buffers are then staged. */
#include <mpi.h>
#if MCOLL_HAVE_MPIX_CUDA
#include <mpi-ext.h>
#endif
#include "plugin.h"
#include "config.h"

int mcoll_cuda_aware_detect(void)
{
    const mcoll_settings *s = mcoll_settings_get();
    if (s->cuda_aware == MCOLL_ON) return 1;
    if (s->cuda_aware == MCOLL_OFF) return 0;
#if MCOLL_HAVE_MPIX_CUDA
    return MPIX_Query_cuda_support() == 1;
#else
    return 0;
#endif
}
