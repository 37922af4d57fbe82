/* "Device" buffers of the contract driver for MPI tests: cuMemAlloc'ed memory that the model
 * reports as device memory, with the colltest_mem functions to fill and read it, and a check
 * that no device pointer reaches the MPI library (for the tests' PMPI_* hooks). The test's own
 * driver calls borrow `devmem_ctx` when the thread has no current context. */
#ifndef MCOLL_TEST_DEVMEM_H
#define MCOLL_TEST_DEVMEM_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/colltest.h"
#include "contract/model/contract.h"

static const mcoll_driver *cu;
static CUcontext devmem_ctx;
static long device_pointers_to_mpi;

static int is_device(const void *p)
{
    unsigned type = 0;
    CUpointer_attribute a = CU_POINTER_ATTRIBUTE_MEMORY_TYPE;
    void *data = &type;
    return p && cu->cuPointerGetAttributes(1, &a, &data, (CUdeviceptr)(uintptr_t)p) == CUDA_SUCCESS &&
           type == CU_MEMORYTYPE_DEVICE;
}

static void check_host(const char *call, const void *p)
{
    if (!p || p == MPI_IN_PLACE || !is_device(p)) return;
    fprintf(stderr, "FAIL: device pointer %p passed to %s\n", p, call);
    device_pointers_to_mpi++;
}

static CUcontext borrow(void)
{
    CUcontext cur = NULL;
    cu->cuCtxGetCurrent(&cur);
    if (!cur) cu->cuCtxSetCurrent(devmem_ctx);
    return cur;
}

static void give_back(CUcontext cur)
{
    if (!cur) cu->cuCtxSetCurrent(NULL);
}

static void *d_alloc(size_t n)
{
    CUdeviceptr p = 0;
    CUcontext cur = borrow();
    if (cu->cuMemAlloc(&p, n ? n : 1) != CUDA_SUCCESS) {
        fprintf(stderr, "cuMemAlloc(%zu) failed\n", n);
        abort();
    }
    give_back(cur);
    return (void *)(uintptr_t)p;
}

static void d_release(void *p)
{
    CUcontext cur = borrow();
    if (is_device(p)) cu->cuMemFree((CUdeviceptr)(uintptr_t)p);
    else free(p);
    give_back(cur);
}

static void d_put(void *d, const void *h, size_t n)
{
    CUcontext cur = borrow();
    if (!is_device(d)) memcpy(d, h, n);
    else if (n) cu->cuMemcpyHtoDAsync((CUdeviceptr)(uintptr_t)d, h, n, NULL);
    give_back(cur);
}

static void d_get(void *h, const void *d, size_t n)
{
    CUcontext cur = borrow();
    if (!is_device(d)) memcpy(h, d, n);
    else if (n) cu->cuMemcpyDtoHAsync(h, (CUdeviceptr)(uintptr_t)d, n, NULL);
    give_back(cur);
}

static const colltest_mem device_mem = {d_alloc, d_release, d_put, d_get};

/* Install the model (before MPI_Init), then give this rank the primary context of a device,
 * current, as the CUDA runtime does for a program. */
static void devmem_install(void)
{
    mcoll_contract_install();
    cu = mcoll_contract_driver();
}

static void devmem_start(int rank, CUdevice *dev)
{
    cu->cuDeviceGet(dev, rank % 8);
    cu->cuDevicePrimaryCtxRetain(&devmem_ctx, *dev);
    cu->cuCtxSetCurrent(devmem_ctx);
}

/* MPI_Init with the model installed first, this rank's device current, and MPI_COMM_WORLD
 * returning errors (Open MPI raises those of generalized requests there). */
static inline void devmem_mpi_init(int *argc, char ***argv, int *rank, int *size, CUdevice *dev)
{
    devmem_install();
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    devmem_start(*rank, dev);
}

/* devmem_mpi_init for the tests that run the engines on the model with their launchers
 * replaced: the engines on, device buffers never handed to the MPI as they are, events that
 * answer NOT_READY twice after each record (unless the environment says), MCOLL_RESIDENT as given. */
static inline void devmem_engine_init(int *argc, char ***argv, int *rank, int *size, CUdevice *dev, int resident)
{
    setenv("MCOLL_ENGINE", "auto", 1);
    setenv("MCOLL_CUDA_AWARE", "0", 1);
    setenv("MCOLL_RESIDENT", resident ? "1" : "0", 1);
    setenv("MCOLL_CONTRACT_EVENT_DELAY", "2", 0);
    devmem_mpi_init(argc, argv, rank, size, dev);
}

/* An MPI return code's error class. */
/* A setting a test is about: on ("1") unless the run sets it; returns whether it is on. */
static inline int devmem_setting_on(const char *name)
{
    const char *value = getenv(name);
    if (!value) setenv(name, "1", 1);
    return !value || atoi(value) != 0;
}

static inline int error_class(int rc)
{
    int c = rc;
    if (rc != MPI_SUCCESS) MPI_Error_class(rc, &c);
    return c;
}

/* Count and print the driver contract's violations so far, then forget the call log (fault
 * rules too, so those of the environment are set again). */
static int devmem_violations;
static void checkpoint(void)
{
    devmem_violations += mcoll_contract_violations();
    if (mcoll_contract_violations()) mcoll_contract_violations_print(stderr);
    mcoll_contract_reset();
    if (getenv("MCOLL_CONTRACT_FAIL")) mcoll_contract_fail_spec(getenv("MCOLL_CONTRACT_FAIL"));
}

/* The counts before MPI_Finalize: nonzero when something failed. */
static inline int devmem_before_finalize(const char *name)
{
    int rc = ct_finish(name);
    if (device_pointers_to_mpi) CT_FAIL("%ld device pointers reached PMPI", device_pointers_to_mpi);
    if (devmem_violations) CT_FAIL("%d violations of the driver contract", devmem_violations);
    return rc || ct_failures;
}

/* After MPI_Finalize (stderr only: the CT_* macros report through MPI): 1 when the driver
 * contract was broken since the last checkpoint. */
static inline int devmem_violations_after_finalize(void)
{
    if (!mcoll_contract_violations()) return 0;
    mcoll_contract_violations_print(stderr);
    return 1;
}

/* The end of the test: counts, MPI_Finalize, then nothing of mcoll's left alive (streams,
 * events, pinned memory) and none of the test's device buffers. The exit status. */
static int devmem_finish(const char *name, CUdevice dev)
{
    int rank, rc, all;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    rc = devmem_before_finalize(name);
    MPI_Finalize();
    if (mcoll_contract_live("stream") || mcoll_contract_live("event") || mcoll_contract_live("host_memory")) {
        mcoll_contract_live_print(stderr);
        CT_FAIL("mcoll's streams, events or host memory still alive after MPI_Finalize");
    }
    if (mcoll_contract_live("device_memory")) CT_FAIL("device buffers of the test leaked");
    cu->cuDevicePrimaryCtxRelease(dev);
    all = rc || ct_failures;
    if (rank == 0 && !all) printf("%s: PASS\n", name);
    return all;
}

#endif /* MCOLL_TEST_DEVMEM_H */
