/* NCCL_NVLS_ENABLE=0: multicast off for mcoll too, whatever the communicator's configuration
 * asks; not one cuMulticast* call, and the multicast entries of the driver table never filled in.
 * See team_killswitch.h for the cases. */
#define _GNU_SOURCE
#include "contract/team_killswitch.h"

int main(int argc, char **argv)
{
    static const killswitch_variant variant = {"mpi_team_killswitch", "0", NULL, 1, "NCCL_NVLS_ENABLE=0"};
    return killswitch_main(argc, argv, &variant);
}
