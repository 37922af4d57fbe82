/* MPI_Init, MPI_Init_thread and MPI_Finalize: start the plug-in after MPI is up, and arrange
 * for everything it holds to be freed before MPI goes down (the delete callback of an
 * MPI_COMM_SELF attribute, which MPI_Finalize runs first). */
#include "plugin.h"
#include "pmpi.h"
#include "classify.h"
#include "comm_attr.h"
#include "typeinfo.h"
#include "stage.h"
#include "request.h"
#include "dtype.h"
#include "half.h"
#include "config.h"
#include "driver.h"
#include "log.h"

int mcoll_plugin_active;
int mcoll_mpi_cuda_aware;
static int self_keyval = MPI_KEYVAL_INVALID;

static int at_finalize(MPI_Comm comm, int key, void *value, void *extra)
{
    (void)comm; (void)key; (void)value; (void)extra;
    /* From here on every call goes to MPI untouched. */
    mcoll_plugin_active = 0;
    mcoll_requests_finalize(); /* operations in flight finish while their engines exist */
    mcoll_comm_attr_finalize(); /* engines (teams) first, while MPI works */
    mcoll_stage_finalize();
    mcoll_classify_forget();
    mcoll_typeinfo_finalize();
    mcoll_dtype_finalize();
    PMPI_Comm_free_keyval(&self_keyval);
    MCOLL_INFO("finalized: every resource of the plug-in freed");
    return MPI_SUCCESS;
}

void mcoll_plugin_start(void)
{
    const mcoll_settings *s = mcoll_settings_get();
    int rank = -1, driver = MCOLL_ERR_NO_DEVICE;

    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    mcoll_log_set_rank(rank);
    if (!s->disable) driver = mcoll_driver_load();
    mcoll_fortran_init();
    /* The 16-bit float types exist even with MCOLL_DISABLE, so programs that use them run. */
    mcoll_dtype_init();
    if (PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, at_finalize, &self_keyval, NULL) != MPI_SUCCESS ||
        PMPI_Comm_set_attr(MPI_COMM_SELF, self_keyval, NULL) != MPI_SUCCESS)
        MCOLL_WARN("cannot attach the finalize hook to MPI_COMM_SELF: mcoll's resources will not be freed");
    if (s->disable) {
        MCOLL_INFO("MCOLL_DISABLE=1: every call goes to MPI untouched");
        return;
    }
    if (mcoll_typeinfo_init() != MCOLL_SUCCESS || mcoll_comm_attr_init() != MCOLL_SUCCESS) {
        MCOLL_WARN("plug-in set-up failed: every call goes to MPI untouched");
        return;
    }
    mcoll_mpi_cuda_aware = mcoll_cuda_aware_detect();
    mcoll_plugin_active = 1;
    MCOLL_INFO("PMPI plug-in active: CUDA driver %s, MPI %s, engines %s", driver == MCOLL_SUCCESS ? "loaded" : "absent (host only)",
               mcoll_mpi_cuda_aware ? "CUDA-aware (device buffers passed through)" : "not CUDA-aware (device buffers staged)",
               driver != MCOLL_SUCCESS               ? "off (no usable CUDA driver)"
               : s->engine == MCOLL_ENGINE_STAGED ? "off (MCOLL_ENGINE=staged)"
                                                  : "on");
}

int mcoll_mpi_init(int *argc, char ***argv)
{
    int rc = mcoll_next_Init(argc, argv);
    if (rc == MPI_SUCCESS) mcoll_plugin_start();
    return rc;
}

int mcoll_mpi_init_thread(int *argc, char ***argv, int required, int *provided)
{
    int rc = mcoll_next_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS) mcoll_plugin_start();
    return rc;
}

/* The work happens in at_finalize, inside PMPI_Finalize, which also covers programs whose
 * MPI_Finalize reaches MPI some other way. */
int mcoll_mpi_finalize(void) { return mcoll_next_Finalize(); }

int MPI_Init(int *argc, char ***argv) { return mcoll_mpi_init(argc, argv); }
int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    return mcoll_mpi_init_thread(argc, argv, required, provided);
}
int MPI_Finalize(void) { return mcoll_mpi_finalize(); }
