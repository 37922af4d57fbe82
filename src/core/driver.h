/* The one table of CUDA driver entry points.
 *
 * Nothing in mcoll links libcuda: the loader dlopens libcuda.so.1 once and fills this table
 * through cuGetProcAddress. Required entries must resolve or the driver counts as absent (every
 * call is then forwarded to MPI). Optional entries may stay NULL, and NULL is the feature test.
 * Multicast entries are resolved only when the multicast switch is not off, so with
 * NCCL_NVLS_ENABLE=0 or MCOLL_NVLS=0 not even their addresses are taken.
 * Tests install a contract driver (a host-memory model) into the same table instead. */
#ifndef MCOLL_DRIVER_H
#define MCOLL_DRIVER_H

#include <cuda.h>
#include <cudaTypedefs.h>

/* X(name, version): version is the ABI the pointer type PFN_<name>_v<version> describes. */
#define MCOLL_DRIVER_REQUIRED(X)                 \
    X(cuInit, 2000)                              \
    X(cuDriverGetVersion, 2020)                  \
    X(cuGetErrorString, 6000)                    \
    X(cuGetErrorName, 6000)                      \
    X(cuDeviceGet, 2000)                         \
    X(cuDeviceGetCount, 2000)                    \
    X(cuDeviceGetAttribute, 2000)                \
    X(cuDeviceGetPCIBusId, 4010)                 \
    X(cuDeviceGetUuid, 11040)                    \
    X(cuDevicePrimaryCtxRetain, 7000)            \
    X(cuDevicePrimaryCtxRelease, 11000)          \
    X(cuCtxGetCurrent, 4000)                     \
    X(cuCtxSetCurrent, 4000)                     \
    X(cuCtxGetDevice, 2000)                      \
    X(cuCtxSynchronize, 2000)                    \
    X(cuPointerGetAttributes, 7000)              \
    X(cuPointerGetAttribute, 4000)               \
    X(cuMemAlloc, 3020)                          \
    X(cuMemFree, 3020)                           \
    X(cuMemHostAlloc, 2020)                      \
    X(cuMemHostGetDevicePointer, 3020)           \
    X(cuMemFreeHost, 2000)                       \
    X(cuMemHostRegister, 6050)                   \
    X(cuMemHostUnregister, 4000)                 \
    X(cuMemcpyDtoHAsync, 3020)                   \
    X(cuMemcpyHtoDAsync, 3020)                   \
    X(cuMemcpyDtoDAsync, 3020)                   \
    X(cuMemsetD8Async, 3020)                     \
    X(cuStreamCreate, 2000)                      \
    X(cuStreamDestroy, 4000)                     \
    X(cuStreamSynchronize, 2000)                 \
    X(cuStreamQuery, 2000)                       \
    X(cuStreamIsCapturing, 10000)                \
    X(cuEventCreate, 2000)                       \
    X(cuEventDestroy, 4000)                      \
    X(cuEventRecord, 2000)                       \
    X(cuStreamWaitEvent, 3020)                   \
    X(cuEventSynchronize, 2000)                  \
    X(cuEventQuery, 2000)

/* Virtual memory management: needed by the engines, absent on very old drivers. */
#define MCOLL_DRIVER_VMM(X)                      \
    X(cuMemCreate, 10020)                        \
    X(cuMemRelease, 10020)                       \
    X(cuMemGetAllocationGranularity, 10020)      \
    X(cuMemAddressReserve, 10020)                \
    X(cuMemAddressFree, 10020)                   \
    X(cuMemMap, 10020)                           \
    X(cuMemUnmap, 10020)                         \
    X(cuMemSetAccess, 10020)                     \
    X(cuMemExportToShareableHandle, 10020)       \
    X(cuMemImportFromShareableHandle, 10020)

/* Memory the user brings (src/mem/): VMM allocations and cudaMalloc buffers shared with the
 * peers, and memory exported by another API or process. Optional: NULL turns that call off. */
#define MCOLL_DRIVER_USER_MEMORY(X)              \
    X(cuMemRetainAllocationHandle, 11000)        \
    X(cuIpcGetMemHandle, 4010)                   \
    X(cuIpcOpenMemHandle, 11000)                 \
    X(cuIpcCloseMemHandle, 4010)                 \
    X(cuImportExternalMemory, 10000)             \
    X(cuExternalMemoryGetMappedBuffer, 10000)    \
    X(cuDestroyExternalMemory, 10000)

/* Stream memory operations: a launch waits on the GPU for the resident kernel to end
 * (src/api/ring.c). Optional: NULL, or CUDA_ERROR_NOT_SUPPORTED, and the host waits instead. */
#define MCOLL_DRIVER_STREAM_WAIT(X)              \
    X(cuStreamWaitValue32, 11070)

/* Loading every kernel of a module at once (src/team/kernels.c). Optional: NULL, and the
 * kernels are loaded by module, as they are first used. */
#define MCOLL_DRIVER_KERNEL_LOAD(X)              \
    X(cuFuncGetModule, 11000)                    \
    X(cuModuleGetFunctionCount, 12040)           \
    X(cuModuleEnumerateFunctions, 12040)         \
    X(cuFuncLoad, 12040)

/* Multicast: resolved only while the multicast switch allows it. */
#define MCOLL_DRIVER_MULTICAST(X)                \
    X(cuMulticastGetGranularity, 12010)          \
    X(cuMulticastCreate, 12010)                  \
    X(cuMulticastAddDevice, 12010)               \
    X(cuMulticastBindMem, 12010)                 \
    X(cuMulticastBindAddr, 12010)                \
    X(cuMulticastUnbind, 12010)

#define MCOLL_DRIVER_DECLARE(name, version) PFN_##name##_v##version name;

typedef struct mcoll_driver {
    MCOLL_DRIVER_REQUIRED(MCOLL_DRIVER_DECLARE)
    MCOLL_DRIVER_VMM(MCOLL_DRIVER_DECLARE)
    MCOLL_DRIVER_USER_MEMORY(MCOLL_DRIVER_DECLARE)
    MCOLL_DRIVER_STREAM_WAIT(MCOLL_DRIVER_DECLARE)
    MCOLL_DRIVER_KERNEL_LOAD(MCOLL_DRIVER_DECLARE)
    MCOLL_DRIVER_MULTICAST(MCOLL_DRIVER_DECLARE)
} mcoll_driver;

/* The table. Read it only after mcoll_driver_load() returned MCOLL_SUCCESS. */
extern mcoll_driver mcoll_cu;

/* Fill the table once (thread-safe): from an installed table if mcoll_driver_install was
 * called, else from libcuda.so.1. Returns MCOLL_ERR_NO_DEVICE when there is no usable driver
 * (not an error for the plug-in: everything is then forwarded). Calls cuInit(0). */
int mcoll_driver_load(void);

/* 1 when the table is filled and usable. Cheap; valid after mcoll_driver_load. */
int mcoll_driver_available(void);

/* Replace the table before the first mcoll_driver_load (tests: the contract driver). Entries
 * that are NULL in `table` stay NULL. */
void mcoll_driver_install(const mcoll_driver *table);

/* Text of a driver error, safe when the table is not loaded. */
const char *mcoll_cu_errname(CUresult rc);

#endif /* MCOLL_DRIVER_H */
