/* The contract driver: a host-memory model of the CUDA driver for tests.
 *
 * It fills the same `mcoll_driver` table as libcuda would, so mcoll's team, symmetric-memory and
 * multicast code runs on CPUs under real MPI. Every entry point:
 *   - counts and logs the call (name and key arguments, then the result);
 *   - checks the rules of the CUDA documents in shared/seeds and the usual VMM rules; a broken
 *     rule returns the documented error AND is recorded as a violation that tests can read;
 *   - can be made to fail on purpose (fault injection), in this process only.
 *
 * Memory is real: cuMemCreate makes a memfd (filled with garbage, as new device memory holds
 * whatever was there before), exported handles are real file descriptors (or 64
 * bytes naming the exporter's fd under /proc), cuMemMap maps the memfd into a range reserved
 * with mmap(PROT_NONE), and cuMemSetAccess is mprotect. What one process writes through its
 * mapping another process reads through its imported mapping. A multicast object is a memfd
 * whose first page holds state shared by all processes of the job (team size, devices added).
 *
 * Error codes for broken rules, always one the document lists for that call:
 *   CUDA_ERROR_INVALID_VALUE    bad argument: NULL, flags not 0, alignment, bounds, unknown or
 *                               released handle, handle type not requested, range not mapped;
 *   CUDA_ERROR_INVALID_DEVICE   device ordinal out of range, or memory of a device that is not
 *                               in the multicast team;
 *   CUDA_ERROR_NOT_SUPPORTED    the device attributes say the feature is absent (VMM, POSIX fd,
 *                               fabric, multicast) and the call was made anyway;
 *   CUDA_ERROR_NOT_PERMITTED    order: bind or map before every device was added, release of
 *                               memory still bound, release of a multicast object with binds of
 *                               this process, freeing an address range that is still mapped;
 *   CUDA_ERROR_NOT_INITIALIZED  any call before cuInit (cuInit, cuDriverGetVersion and the two
 *                               error-text calls excepted, as in the real driver);
 *   CUDA_ERROR_INVALID_CONTEXT  a call that needs a current context made without one;
 *   CUDA_ERROR_INVALID_HANDLE   an unknown stream or event.
 * Errors that are not misuse (cuPointerGetAttribute on a host pointer, an unknown code given to
 * cuGetErrorName, a failing mmap) are returned without a violation.
 *
 * Environment, read at the first use of the model:
 *   MCOLL_CONTRACT_DEVICES=N         device count (default 8)
 *   MCOLL_CONTRACT_MULTICAST=0|1     CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED (default 1)
 *   MCOLL_CONTRACT_FABRIC=0|1        CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED (default 1)
 *   MCOLL_CONTRACT_POSIX_FD=0|1      CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED
 *   MCOLL_CONTRACT_VMM=0|1           CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED
 *   MCOLL_CONTRACT_NODE_SIZE=K       processes per modelled node (world rank / K: the node), each
 *                                    node with its own GPUs: POSIX descriptors and CUDA IPC handles
 *                                    do not cross nodes, fabric handles do (default 0: one node)
 *   MCOLL_CONTRACT_FAIL=SPEC         fault injection, see mcoll_contract_fail_spec
 *   MCOLL_CONTRACT_QUIET=1           do not print violations to stderr as they happen
 *   MCOLL_CONTRACT_TRACE=1           print every call to stderr
 *   MCOLL_CONTRACT_ABORT=1           abort() at the first violation (for a core or a debugger)
 *   MCOLL_CONTRACT_EVENT_DELAY=N     cuEventQuery answers CUDA_ERROR_NOT_READY N times after each
 *                                    cuEventRecord (work "on" a stream is done at once; this lets
 *                                    tests see callers that wait for events as on a GPU)
 */
#ifndef MCOLL_CONTRACT_H
#define MCOLL_CONTRACT_H

#include <stddef.h>
#include <stdio.h>
#include <cuda.h>
#include "driver.h"
#include "fabric.h"

/* Devices are a bitmask in the multicast state shared between processes. */
#define MCOLL_CONTRACT_MAX_DEVICES 64

/* ---------------------------------------------------------------------------------------------
 * Configuration
 * ------------------------------------------------------------------------------------------- */
typedef struct mcoll_contract_config {
    int device_count;                          /* cuDeviceGetCount; default 8 */
    int driver_version;                        /* cuDriverGetVersion; default 13000 */
    int compute_major, compute_minor;          /* default 9.0 */
    int multiprocessor_count;                  /* default 132 */
    int multicast_supported;                   /* default 1, on every device */
    int vmm_supported;                         /* default 1 */
    int posix_fd_supported;                    /* default 1 */
    int fabric_supported;                      /* default 1 */
    int mps_enabled;                           /* CU_DEVICE_ATTRIBUTE_MPS_ENABLED; default 0 */
    int node_size;                             /* processes per modelled node: world rank / node_size
                                                  is a process's node (each with device_count GPUs
                                                  of its own); 0, the default: one node */
    size_t alloc_granularity_minimum;          /* cuMemGetAllocationGranularity; default 2 MiB */
    size_t alloc_granularity_recommended;      /* default 2 MiB */
    size_t multicast_granularity_minimum;      /* cuMulticastGetGranularity; default 2 MiB */
    size_t multicast_granularity_recommended;  /* default 512 MiB */
} mcoll_contract_config;

/* The defaults above, before the environment. */
void mcoll_contract_config_defaults(mcoll_contract_config *config);
/* The configuration in force (defaults, then environment, then mcoll_contract_configure). */
void mcoll_contract_get_config(mcoll_contract_config *config);
/* Replace the configuration; device attributes are rebuilt from it, so overrides made with
 * mcoll_contract_set_attribute are dropped. Granularities must be powers of two and multiples
 * of the page size, the device count 1..MCOLL_CONTRACT_MAX_DEVICES. Returns 0, or -1 (and
 * changes nothing) when a value is out of range. */
int mcoll_contract_configure(const mcoll_contract_config *config);
/* This process's modelled node (0 unless node_size is set); the node size takes effect at once. */
int mcoll_contract_node(void);
void mcoll_contract_set_node_size(int node_size);
/* What cuDeviceGetAttribute reports for one attribute of `device`, or of every device when
 * `device` is -1. Returns 0, or -1 for an attribute or device out of range. */
int mcoll_contract_set_attribute(int device, CUdevice_attribute attribute, int value);
/* Allocation granularities of one device (0, 0: the configuration's again), so that devices of
 * one machine can differ. cuMemGetAllocationGranularity, cuMemCreate and cuMemMap of that
 * device's memory use them. Powers of two, multiples of the page; returns 0 or -1. */
int mcoll_contract_set_granularity(int device, size_t minimum, size_t recommended);

/* ---------------------------------------------------------------------------------------------
 * Installation
 * ------------------------------------------------------------------------------------------- */
/* The model's table, every entry filled; self-tests call through it directly. */
const mcoll_driver *mcoll_contract_driver(void);
/* Fill a table with the model and hand it to mcoll_driver_install(). Call it before MPI_Init
 * (mcoll loads the driver table during MPI_Init) and before any other mcoll call. */
void mcoll_contract_install(void);

/* NVLink cliques of the modelled devices, as NVML's GPU fabric info reports them (cliques.c):
 * one "cluster:clique" or "-" per device, comma separated; with modelled nodes, one such list
 * per node separated by ';' (one list alone: every node's); also read from
 * MCOLL_CONTRACT_CLIQUE. mcoll_contract_install puts the query in place of NVML's. */
void mcoll_contract_set_cliques(const char *spec);
int mcoll_contract_fabric_query(const char *bus_id, mcoll_fabric_info *info);

/* ---------------------------------------------------------------------------------------------
 * Fault injection (this process only; each rank decides for itself)
 * ------------------------------------------------------------------------------------------- */
/* Make the nth invocation of `call` from now on (1 = the next one) return `err` instead of
 * succeeding; nth = 0 makes every invocation from now on fail. The call still checks its
 * arguments first (a broken rule is reported as such) and has no effect when it fails.
 * `call` is an entry name such as "cuMulticastBindMem". Returns 0, or -1 for an unknown name. */
int mcoll_contract_fail(const char *call, int nth, CUresult err);
/* The MCOLL_CONTRACT_FAIL syntax: rules separated by ',' or ';', each
 *     call:nth:ERROR[:rank]
 * ERROR as CUDA_ERROR_SYSTEM_NOT_READY, SYSTEM_NOT_READY or a number; rank (optional) limits
 * the rule to the process whose MPI world rank (OMPI_COMM_WORLD_RANK, PMIX_RANK, PMI_RANK) is
 * that number. Rules from the environment count invocations from the start of the process.
 * Returns the number of rules added, or -1 (and adds none) when the text is not valid. */
int mcoll_contract_fail_spec(const char *spec);
/* Forget every fault rule. */
void mcoll_contract_fail_clear(void);
/* Calls failed on purpose so far. */
long mcoll_contract_injected(void);
/* CUresult of an error name ("CUDA_ERROR_OUT_OF_MEMORY" or "OUT_OF_MEMORY"); 0 or -1. */
int mcoll_contract_error_from_name(const char *name, CUresult *err);
/* Name of a CUresult ("CUDA_ERROR_OUT_OF_MEMORY"), without counting as a driver call. */
const char *mcoll_contract_error_name(CUresult err);

/* ---------------------------------------------------------------------------------------------
 * Introspection
 * ------------------------------------------------------------------------------------------- */
/* Invocations of every entry whose name starts with `prefix` ("" or NULL: all), failed ones
 * included: mcoll_contract_calls("cuMulticast") counts every multicast call. */
long mcoll_contract_calls(const char *prefix);

/* The call log, oldest first: "cuMemMap(ptr=0x..., size=2097152, offset=0, handle=0x...,
 * flags=0) = CUDA_SUCCESS". Strings stay valid until mcoll_contract_reset. */
size_t mcoll_contract_log_length(void);
const char *mcoll_contract_log_line(size_t index);
const char *mcoll_contract_log_call(size_t index);     /* entry name only */
CUresult mcoll_contract_log_result(size_t index);
/* Index of the first entry at or after `from` whose name starts with `prefix`; -1 if none. */
long mcoll_contract_log_find(const char *prefix, size_t from);
void mcoll_contract_log_print(FILE *out);

/* Broken rules: the text names the call, its arguments, the rule and the error returned. */
int mcoll_contract_violations(void);
const char *mcoll_contract_violation(int index);
/* How many violations contain `text`. */
int mcoll_contract_violations_matching(const char *text);
void mcoll_contract_violations_print(FILE *out);

/* Objects alive in this process: allocations made with cuMemCreate, imported handles,
 * multicast objects created here, address reservations, mappings, exported file descriptors
 * still open here, cuMemAlloc buffers, host allocations, registered host ranges, streams and
 * events. Retained primary
 * contexts are not counted (see mcoll_contract_live("context")). */
int mcoll_contract_live_objects(void);
/* One kind: "allocation", "imported", "multicast", "reservation", "mapping", "exported_fd",
 * "device_memory", "host_memory", "host_registered", "stream", "event", "context"; -1 for an
 * unknown kind. */
int mcoll_contract_live(const char *kind);
void mcoll_contract_live_print(FILE *out);

/* ---------------------------------------------------------------------------------------------
 * Kernels (the model runs none; a test declares what a launched kernel would touch)
 * ------------------------------------------------------------------------------------------- */
/* A kernel on `stream` (NULL: the legacy stream) accesses [ptr, ptr+size), writing if `write`.
 * Checked as the GPU would: the range is mapped or driver-allocated and accessible for the
 * access (cuMemSetAccess), and where it is a multicast mapping, this device's memory is bound
 * under every byte. The range then stays in flight until cuStreamSynchronize of that stream,
 * or cuCtxSynchronize: cuMemUnmap of memory still in flight is a violation (NOT_PERMITTED).
 * Returns CUDA_SUCCESS, or the error with the violation recorded (entry name "kernel"). */
CUresult mcoll_contract_kernel_access(CUstream stream, CUdeviceptr ptr, size_t size, int write);

/* ---------------------------------------------------------------------------------------------
 * The order of queued work (the model runs nothing as it is queued, but follows what the GPU
 * would wait for: stream order, the legacy default stream's implicit synchronization with
 * blocking streams, events recorded and waited for; order.c)
 * ------------------------------------------------------------------------------------------- */
/* The last work queued on `stream` (copies, memsets, event records, declared kernels), as an id
 * for mcoll_contract_comes_after; 0 when none, or the stream is not followed. */
uint64_t mcoll_contract_last_work(CUstream stream);
/* 1 when work queued on `stream` now would wait for `work` to finish, 0 when it would not, -1
 * when that is not known (a stream not followed, work 0). */
int mcoll_contract_comes_after(CUstream stream, uint64_t work);

/* Forget counts, the log, violations and fault rules (objects and configuration stay). */
void mcoll_contract_reset(void);
/* 1: do not print violations to stderr as they happen (they are still recorded). */
void mcoll_contract_set_quiet(int quiet);

#endif /* MCOLL_CONTRACT_H */
