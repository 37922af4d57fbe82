/* Internals of the contract driver, shared by the files of tests/contract/model/.
 *
 * One lock guards the whole model: every entry point takes it in model_enter and gives it back
 * in model_leave or model_violation, so an entry point runs as one step even when several
 * threads call. Objects live in singly linked lists headed in `model`. */
#ifndef MCOLL_CONTRACT_MODEL_H
#define MCOLL_CONTRACT_MODEL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include "contract.h"

/* ---------------------------------------------------------------------------------------------
 * Entry points: one id per line of the driver table.
 * ------------------------------------------------------------------------------------------- */
#define MODEL_FN_ID(name, version) MODEL_##name,
typedef enum {
    MCOLL_DRIVER_REQUIRED(MODEL_FN_ID)
    MCOLL_DRIVER_VMM(MODEL_FN_ID)
    MCOLL_DRIVER_USER_MEMORY(MODEL_FN_ID)
    MCOLL_DRIVER_STREAM_WAIT(MODEL_FN_ID)
    MCOLL_DRIVER_MULTICAST(MODEL_FN_ID)
    MODEL_KERNEL,              /* not a driver entry: a kernel's use of memory (kernel.c) */
    MODEL_FN_COUNT
} model_fn;
#undef MODEL_FN_ID

extern const char *const model_fn_names[MODEL_FN_COUNT];
/* Id of an entry name, or -1. */
int model_fn_lookup(const char *name);

/* ---------------------------------------------------------------------------------------------
 * Objects
 * ------------------------------------------------------------------------------------------- */
typedef struct model_node {
    struct model_node *next;
} model_node;

void model_list_push(model_node **head, model_node *node);
void model_list_remove(model_node **head, model_node *node);
int model_list_length(const model_node *head);

enum { MODEL_KIND_ALLOCATION = 1, MODEL_KIND_MULTICAST = 2 };

/* Page 0 of every memfd the model creates; shared by every process that maps the object.
 * The data (allocation bytes, or the multicast object's backing) follows at one page. */
typedef struct model_object_header {
    uint64_t magic;
    uint64_t object_id;            /* unique on the node: creator pid << 32 | sequence */
    uint32_t kind;                 /* MODEL_KIND_* */
    int32_t device;                /* allocation: device it was created on */
    uint64_t size;                 /* bytes of data */
    uint64_t handle_types;         /* shareable types requested at creation */
    uint32_t num_devices;          /* multicast: team size */
    uint32_t creator_pid;
    int32_t creator_node;          /* the modelled node it was created on */
    _Atomic uint64_t devices_added;  /* multicast: bit model_global_device(d) set once device d
                                        of a node was added */
} model_object_header;

/* A generic allocation handle of this process (cuMemCreate, cuMulticastCreate, or import). */
typedef struct model_handle {
    model_node node;
    CUmemGenericAllocationHandle value;
    int fd;                        /* the memfd, or this process's copy of it */
    model_object_header *header;   /* page 0, mapped shared */
    int imported;
    int binds;                     /* allocation: binds (cuMulticastBindMem) still naming it */
    int retains;                   /* cuMemRetainAllocationHandle calls not yet released */
} model_handle;

typedef struct model_reservation {
    model_node node;
    uintptr_t base;
    size_t size;
} model_reservation;

typedef struct model_mapping {
    model_node node;
    uintptr_t va;
    size_t size;
    CUmemGenericAllocationHandle handle;  /* handle mapped (may be released since) */
    uint64_t object_id;
    uint32_t kind;
    int device;
    uint64_t handle_types;
    unsigned access;               /* CUmemAccess_flags granted; 0 until cuMemSetAccess */
    unsigned long long buffer_id;
    const model_reservation *reservation;
} model_mapping;

/* One cuMulticastBindMem / cuMulticastBindAddr of this process. */
typedef struct model_bind {
    model_node node;
    CUmemGenericAllocationHandle mc;
    CUmemGenericAllocationHandle mem;  /* BindMem: the allocation handle; BindAddr: 0 */
    uintptr_t mem_va;                  /* BindAddr: the bound address range */
    int device;
    size_t mc_offset, size;
} model_bind;

/* Where a device buffer came from: cuMemAlloc, cuIpcOpenMemHandle, cuExternalMemoryGetMappedBuffer. */
enum { MODEL_BUFFER_ALLOCATED = 0, MODEL_BUFFER_IPC_OPENED, MODEL_BUFFER_EXTERNAL };

/* cuMemAlloc buffers, cuMemHostAlloc buffers and cuMemHostRegister ranges. Device buffers are
 * memfd mappings (fd), so that another process can open them (user_memory.c). */
typedef struct model_buffer {
    model_node node;
    uintptr_t ptr;
    size_t size;
    int device;
    unsigned flags;                /* cuMemHostAlloc flags */
    unsigned long long buffer_id;
    int fd;                        /* device buffers: the memfd mapped at ptr */
    int origin;                    /* device buffers: MODEL_BUFFER_* */
    int opens;                     /* IPC-opened buffers: cuIpcOpenMemHandle calls not yet closed */
    unsigned long long dev, ino;   /* IPC-opened buffers: the exporter's file */
    unsigned ipc_pid;              /* IPC-opened buffers: the exporter, and the allocation's address */
    uint64_t ipc_base;             /*   there (ALREADY_MAPPED for a newer one over its range) */
} model_buffer;

/* Memory a kernel uses until its stream (or the context) is synchronized (kernel.c). */
typedef struct model_work {
    model_node node;
    CUstream stream;
    uintptr_t ptr;
    size_t size;
} model_work;

/* Streams and events: opaque objects identified by address. */
typedef struct model_token {
    model_node node;
    uint64_t magic;
    unsigned flags;
    int pending;                   /* events: cuEventQuery answers NOT_READY this many more times */
    int slot;                      /* streams: where order.c follows its work (-1: not followed) */
    uint32_t *stamp;               /* events: what the work before the last record waits for (order.c) */
} model_token;

/* A POSIX fd handed out by cuMemExportToShareableHandle; alive while that fd is still open in
 * this process and still names the same file. */
typedef struct model_exported_fd {
    model_node node;
    int fd;
    unsigned long long dev, ino;
} model_exported_fd;

/* ---------------------------------------------------------------------------------------------
 * State
 * ------------------------------------------------------------------------------------------- */
#define MODEL_ATTRIBUTE_COUNT ((int)CU_DEVICE_ATTRIBUTE_MAX)
#define MODEL_MAX_FAULTS 64

typedef struct model_fault {
    int fn;
    long base;                     /* invocations counted when the rule was set */
    int nth;                       /* 0: every invocation */
    CUresult err;
} model_fault;

typedef struct model_log_entry {
    model_fn fn;
    CUresult result;
    char line[320];
} model_log_entry;

typedef struct model_state {
    pthread_mutex_t lock;
    int initialized;               /* cuInit succeeded */
    mcoll_contract_config config;
    int attributes[MCOLL_CONTRACT_MAX_DEVICES][MODEL_ATTRIBUTE_COUNT];
    int context_retains[MCOLL_CONTRACT_MAX_DEVICES];

    long calls[MODEL_FN_COUNT];
    model_fault faults[MODEL_MAX_FAULTS];
    int fault_count;
    long injected;

    model_log_entry **log;
    size_t log_length, log_capacity;
    char **violations;
    int violation_count, violation_capacity;
    int quiet, trace, abort_on_violation;
    int event_delay;               /* queries of a recorded event that answer NOT_READY */

    model_node *handles, *reservations, *mappings, *binds;
    model_node *device_buffers, *host_buffers, *registered, *streams, *events, *exported_fds;
    model_node *work;              /* kernels' memory still in flight (kernel.c) */
    size_t granularity[MCOLL_CONTRACT_MAX_DEVICES][2]; /* per-device allocation MINIMUM and
                                                          RECOMMENDED; 0: the configuration's */
    uint64_t next_handle, next_object, next_buffer_id;
} model_state;

extern model_state model;

/* Defaults and environment, once; every entry and API function calls it first. */
void model_setup(void);
void model_apply_config(const mcoll_contract_config *config);   /* lock held */
int model_parse_fault_spec(const char *spec, int from_environment); /* lock held */

/* ---------------------------------------------------------------------------------------------
 * The call protocol
 *
 *     model_call call;
 *     CUresult rc = model_enter(&call, MODEL_cuMemMap, 1, "ptr=%#llx ...", ...);
 *     if (rc != CUDA_SUCCESS) return rc;                  // lock already released
 *     if (flags != 0) return model_violation(&call, CUDA_ERROR_INVALID_VALUE, "flags must be 0");
 *     if (model_injecting(&call)) return model_leave(&call, call.inject);
 *     ...effect...
 *     return model_leave(&call, CUDA_SUCCESS);
 * ------------------------------------------------------------------------------------------- */
typedef struct model_call {
    model_fn fn;
    model_log_entry *entry;        /* NULL when the log is full */
    CUresult inject;               /* error to return instead of succeeding, or CUDA_SUCCESS */
    int injected;                  /* this invocation failed on purpose */
    char args[200];
} model_call;

/* Lock, count, log, pick a fault rule; with needs_init, reject calls before cuInit. */
CUresult model_enter(model_call *call, model_fn fn, int needs_init, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Record a broken rule (naming the call, its arguments and the rule), unlock, return err. */
CUresult model_violation(model_call *call, CUresult err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Record the result, unlock, return rc. */
CUresult model_leave(model_call *call, CUresult rc);
/* 1 when this invocation must fail with call->inject (counted as injected). */
int model_injecting(model_call *call);

/* ---------------------------------------------------------------------------------------------
 * Helpers (lock held)
 * ------------------------------------------------------------------------------------------- */
size_t model_page_size(void);
int model_bit_count(uint64_t mask);
int model_valid_device(int device);
/* The MPI world rank from the launcher's environment (-1 when none), this process's modelled
 * node (config.node_size), and a device's index among the GPUs of every node (multicast teams
 * span nodes: bit node * device_count + device). */
int model_launcher_rank(void);
int model_this_node(void);
int model_global_device(int device);
int model_attribute(int device, CUdevice_attribute attribute);
int model_any_device_has(CUdevice_attribute attribute);
const char *model_error_name(CUresult err);

/* The calling thread's current device, or -1 without a current context. */
int model_current_device(void);
CUcontext model_context_of(int device);

uint64_t model_new_handle_value(void);
uint64_t model_new_object_id(void);
unsigned long long model_new_buffer_id(void);

/* Find a handle of this process. On failure *why says why (released, another process's
 * handle, never existed). */
model_handle *model_find_handle(CUmemGenericAllocationHandle value, const char **why);

/* Shareable objects (shareable.c). */
CUresult model_object_create(uint32_t kind, size_t size, int device, uint64_t handle_types,
                             uint32_t num_devices, model_handle **out);
void model_object_close(model_handle *handle);
void model_forget_exported_fd(int fd);

/* Allocation granularity of `device` (MINIMUM, or RECOMMENDED when `recommended`). */
size_t model_alloc_granularity(int device, int recommended);

/* Kernels' work in flight (kernel.c): forget the work of `stream` (NULL: of every stream), as a
 * synchronization does; the in-flight range overlapping [ptr, ptr+size), or NULL. */
void model_work_done(CUstream stream, int every_stream);
const model_work *model_work_overlapping(uintptr_t ptr, size_t size);
/* Device memory in a memfd (user_memory.c): `size` bytes at *ptr, mapped from `offset` of `fd`
 * (a new memfd when fd < 0; the buffer owns the fd either way). NULL when out of memory. */
model_buffer *model_shared_buffer(int fd, size_t offset, size_t size, int device, int origin);
void model_shared_buffer_free(model_buffer *buffer);

/* The mapping containing address `va`, or NULL. */
model_mapping *model_find_mapping(uintptr_t va);
model_reservation *model_find_reservation(uintptr_t va, size_t size);

/* Check that [ptr, ptr+len) is memory the device side may touch: cuMemAlloc, host
 * allocations, registered host memory, or mappings made accessible with cuMemSetAccess (for writing if `write`).
 * `device_side`: the pointer must be driver memory; otherwise plain host memory is also fine.
 * Returns NULL when usable, else a reason. */
const char *model_check_range(uintptr_t ptr, size_t len, int write, int device_side);

/* Valid stream / event (NULL and the legacy/per-thread streams count as valid streams). */
int model_valid_stream(CUstream stream);
/* The token of a stream of cuStreamCreate, or NULL. */
model_token *model_find_stream(CUstream stream);

/* The order of queued work (order.c): a stream made or destroyed, work queued on a stream, an
 * event recorded on one, a stream made to wait for an event. */
void model_order_created(model_token *stream);
void model_order_destroyed(model_token *stream);
void model_order_queue(CUstream stream);
void model_order_record(model_token *event, CUstream stream);
void model_order_wait(CUstream stream, const model_token *event);
int model_valid_event(CUevent event);

/* ---------------------------------------------------------------------------------------------
 * The entry points (one file per area); install.c puts them in the table.
 * ------------------------------------------------------------------------------------------- */
/* devices.c */
CUresult model_cuInit(unsigned int flags);
CUresult model_cuDriverGetVersion(int *version);
CUresult model_cuDeviceGet(CUdevice *device, int ordinal);
CUresult model_cuDeviceGetCount(int *count);
CUresult model_cuDeviceGetAttribute(int *value, CUdevice_attribute attribute, CUdevice device);
CUresult model_cuDeviceGetPCIBusId(char *bus_id, int len, CUdevice device);
CUresult model_cuDeviceGetUuid(CUuuid *uuid, CUdevice device);
CUresult model_cuDevicePrimaryCtxRetain(CUcontext *context, CUdevice device);
CUresult model_cuDevicePrimaryCtxRelease(CUdevice device);
CUresult model_cuCtxGetCurrent(CUcontext *context);
CUresult model_cuCtxSetCurrent(CUcontext context);
CUresult model_cuCtxGetDevice(CUdevice *device);
CUresult model_cuCtxSynchronize(void);
/* errors.c */
CUresult model_cuGetErrorString(CUresult error, const char **text);
CUresult model_cuGetErrorName(CUresult error, const char **text);
/* pointers.c */
CUresult model_cuPointerGetAttributes(unsigned int count, CUpointer_attribute *attributes,
                                      void **data, CUdeviceptr ptr);
CUresult model_cuPointerGetAttribute(void *data, CUpointer_attribute attribute, CUdeviceptr ptr);
/* memory.c */
CUresult model_cuMemAlloc(CUdeviceptr *ptr, size_t size);
CUresult model_cuMemFree(CUdeviceptr ptr);
CUresult model_cuMemHostAlloc(void **ptr, size_t size, unsigned int flags);
CUresult model_cuMemFreeHost(void *ptr);
CUresult model_cuMemHostGetDevicePointer(CUdeviceptr *dptr, void *p, unsigned int flags);
CUresult model_cuMemHostRegister(void *ptr, size_t size, unsigned int flags);
CUresult model_cuMemHostUnregister(void *ptr);
CUresult model_cuMemcpyDtoHAsync(void *dst, CUdeviceptr src, size_t bytes, CUstream stream);
CUresult model_cuMemcpyHtoDAsync(CUdeviceptr dst, const void *src, size_t bytes, CUstream stream);
CUresult model_cuMemcpyDtoDAsync(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream stream);
CUresult model_cuMemsetD8Async(CUdeviceptr dst, unsigned char value, size_t count,
                               CUstream stream);
/* streams.c */
CUresult model_cuStreamCreate(CUstream *stream, unsigned int flags);
CUresult model_cuStreamDestroy(CUstream stream);
CUresult model_cuStreamSynchronize(CUstream stream);
CUresult model_cuStreamQuery(CUstream stream);
CUresult model_cuStreamWaitValue32(CUstream stream, CUdeviceptr addr, cuuint32_t value, unsigned int flags);
CUresult model_cuStreamIsCapturing(CUstream stream, CUstreamCaptureStatus *status);
CUresult model_cuEventCreate(CUevent *event, unsigned int flags);
CUresult model_cuEventDestroy(CUevent event);
CUresult model_cuEventRecord(CUevent event, CUstream stream);
CUresult model_cuStreamWaitEvent(CUstream stream, CUevent event, unsigned int flags);
CUresult model_cuEventSynchronize(CUevent event);
CUresult model_cuEventQuery(CUevent event);
/* vmm.c */
CUresult model_cuMemCreate(CUmemGenericAllocationHandle *handle, size_t size,
                           const CUmemAllocationProp *prop, unsigned long long flags);
CUresult model_cuMemRelease(CUmemGenericAllocationHandle handle);
CUresult model_cuMemGetAllocationGranularity(size_t *granularity, const CUmemAllocationProp *prop,
                                             CUmemAllocationGranularity_flags option);
CUresult model_cuMemAddressReserve(CUdeviceptr *ptr, size_t size, size_t alignment,
                                   CUdeviceptr addr, unsigned long long flags);
CUresult model_cuMemAddressFree(CUdeviceptr ptr, size_t size);
CUresult model_cuMemMap(CUdeviceptr ptr, size_t size, size_t offset,
                        CUmemGenericAllocationHandle handle, unsigned long long flags);
CUresult model_cuMemUnmap(CUdeviceptr ptr, size_t size);
CUresult model_cuMemSetAccess(CUdeviceptr ptr, size_t size, const CUmemAccessDesc *desc,
                              size_t count);
/* shareable.c */
CUresult model_cuMemExportToShareableHandle(void *shareable, CUmemGenericAllocationHandle handle,
                                            CUmemAllocationHandleType type,
                                            unsigned long long flags);
CUresult model_cuMemImportFromShareableHandle(CUmemGenericAllocationHandle *handle,
                                              void *os_handle, CUmemAllocationHandleType type);
/* user_memory.c */
CUresult model_cuMemRetainAllocationHandle(CUmemGenericAllocationHandle *handle, void *addr);
CUresult model_cuIpcGetMemHandle(CUipcMemHandle *handle, CUdeviceptr dptr);
CUresult model_cuIpcOpenMemHandle(CUdeviceptr *dptr, CUipcMemHandle handle, unsigned int flags);
CUresult model_cuIpcCloseMemHandle(CUdeviceptr dptr);
CUresult model_cuImportExternalMemory(CUexternalMemory *ext, const CUDA_EXTERNAL_MEMORY_HANDLE_DESC *desc);
CUresult model_cuExternalMemoryGetMappedBuffer(CUdeviceptr *dptr, CUexternalMemory ext,
                                               const CUDA_EXTERNAL_MEMORY_BUFFER_DESC *desc);
CUresult model_cuDestroyExternalMemory(CUexternalMemory ext);
/* multicast.c */
CUresult model_cuMulticastGetGranularity(size_t *granularity, const CUmulticastObjectProp *prop,
                                         CUmulticastGranularity_flags option);
CUresult model_cuMulticastCreate(CUmemGenericAllocationHandle *mc,
                                 const CUmulticastObjectProp *prop);
CUresult model_cuMulticastAddDevice(CUmemGenericAllocationHandle mc, CUdevice device);
CUresult model_cuMulticastBindMem(CUmemGenericAllocationHandle mc, size_t mc_offset,
                                  CUmemGenericAllocationHandle mem, size_t mem_offset,
                                  size_t size, unsigned long long flags);
CUresult model_cuMulticastBindAddr(CUmemGenericAllocationHandle mc, size_t mc_offset,
                                   CUdeviceptr memptr, size_t size, unsigned long long flags);
CUresult model_cuMulticastUnbind(CUmemGenericAllocationHandle mc, CUdevice device,
                                 size_t mc_offset, size_t size);

#endif /* MCOLL_CONTRACT_MODEL_H */
