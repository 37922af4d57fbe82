/* NCCL_NVLS_ENABLE=0 together with MCOLL_NVLS set to 1: the kill switch wins, so multicast stays off
 * and not one cuMulticast* call is made. The program switches multicast on in its own
 * environment, so it refuses to run (exit 77) where a real NVIDIA driver and GPU are present,
 * although the contract driver alone is ever used here. See team_killswitch.h for the cases. */
#define _GNU_SOURCE
#include "contract/team_killswitch.h"

int main(int argc, char **argv)
{
    static const killswitch_variant variant = {"mpi_team_killswitch_wins", "0", "1", 1, "NCCL_NVLS_ENABLE=0"};
    return killswitch_main(argc, argv, &variant);
}
