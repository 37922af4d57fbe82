/* The memory a collective's kernel uses on this rank, declared to the contract driver as one
 * launch on the legacy stream (mcoll_contract_kernel_access): every rank's whole symmetric slot
 * through the unicast views (stores and release adds go to peers), and, when the team has
 * them, the multicast views (multimem.st and .red write through them; the tests' emulation
 * writes through an alias per rank). Also what the kernels assume of new memory: this rank's
 * signal pad reads zero, whatever cuMemCreate left there. Reaches into the team (internal
 * headers): the dev view is exactly what the kernels get. */
#ifndef MCOLL_CONTRACT_KERNEL_VIEW_H
#define MCOLL_CONTRACT_KERNEL_VIEW_H

#include "comm_internal.h"
#include "contract/check.h"
#include "launch.h"

/* Bytes of one rank's symmetric slot as the kernels address it. */
static inline size_t kernel_slot_bytes(const mcoll_dev_team *t)
{
    return MCOLL_DATA_OFFSET + t->data_bytes;
}

static inline void check_kernel_view(const mcoll_comm *comm)
{
    const mcoll_dev_team *t = &comm->team->dev;
    const size_t slot = kernel_slot_bytes(t);
    const unsigned char *pad = (const unsigned char *)t->peer_signal[t->rank];
    size_t nonzero = 0;
    for (int i = 0; i < t->size; i++)
        CHECK(mcoll_contract_kernel_access(NULL, (CUdeviceptr)(uintptr_t)t->peer_signal[i], slot, 1) == CUDA_SUCCESS);
    if (t->mc_signal && !t->mc_stride)
        CHECK(mcoll_contract_kernel_access(NULL, (CUdeviceptr)(uintptr_t)t->mc_signal, slot, 1) == CUDA_SUCCESS);
    for (int i = 0; t->mc_signal && t->mc_stride && i < t->size; i++)
        CHECK(mcoll_contract_kernel_access(NULL, (CUdeviceptr)(uintptr_t)t->mc_signal + i * t->mc_stride, slot, 1) == CUDA_SUCCESS);
    for (size_t k = 0; k < MCOLL_SIGNAL_BYTES; k++) nonzero += pad[k] != 0;
    if (nonzero) fprintf(stderr, "rank %d: %zu bytes of the signal pad are not zero\n", t->rank, nonzero);
    CHECK(nonzero == 0);
}

#endif /* MCOLL_CONTRACT_KERNEL_VIEW_H */
