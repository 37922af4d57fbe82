/* MCOLL_NVLS=0 in the environment: multicast off for every communicator, even one whose
 * configuration asks for it; not one cuMulticast* call, and the multicast entries of the driver
 * table never filled in. See team_killswitch.h for the cases. */
#define _GNU_SOURCE
#include "contract/team_killswitch.h"

int main(int argc, char **argv)
{
    static const killswitch_variant variant = {"mpi_team_killswitch_mcoll", NULL, "0", 0, "MCOLL_NVLS=0"};
    return killswitch_main(argc, argv, &variant);
}
