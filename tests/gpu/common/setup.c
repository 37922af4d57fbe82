/* Reported communicator setup; see setup.h. */
#include "api.h"
#include "report.h"
#include "setup.h"

mcoll_comm *setup_comm(const char *name, MPI_Comm comm, const mcoll_config *config)
{
    mcoll_comm *mc = NULL;
    mcoll_result rc;
    char text[200];
    if (!setup_begin("%s", name)) return NULL;
    rc = mcoll_comm_create(comm, config, &mc);
    if (rc != MCOLL_SUCCESS) {
        native_describe(rc, text, sizeof text);
        case_fail("mcoll_comm_create returned %d: %s", (int)rc, text);
        mc = NULL;
    }
    /* Every rank must hold a communicator or none. */
    if (!case_end() && mc) {
        mcoll_comm_destroy(mc);
        mc = NULL;
    }
    return mc;
}

void teardown_comm(const char *name, mcoll_comm *mc)
{
    mcoll_result rc;
    if (!mc) return;
    if (!setup_begin("%s", name)) {
        mcoll_comm_destroy(mc); /* stopped: still free it, quietly */
        return;
    }
    rc = mcoll_comm_destroy(mc);
    if (rc != MCOLL_SUCCESS) case_fail("mcoll_comm_destroy returned %d", (int)rc);
    case_end();
}
