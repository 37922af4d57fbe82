/* Every rule the contract model enforces, broken on purpose, one at a time: the call must
 * return the documented error, record exactly one violation whose text names the rule, and
 * leave the set of live objects unchanged. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include "contract/check.h"

#define MIB ((size_t)1 << 20)
#define POSIX_FD CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR
#define FABRIC CU_MEM_HANDLE_TYPE_FABRIC

static const mcoll_driver *cu;
static int rules_checked;

static void rule_check(const char *call, CUresult rc, CUresult expected, const char *fragment,
                       int violations_before, int live_before, const char *file, int line)
{
    int ok = 1;
    if (rc != expected) {
        fprintf(stderr, "%s:%d: %s returned %s, expected %s\n", file, line, call,
                check_error_name(rc), check_error_name(expected));
        ok = 0;
    }
    int violations = mcoll_contract_violations();
    const char *text = violations > 0 ? mcoll_contract_violation(violations - 1) : NULL;
    if (violations != violations_before + 1) {
        fprintf(stderr, "%s:%d: %s recorded %d violations, expected 1\n", file, line, call,
                violations - violations_before);
        ok = 0;
    } else if (!strstr(text, fragment) || !strstr(text, check_error_name(expected))) {
        fprintf(stderr, "%s:%d: violation \"%s\" does not say \"%s\"\n", file, line, text, fragment);
        ok = 0;
    }
    if (mcoll_contract_live_objects() != live_before) {
        fprintf(stderr, "%s:%d: %s changed the live objects (%d -> %d)\n", file, line, call,
                live_before, mcoll_contract_live_objects());
        ok = 0;
    }
    if (!ok) check_failures++;
    rules_checked++;
}

/* `call` breaks one rule: it returns `expected` and records one violation containing `fragment`. */
#define RULE(call, expected, fragment)                                                       \
    do {                                                                                     \
        int rule_violations_ = mcoll_contract_violations();                                  \
        int rule_live_ = mcoll_contract_live_objects();                                      \
        CUresult rule_rc_ = (call);                                                          \
        rule_check(#call, rule_rc_, expected, fragment, rule_violations_, rule_live_,        \
                   __FILE__, __LINE__);                                                      \
    } while (0)

static CUmemAllocationProp allocation_prop(int device, unsigned long long types)
{
    CUmemAllocationProp prop;
    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = device;
    prop.requestedHandleTypes = (CUmemAllocationHandleType)types;
    return prop;
}

static CUmemAccessDesc access_desc(int device, CUmemAccess_flags flags)
{
    CUmemAccessDesc desc;
    memset(&desc, 0, sizeof desc);
    desc.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    desc.location.id = device;
    desc.flags = flags;
    return desc;
}

static CUmemGenericAllocationHandle create(int device, size_t size, unsigned long long types)
{
    CUmemGenericAllocationHandle handle = 0;
    CUmemAllocationProp prop = allocation_prop(device, types);
    CHECK_OK(cu->cuMemCreate(&handle, size, &prop, 0));
    return handle;
}

static CUdeviceptr reserve(size_t size)
{
    CUdeviceptr va = 0;
    CHECK_OK(cu->cuMemAddressReserve(&va, size, 0, 0, 0));
    return va;
}

static CUmulticastObjectProp multicast_prop(unsigned devices, size_t size, unsigned long long types)
{
    CUmulticastObjectProp prop;
    memset(&prop, 0, sizeof prop);
    prop.numDevices = devices;
    prop.size = size;
    prop.handleTypes = types;
    return prop;
}

static void rules_before_init(void)
{
    int count = 0;
    RULE(cu->cuDeviceGetCount(&count), CUDA_ERROR_NOT_INITIALIZED, "cuInit was not called");
    CUmemGenericAllocationHandle handle = 0;
    CUmemAllocationProp prop = allocation_prop(0, 0);
    RULE(cu->cuMemCreate(&handle, 2 * MIB, &prop, 0), CUDA_ERROR_NOT_INITIALIZED, "cuInit");
    RULE(cu->cuInit(1), CUDA_ERROR_INVALID_VALUE, "Flags must be 0");
    CHECK_OK(cu->cuInit(0));
}

static void rules_devices_and_contexts(void)
{
    CUdevice dev = 0;
    CUcontext context = NULL;
    int value = 0;
    RULE(cu->cuDeviceGet(&dev, 8), CUDA_ERROR_INVALID_DEVICE, "ordinal not in [0, 8)");
    RULE(cu->cuDeviceGetAttribute(&value, CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED, -1),
         CUDA_ERROR_INVALID_DEVICE, "no device -1");
    RULE(cu->cuDevicePrimaryCtxRelease(6), CUDA_ERROR_INVALID_CONTEXT,
         "released more often than retained");
    CHECK_OK(cu->cuDevicePrimaryCtxRetain(&context, 6));
    CHECK_OK(cu->cuDevicePrimaryCtxRelease(6));
    RULE(cu->cuCtxSetCurrent(context), CUDA_ERROR_INVALID_CONTEXT, "is not retained");
    RULE(cu->cuCtxGetDevice(&dev), CUDA_ERROR_INVALID_CONTEXT, "no current context");
    CUdeviceptr dptr = 0;
    RULE(cu->cuMemAlloc(&dptr, 64), CUDA_ERROR_INVALID_CONTEXT, "no current context");
    CHECK_OK(cu->cuDevicePrimaryCtxRetain(&context, 0));
    CHECK_OK(cu->cuCtxSetCurrent(context));
}

static void rules_buffers_and_copies(void)
{
    CUdeviceptr dptr = 0;
    char host[64] = {0};
    CHECK_OK(cu->cuMemAlloc(&dptr, 64));
    RULE(cu->cuMemFree(dptr + 8), CUDA_ERROR_INVALID_VALUE, "not the start of a cuMemAlloc buffer");
    RULE(cu->cuMemcpyHtoDAsync((CUdeviceptr)(uintptr_t)host, host, 8, NULL),
         CUDA_ERROR_INVALID_VALUE, "not memory of this driver");
    RULE(cu->cuMemcpyHtoDAsync(dptr + 32, host, 64, NULL), CUDA_ERROR_INVALID_VALUE,
         "runs past the end of the buffer");
    RULE(cu->cuMemcpyDtoHAsync(host, dptr, 8, (CUstream)(uintptr_t)0x1234),
         CUDA_ERROR_INVALID_HANDLE, "unknown stream");
    RULE(cu->cuStreamDestroy((CUstream)(uintptr_t)0x1234), CUDA_ERROR_INVALID_HANDLE,
         "not a stream of cuStreamCreate");
    RULE(cu->cuEventRecord((CUevent)(uintptr_t)0x1234, NULL), CUDA_ERROR_INVALID_HANDLE,
         "unknown event");
    RULE(cu->cuStreamWaitEvent(NULL, (CUevent)(uintptr_t)0x1234, 0), CUDA_ERROR_INVALID_HANDLE, "unknown event");
    {
        CUevent event = NULL;
        CHECK_OK(cu->cuEventCreate(&event, 0));
        RULE(cu->cuStreamWaitEvent(NULL, event, 1), CUDA_ERROR_INVALID_VALUE, "flags must be 0");
        RULE(cu->cuStreamWaitEvent((CUstream)(uintptr_t)0x1234, event, 0), CUDA_ERROR_INVALID_HANDLE,
             "unknown stream");
        CHECK_OK(cu->cuEventDestroy(event));
    }
    RULE(cu->cuPointerGetAttribute(NULL, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, dptr),
         CUDA_ERROR_INVALID_VALUE, "data is NULL");
    CHECK_OK(cu->cuMemFree(dptr));

    static char page[8192];
    void *pinned = NULL;
    CHECK_OK(cu->cuMemHostRegister(page, sizeof page, 0));
    RULE(cu->cuMemHostRegister(page + 4096, 4096, 0), CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED,
         "overlaps the registered range");
    RULE(cu->cuMemHostUnregister(page + 4096), CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED,
         "not the base address");
    CHECK_OK(cu->cuMemHostUnregister(page));
    RULE(cu->cuMemFreeHost(page), CUDA_ERROR_INVALID_VALUE, "not the start of a cuMemHostAlloc");
    RULE(cu->cuMemHostAlloc(&pinned, 64, 0x100), CUDA_ERROR_INVALID_VALUE, "unknown flags");
}

static void rules_allocation(void)
{
    CUmemGenericAllocationHandle handle = 0;
    CUmemAllocationProp prop = allocation_prop(0, POSIX_FD);
    RULE(cu->cuMemCreate(&handle, 2 * MIB, &prop, 1), CUDA_ERROR_INVALID_VALUE, "flags must be 0");
    RULE(cu->cuMemCreate(&handle, 3 * MIB, &prop, 0), CUDA_ERROR_INVALID_VALUE,
         "multiple of the MINIMUM allocation granularity");
    RULE(cu->cuMemCreate(&handle, 0, &prop, 0), CUDA_ERROR_INVALID_VALUE, "non-zero multiple");
    prop.location.id = 8;
    RULE(cu->cuMemCreate(&handle, 2 * MIB, &prop, 0), CUDA_ERROR_INVALID_DEVICE,
         "location.id 8 is not a device");
    prop = allocation_prop(0, 0);
    prop.type = CU_MEM_ALLOCATION_TYPE_INVALID;
    RULE(cu->cuMemCreate(&handle, 2 * MIB, &prop, 0), CUDA_ERROR_INVALID_VALUE,
         "CU_MEM_ALLOCATION_TYPE_PINNED");
    prop = allocation_prop(0, CU_MEM_HANDLE_TYPE_WIN32);
    RULE(cu->cuMemCreate(&handle, 2 * MIB, &prop, 0), CUDA_ERROR_INVALID_VALUE,
         "requestedHandleTypes may hold only");
    size_t granularity = 0;
    RULE(cu->cuMemGetAllocationGranularity(&granularity, &prop, (CUmemAllocationGranularity_flags)7),
         CUDA_ERROR_INVALID_VALUE, "unknown option");

    /* Features the device says it lacks. */
    mcoll_contract_set_attribute(-1, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED, 0);
    prop = allocation_prop(0, POSIX_FD | FABRIC);
    RULE(cu->cuMemCreate(&handle, 2 * MIB, &prop, 0), CUDA_ERROR_NOT_SUPPORTED,
         "HANDLE_TYPE_FABRIC_SUPPORTED = 0");
    mcoll_contract_set_attribute(-1, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED, 1);
    mcoll_contract_set_attribute(3, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED, 0);
    prop = allocation_prop(3, POSIX_FD);
    RULE(cu->cuMemCreate(&handle, 2 * MIB, &prop, 0), CUDA_ERROR_NOT_SUPPORTED,
         "HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED = 0");
    mcoll_contract_set_attribute(3, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED, 1);
    mcoll_contract_set_attribute(3, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, 0);
    prop = allocation_prop(3, 0);
    RULE(cu->cuMemCreate(&handle, 2 * MIB, &prop, 0), CUDA_ERROR_NOT_SUPPORTED,
         "VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED = 0");
    mcoll_contract_set_attribute(3, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, 1);
}

static void rules_reserve_map_access(void)
{
    CUdeviceptr va = 0;
    RULE(cu->cuMemAddressReserve(&va, 4 * MIB, 3 * MIB, 0, 0), CUDA_ERROR_INVALID_VALUE,
         "alignment must be a power of two");
    RULE(cu->cuMemAddressReserve(&va, 4 * MIB, 0, 0, 1), CUDA_ERROR_INVALID_VALUE, "flags must be 0");
    RULE(cu->cuMemAddressReserve(&va, 100, 0, 0, 0), CUDA_ERROR_INVALID_VALUE,
         "multiple of the host page size");

    CUmemGenericAllocationHandle handle = create(0, 2 * MIB, POSIX_FD);
    va = reserve(8 * MIB);
    RULE(cu->cuMemMap(va, 2 * MIB, 2 * MIB, handle, 0), CUDA_ERROR_INVALID_VALUE, "offset must be 0");
    RULE(cu->cuMemMap(va, 2 * MIB, 0, handle, 1), CUDA_ERROR_INVALID_VALUE, "flags must be 0");
    RULE(cu->cuMemMap(va + 4096, 2 * MIB, 0, handle, 0), CUDA_ERROR_INVALID_VALUE,
         "multiples of the allocation MINIMUM granularity");
    RULE(cu->cuMemMap(va, MIB, 0, handle, 0), CUDA_ERROR_INVALID_VALUE,
         "multiples of the allocation MINIMUM granularity");
    RULE(cu->cuMemMap(va, 4 * MIB, 0, handle, 0), CUDA_ERROR_INVALID_VALUE,
         "offset + size exceeds the allocation");
    RULE(cu->cuMemMap(va + 8 * MIB, 2 * MIB, 0, handle, 0), CUDA_ERROR_INVALID_VALUE,
         "not inside one cuMemAddressReserve range");
    CUmemGenericAllocationHandle foreign = ((CUmemGenericAllocationHandle)(getpid() + 1) << 32) | 1;
    RULE(cu->cuMemMap(va, 2 * MIB, 0, foreign, 0), CUDA_ERROR_INVALID_VALUE,
         "handle was made by another process");

    /* Before cuMemSetAccess the range is mapped but not accessible. */
    CUmemAccessDesc desc = access_desc(0, CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
    RULE(cu->cuMemSetAccess(va, 2 * MIB, &desc, 1), CUDA_ERROR_INVALID_VALUE,
         "cuMemMap before cuMemSetAccess");
    CHECK_OK(cu->cuMemMap(va, 2 * MIB, 0, handle, 0));
    RULE(cu->cuMemMap(va, 2 * MIB, 0, handle, 0), CUDA_ERROR_INVALID_VALUE, "already mapped");
    RULE(cu->cuMemsetD8Async(va, 1, 16, NULL), CUDA_ERROR_INVALID_VALUE,
         "not writable (cuMemSetAccess with PROT_READWRITE first)");
    RULE(cu->cuMemSetAccess(va, 4 * MIB, &desc, 1), CUDA_ERROR_INVALID_VALUE, "is not mapped");
    RULE(cu->cuMemSetAccess(va, MIB, &desc, 1), CUDA_ERROR_INVALID_VALUE,
         "covers part of the mapping");
    CUmemAccessDesc bad = access_desc(9, CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
    RULE(cu->cuMemSetAccess(va, 2 * MIB, &bad, 1), CUDA_ERROR_INVALID_DEVICE,
         "location.id 9 is not a device");
    bad = access_desc(0, (CUmemAccess_flags)2);
    RULE(cu->cuMemSetAccess(va, 2 * MIB, &bad, 1), CUDA_ERROR_INVALID_VALUE,
         "not a CUmemAccess_flags value");
    RULE(cu->cuMemSetAccess(va, 2 * MIB, NULL, 0), CUDA_ERROR_INVALID_VALUE, "desc is NULL");
    CUmemAccessDesc read_only = access_desc(0, CU_MEM_ACCESS_FLAGS_PROT_READ);
    CHECK_OK(cu->cuMemSetAccess(va, 2 * MIB, &read_only, 1));
    char host[16];
    CHECK_OK(cu->cuMemcpyDtoHAsync(host, va, sizeof host, NULL));
    RULE(cu->cuMemcpyHtoDAsync(va, host, sizeof host, NULL), CUDA_ERROR_INVALID_VALUE,
         "not writable");

    RULE(cu->cuMemUnmap(va, MIB), CUDA_ERROR_INVALID_VALUE, "cannot unmap part of the mapping");
    RULE(cu->cuMemUnmap(va + 4 * MIB, 2 * MIB), CUDA_ERROR_INVALID_VALUE, "nothing is mapped");
    RULE(cu->cuMemAddressFree(va, 8 * MIB), CUDA_ERROR_NOT_PERMITTED,
         "cuMemUnmap before cuMemAddressFree");
    CHECK_OK(cu->cuMemUnmap(va, 2 * MIB));
    RULE(cu->cuMemAddressFree(va, 4 * MIB), CUDA_ERROR_INVALID_VALUE,
         "exactly those of a cuMemAddressReserve range");
    RULE(cu->cuMemcpyHtoDAsync(va, host, sizeof host, NULL), CUDA_ERROR_INVALID_VALUE,
         "reserved but not mapped");
    CHECK_OK(cu->cuMemRelease(handle));
    RULE(cu->cuMemMap(va, 2 * MIB, 0, handle, 0), CUDA_ERROR_INVALID_VALUE,
         "handle was already released");
    RULE(cu->cuMemRelease(handle), CUDA_ERROR_INVALID_VALUE, "handle was already released");
    CHECK_OK(cu->cuMemAddressFree(va, 8 * MIB));
}

/* This process as the one of world rank `node` on modelled nodes of one rank each (0: back
 * to the one node). */
static void on_node(int node)
{
    char rank[8];
    snprintf(rank, sizeof rank, "%d", node);
    if (node) setenv("OMPI_COMM_WORLD_RANK", rank, 1);
    else unsetenv("OMPI_COMM_WORLD_RANK");
    mcoll_contract_set_node_size(node ? 1 : 0);
}

static void rules_export_import(void)
{
    CUmemGenericAllocationHandle posix_only = create(1, 2 * MIB, POSIX_FD);
    CUmemGenericAllocationHandle fabric_only = create(1, 2 * MIB, FABRIC);
    CUmemGenericAllocationHandle imported = 0;
    CUmemFabricHandle fabric;
    int fd = -1;
    RULE(cu->cuMemExportToShareableHandle(&fabric, posix_only, FABRIC, 0), CUDA_ERROR_INVALID_VALUE,
         "was not requested when the allocation was created");
    RULE(cu->cuMemExportToShareableHandle(&fd, fabric_only, POSIX_FD, 0), CUDA_ERROR_INVALID_VALUE,
         "was not requested when the allocation was created");
    RULE(cu->cuMemExportToShareableHandle(&fd, posix_only, POSIX_FD, 1), CUDA_ERROR_INVALID_VALUE,
         "flags must be 0");
    RULE(cu->cuMemExportToShareableHandle(&fd, posix_only, CU_MEM_HANDLE_TYPE_WIN32, 0),
         CUDA_ERROR_INVALID_VALUE, "POSIX_FILE_DESCRIPTOR or FABRIC on Linux");

    int devnull = open("/dev/null", O_RDONLY);
    RULE(cu->cuMemImportFromShareableHandle(&imported, (void *)(uintptr_t)devnull, POSIX_FD),
         CUDA_ERROR_INVALID_VALUE, "does not name an object exported by this driver");
    close(devnull);
    RULE(cu->cuMemImportFromShareableHandle(&imported, (void *)(uintptr_t)1000000, POSIX_FD),
         CUDA_ERROR_INVALID_VALUE, "not an open file descriptor");
    memset(&fabric, 0x5a, sizeof fabric);
    RULE(cu->cuMemImportFromShareableHandle(&imported, &fabric, FABRIC), CUDA_ERROR_INVALID_VALUE,
         "not a fabric handle exported by this driver");

    /* A fabric handle is good only while its exporter still holds the object. */
    CHECK_OK(cu->cuMemExportToShareableHandle(&fabric, fabric_only, FABRIC, 0));
    CHECK_OK(cu->cuMemRelease(fabric_only));
    RULE(cu->cuMemImportFromShareableHandle(&imported, &fabric, FABRIC), CUDA_ERROR_INVALID_VALUE,
         "no longer holds the object");

    mcoll_contract_set_attribute(-1, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED, 0);
    RULE(cu->cuMemImportFromShareableHandle(&imported, &fabric, FABRIC), CUDA_ERROR_NOT_SUPPORTED,
         "HANDLE_TYPE_FABRIC_SUPPORTED is 0");
    mcoll_contract_set_attribute(-1, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED, 1);

    /* Nodes: a descriptor exported on node 0 is refused on node 1, a fabric handle is not. */
    CUmemGenericAllocationHandle both = create(1, 2 * MIB, POSIX_FD | FABRIC);
    CHECK_OK(cu->cuMemExportToShareableHandle(&fd, both, POSIX_FD, 0));
    CHECK_OK(cu->cuMemExportToShareableHandle(&fabric, both, FABRIC, 0));
    on_node(1);
    RULE(cu->cuMemImportFromShareableHandle(&imported, (void *)(uintptr_t)fd, POSIX_FD), CUDA_ERROR_INVALID_VALUE,
         "does not cross nodes");
    CHECK_OK(cu->cuMemImportFromShareableHandle(&imported, &fabric, FABRIC));
    CHECK_OK(cu->cuMemRelease(imported));
    on_node(0);
    close(fd);
    CHECK_OK(cu->cuMemRelease(both));
    CHECK_OK(cu->cuMemRelease(posix_only));
}

static void rules_multicast_create(void)
{
    CUmemGenericAllocationHandle mc = 0;
    CUmulticastObjectProp prop = multicast_prop(2, 2 * MIB, POSIX_FD);
    size_t granularity = 0;
    RULE(cu->cuMulticastGetGranularity(&granularity, &prop, (CUmulticastGranularity_flags)5),
         CUDA_ERROR_INVALID_VALUE, "unknown option");
    prop.numDevices = 0;
    RULE(cu->cuMulticastCreate(&mc, &prop), CUDA_ERROR_INVALID_VALUE, "numDevices must be 1..");
    prop = multicast_prop(2, 3 * MIB, POSIX_FD);
    RULE(cu->cuMulticastCreate(&mc, &prop), CUDA_ERROR_INVALID_VALUE,
         "multiple of the multicast MINIMUM granularity");
    prop = multicast_prop(2, 2 * MIB, POSIX_FD);
    prop.flags = 1;
    RULE(cu->cuMulticastCreate(&mc, &prop), CUDA_ERROR_INVALID_VALUE, "prop->flags must be 0");
    prop = multicast_prop(2, 2 * MIB, 0x10);
    RULE(cu->cuMulticastCreate(&mc, &prop), CUDA_ERROR_INVALID_VALUE, "handleTypes may hold only");

    mcoll_contract_set_attribute(-1, CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED, 0);
    prop = multicast_prop(2, 2 * MIB, POSIX_FD);
    RULE(cu->cuMulticastGetGranularity(&granularity, &prop, CU_MULTICAST_GRANULARITY_MINIMUM),
         CUDA_ERROR_NOT_SUPPORTED, "MULTICAST_SUPPORTED");
    RULE(cu->cuMulticastCreate(&mc, &prop), CUDA_ERROR_NOT_SUPPORTED, "MULTICAST_SUPPORTED");
    mcoll_contract_set_attribute(-1, CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED, 1);
    mcoll_contract_set_attribute(-1, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED, 0);
    prop = multicast_prop(2, 2 * MIB, FABRIC);
    RULE(cu->cuMulticastCreate(&mc, &prop), CUDA_ERROR_NOT_SUPPORTED, "fabric handles requested");
    mcoll_contract_set_attribute(-1, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED, 1);

    /* Export needs the type asked for at creation. */
    prop = multicast_prop(2, 2 * MIB, POSIX_FD);
    CHECK_OK(cu->cuMulticastCreate(&mc, &prop));
    CUmemFabricHandle fabric;
    RULE(cu->cuMemExportToShareableHandle(&fabric, mc, FABRIC, 0), CUDA_ERROR_INVALID_VALUE,
         "was not requested when the multicast object was created");
    CHECK_OK(cu->cuMemRelease(mc));
}

static void rules_multicast_team_and_bind(void)
{
    CUmulticastObjectProp prop = multicast_prop(2, 4 * MIB, POSIX_FD);
    CUmemGenericAllocationHandle mc = 0;
    CHECK_OK(cu->cuMulticastCreate(&mc, &prop));
    CUmemGenericAllocationHandle mem0 = create(0, 4 * MIB, POSIX_FD);
    CUmemGenericAllocationHandle mem1 = create(1, 4 * MIB, POSIX_FD);
    CUmemGenericAllocationHandle plain2 = create(2, 4 * MIB, 0);
    CUmemGenericAllocationHandle shared2 = create(2, 4 * MIB, POSIX_FD);

    RULE(cu->cuMulticastAddDevice(mc, 8), CUDA_ERROR_INVALID_DEVICE, "no device 8");
    RULE(cu->cuMulticastAddDevice(mem0, 0), CUDA_ERROR_INVALID_VALUE,
         "mcHandle is an allocation, not a multicast object");
    mcoll_contract_set_attribute(4, CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED, 0);
    RULE(cu->cuMulticastAddDevice(mc, 4), CUDA_ERROR_NOT_SUPPORTED,
         "device 4 reports CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED = 0");
    mcoll_contract_set_attribute(4, CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED, 1);
    CHECK_OK(cu->cuMulticastAddDevice(mc, 0));
    RULE(cu->cuMulticastAddDevice(mc, 0), CUDA_ERROR_INVALID_VALUE, "device 0 was already added");

    /* All devices must be added before any bind or map. */
    RULE(cu->cuMulticastBindMem(mc, 0, mem0, 0, 2 * MIB, 0), CUDA_ERROR_NOT_PERMITTED,
         "only 1 of 2 devices were added");
    CUdeviceptr va = reserve(4 * MIB);
    RULE(cu->cuMemMap(va, 4 * MIB, 0, mc, 0), CUDA_ERROR_NOT_PERMITTED,
         "every device must be added before it is mapped");
    CHECK_OK(cu->cuMulticastAddDevice(mc, 1));
    RULE(cu->cuMulticastAddDevice(mc, 2), CUDA_ERROR_INVALID_VALUE,
         "all 2 devices of the team were already added");

    RULE(cu->cuMulticastBindMem(mc, 0, mem0, 0, 2 * MIB, 1), CUDA_ERROR_INVALID_VALUE, "flags must be 0");
    RULE(cu->cuMulticastBindMem(mc, 0, mem0, 0, MIB, 0), CUDA_ERROR_INVALID_VALUE,
         "size, mcOffset and memOffset must be multiples of the multicast MINIMUM granularity");
    RULE(cu->cuMulticastBindMem(mc, MIB, mem0, 0, 2 * MIB, 0), CUDA_ERROR_INVALID_VALUE,
         "must be multiples of the multicast MINIMUM granularity");
    RULE(cu->cuMulticastBindMem(mc, 0, mem0, MIB, 2 * MIB, 0), CUDA_ERROR_INVALID_VALUE,
         "must be multiples of the multicast MINIMUM granularity");
    RULE(cu->cuMulticastBindMem(mc, 0, mem0, 4 * MIB, 2 * MIB, 0), CUDA_ERROR_INVALID_VALUE,
         "size + memOffset exceeds the allocation");
    RULE(cu->cuMulticastBindMem(mc, 4 * MIB, mem0, 0, 2 * MIB, 0), CUDA_ERROR_INVALID_VALUE,
         "size + mcOffset exceeds the multicast object");
    RULE(cu->cuMulticastBindMem(mc, 0, shared2, 0, 2 * MIB, 0), CUDA_ERROR_INVALID_DEVICE,
         "device 2, which was not added to the multicast team");
    RULE(cu->cuMulticastBindMem(mc, 0, mc, 0, 2 * MIB, 0), CUDA_ERROR_INVALID_VALUE,
         "memHandle must be a cuMemCreate allocation");
    CHECK_OK(cu->cuMulticastBindMem(mc, 0, mem0, 0, 2 * MIB, 0));
    RULE(cu->cuMulticastBindMem(mc, 0, mem0, 2 * MIB, 2 * MIB, 0), CUDA_ERROR_INVALID_VALUE,
         "device 0 already has memory bound at [0, +2097152)");
    CHECK_OK(cu->cuMulticastBindMem(mc, 2 * MIB, mem1, 0, 2 * MIB, 0));

    /* Unbind before release, of the memory and of the object. */
    RULE(cu->cuMemRelease(mem0), CUDA_ERROR_NOT_PERMITTED, "cuMulticastUnbind before cuMemRelease");
    RULE(cu->cuMemRelease(mc), CUDA_ERROR_NOT_PERMITTED, "still has 2 binds made by this process");
    RULE(cu->cuMulticastUnbind(mc, 0, 0, 4 * MIB), CUDA_ERROR_INVALID_VALUE,
         "offset and size must match the bind");
    RULE(cu->cuMulticastUnbind(mc, 0, MIB, 2 * MIB), CUDA_ERROR_INVALID_VALUE,
         "multiples of the multicast MINIMUM granularity");
    RULE(cu->cuMulticastUnbind(mc, 1, 4 * MIB, 2 * MIB), CUDA_ERROR_INVALID_VALUE,
         "size + mcOffset exceeds the multicast object");
    RULE(cu->cuMulticastUnbind(mc, 11, 0, 2 * MIB), CUDA_ERROR_INVALID_DEVICE, "no device 11");
    CHECK_OK(cu->cuMulticastUnbind(mc, 0, 0, 2 * MIB));
    CHECK_OK(cu->cuMulticastUnbind(mc, 1, 2 * MIB, 2 * MIB));
    CHECK_OK(cu->cuMemAddressFree(va, 4 * MIB));
    CHECK_OK(cu->cuMemRelease(mc));

    /* An exportable object binds only exportable memory; an imported one too. */
    prop = multicast_prop(1, 2 * MIB, POSIX_FD);
    CHECK_OK(cu->cuMulticastCreate(&mc, &prop));
    CHECK_OK(cu->cuMulticastAddDevice(mc, 2));
    RULE(cu->cuMulticastBindMem(mc, 0, plain2, 0, 2 * MIB, 0), CUDA_ERROR_INVALID_VALUE,
         "binds only memory created with requestedHandleTypes != 0");
    int fd = -1;
    CUmemGenericAllocationHandle imported = 0;
    CHECK_OK(cu->cuMemExportToShareableHandle(&fd, mc, POSIX_FD, 0));
    CHECK_OK(cu->cuMemImportFromShareableHandle(&imported, (void *)(uintptr_t)fd, POSIX_FD));
    close(fd);
    RULE(cu->cuMulticastBindMem(imported, 0, plain2, 0, 2 * MIB, 0), CUDA_ERROR_INVALID_VALUE,
         "an exportable or imported multicast object");
    CHECK_OK(cu->cuMemRelease(imported));
    CHECK_OK(cu->cuMemRelease(mc));

    /* cuMulticastBindAddr: the address must be mapped memory; unbind before unmapping it. */
    prop = multicast_prop(1, 2 * MIB, 0);
    CHECK_OK(cu->cuMulticastCreate(&mc, &prop));
    CHECK_OK(cu->cuMulticastAddDevice(mc, 2));
    va = reserve(4 * MIB);
    RULE(cu->cuMulticastBindAddr(mc, 0, va, 2 * MIB, 0), CUDA_ERROR_INVALID_VALUE,
         "memptr is not inside a mapping of a cuMemCreate allocation");
    CHECK_OK(cu->cuMemMap(va, 4 * MIB, 0, plain2, 0));
    RULE(cu->cuMulticastBindAddr(mc, 0, va + MIB, 2 * MIB, 0), CUDA_ERROR_INVALID_VALUE,
         "must be multiples of the multicast MINIMUM granularity");
    RULE(cu->cuMulticastBindAddr(mc, 0, va + 2 * MIB, 4 * MIB, 0), CUDA_ERROR_INVALID_VALUE,
         "exceeds the allocation");
    CHECK_OK(cu->cuMulticastBindAddr(mc, 0, va + 2 * MIB, 2 * MIB, 0));
    RULE(cu->cuMemUnmap(va, 4 * MIB), CUDA_ERROR_NOT_PERMITTED, "cuMulticastUnbind before cuMemUnmap");
    CHECK_OK(cu->cuMulticastUnbind(mc, 2, 0, 2 * MIB));
    CHECK_OK(cu->cuMemUnmap(va, 4 * MIB));
    CHECK_OK(cu->cuMemAddressFree(va, 4 * MIB));
    CHECK_OK(cu->cuMemRelease(mc));

    CHECK_OK(cu->cuMemRelease(mem0));
    CHECK_OK(cu->cuMemRelease(mem1));
    CHECK_OK(cu->cuMemRelease(plain2));
    CHECK_OK(cu->cuMemRelease(shared2));
}

/* With a multicast MINIMUM granularity larger than the allocation's, a map aligned for an
 * allocation is misaligned for the multicast object. */
static void rules_multicast_granularity(void)
{
    mcoll_contract_config config, saved;
    mcoll_contract_get_config(&saved);
    config = saved;
    config.multicast_granularity_minimum = 4 * MIB;
    CHECK(mcoll_contract_configure(&config) == 0);
    CUmulticastObjectProp prop = multicast_prop(1, 4 * MIB, 0);
    CUmemGenericAllocationHandle mc = 0;
    CHECK_OK(cu->cuMulticastCreate(&mc, &prop));
    CHECK_OK(cu->cuMulticastAddDevice(mc, 0));
    CUmemGenericAllocationHandle mem = create(0, 4 * MIB, 0);
    RULE(cu->cuMulticastBindMem(mc, 0, mem, 0, 2 * MIB, 0), CUDA_ERROR_INVALID_VALUE,
         "multicast MINIMUM granularity 4194304");
    CUdeviceptr va = reserve(8 * MIB);
    CUdeviceptr misaligned = va % (4 * MIB) ? va : va + 2 * MIB;
    RULE(cu->cuMemMap(misaligned, 4 * MIB, 0, mc, 0), CUDA_ERROR_INVALID_VALUE,
         "multiples of the multicast MINIMUM granularity 4194304");
    CHECK_OK(cu->cuMemAddressFree(va, 8 * MIB));
    CHECK_OK(cu->cuMemRelease(mem));
    CHECK_OK(cu->cuMemRelease(mc));
    CHECK(mcoll_contract_configure(&saved) == 0);
}

/* Rules that bite when kernels run and at teardown: per-device granularity, access good
 * enough for the kernel's access, multicast bytes backed by bound memory, no unmap under work
 * in flight, no unbind under a mapping. */
static void rules_kernels_and_teardown(void)
{
    CHECK(mcoll_contract_set_granularity(3, 8 * MIB, 8 * MIB) == 0);
    CUmemGenericAllocationHandle h = 0;
    CUmemAllocationProp p3 = allocation_prop(3, 0);
    RULE(cu->cuMemCreate(&h, 4 * MIB, &p3, 0), CUDA_ERROR_INVALID_VALUE, "granularity 8388608 of device 3");
    CUmemGenericAllocationHandle big = create(3, 8 * MIB, 0);
    CUdeviceptr va = reserve(16 * MIB);
    CUdeviceptr at = (va + 8 * MIB - 1) & ~(CUdeviceptr)(8 * MIB - 1);
    RULE(cu->cuMemMap(at == va ? va + 2 * MIB : va, 8 * MIB, 0, big, 0), CUDA_ERROR_INVALID_VALUE,
         "allocation MINIMUM granularity 8388608");
    CHECK_OK(cu->cuMemMap(at, 8 * MIB, 0, big, 0));
    RULE(mcoll_contract_kernel_access(NULL, at, 4096, 0), CUDA_ERROR_ILLEGAL_ADDRESS, "not readable");
    CUmemAccessDesc read = access_desc(3, CU_MEM_ACCESS_FLAGS_PROT_READ);
    CHECK_OK(cu->cuMemSetAccess(at, 8 * MIB, &read, 1));
    RULE(mcoll_contract_kernel_access(NULL, at, 4096, 1), CUDA_ERROR_ILLEGAL_ADDRESS, "not writable");
    CHECK_OK(mcoll_contract_kernel_access(NULL, at, 4096, 0));
    RULE(cu->cuMemUnmap(at, 8 * MIB), CUDA_ERROR_NOT_PERMITTED, "synchronize");
    CHECK_OK(cu->cuCtxSynchronize());
    CHECK_OK(cu->cuMemUnmap(at, 8 * MIB));
    CHECK_OK(cu->cuMemAddressFree(va, 16 * MIB));
    CHECK_OK(cu->cuMemRelease(big));
    CHECK(mcoll_contract_set_granularity(3, 0, 0) == 0);

    CUmulticastObjectProp prop = multicast_prop(1, 4 * MIB, 0);
    CUmemGenericAllocationHandle mc = 0;
    CHECK_OK(cu->cuMulticastCreate(&mc, &prop));
    CHECK_OK(cu->cuMulticastAddDevice(mc, 0));
    CUmemGenericAllocationHandle mem = create(0, 4 * MIB, 0);
    CHECK_OK(cu->cuMulticastBindMem(mc, 0, mem, 0, 2 * MIB, 0));  /* half of the object */
    CUdeviceptr mc_va = reserve(4 * MIB);
    CHECK_OK(cu->cuMemMap(mc_va, 4 * MIB, 0, mc, 0));
    CUmemAccessDesc rw = access_desc(0, CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
    CHECK_OK(cu->cuMemSetAccess(mc_va, 4 * MIB, &rw, 1));
    CHECK_OK(mcoll_contract_kernel_access(NULL, mc_va, 2 * MIB, 1));
    RULE(mcoll_contract_kernel_access(NULL, mc_va, 4 * MIB, 1), CUDA_ERROR_ILLEGAL_ADDRESS,
         "no memory of this device is bound there");
    RULE(cu->cuMulticastUnbind(mc, 0, 0, 2 * MIB), CUDA_ERROR_NOT_PERMITTED, "cuMemUnmap before cuMulticastUnbind");
    CHECK_OK(cu->cuCtxSynchronize());
    CHECK_OK(cu->cuMemUnmap(mc_va, 4 * MIB));
    CHECK_OK(cu->cuMemAddressFree(mc_va, 4 * MIB));
    CHECK_OK(cu->cuMulticastUnbind(mc, 0, 0, 2 * MIB));
    CHECK_OK(cu->cuMemRelease(mem));
    CHECK_OK(cu->cuMemRelease(mc));
}

/* Memory users bring (user_memory.c): retained handles, IPC, imported external memory. */
static void rules_user_memory(void)
{
    CUmemGenericAllocationHandle h = create(0, 2 * MIB, POSIX_FD), retained = 0;
    CUdeviceptr va = 0, d = 0, mapped = 0;
    CUipcMemHandle ipc;
    CUexternalMemory ext = NULL;
    CUmemAccessDesc access = {{CU_MEM_LOCATION_TYPE_DEVICE, 0}, CU_MEM_ACCESS_FLAGS_PROT_READWRITE};
    CHECK_OK(cu->cuMemAddressReserve(&va, 2 * MIB, 0, 0, 0));
    CHECK_OK(cu->cuMemMap(va, 2 * MIB, 0, h, 0));
    CHECK_OK(cu->cuMemSetAccess(va, 2 * MIB, &access, 1));
    RULE(cu->cuMemRetainAllocationHandle(&retained, (void *)(uintptr_t)(va + 4 * MIB)), CUDA_ERROR_INVALID_VALUE,
         "is not mapped memory of cuMemCreate");
    /* A retained handle is released once more before the allocation goes. */
    CHECK_OK(cu->cuMemRetainAllocationHandle(&retained, (void *)(uintptr_t)(va + 4096)));
    CHECK(retained == h);
    CHECK_OK(cu->cuMemRelease(retained));

    CHECK_OK(cu->cuMemAlloc(&d, MIB));
    RULE(cu->cuIpcGetMemHandle(&ipc, va), CUDA_ERROR_INVALID_VALUE, "VMM memory has no IPC handle");
    RULE(cu->cuIpcGetMemHandle(&ipc, d + 256), CUDA_ERROR_INVALID_VALUE, "not the base of a cuMemAlloc allocation");
    CHECK_OK(cu->cuIpcGetMemHandle(&ipc, d));
    RULE(cu->cuIpcOpenMemHandle(&mapped, ipc, 0), CUDA_ERROR_INVALID_VALUE, "CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS");
    RULE(cu->cuIpcOpenMemHandle(&mapped, ipc, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS), CUDA_ERROR_INVALID_CONTEXT,
         "cannot open its own IPC handle");
    RULE(cu->cuIpcCloseMemHandle(d), CUDA_ERROR_INVALID_VALUE, "was not returned by cuIpcOpenMemHandle");
    on_node(1);
    RULE(cu->cuIpcOpenMemHandle(&mapped, ipc, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS), CUDA_ERROR_INVALID_VALUE,
         "does not cross nodes");
    on_node(0);
    CHECK_OK(cu->cuMemFree(d));

    int fd = -1;
    CHECK_OK(cu->cuMemExportToShareableHandle(&fd, h, POSIX_FD, 0));
    CUDA_EXTERNAL_MEMORY_HANDLE_DESC desc;
    memset(&desc, 0, sizeof desc);
    desc.type = CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD;
    desc.handle.fd = fd;
    desc.size = 4 * MIB;
    RULE(cu->cuImportExternalMemory(&ext, &desc), CUDA_ERROR_INVALID_VALUE, "size is larger than the object");
    desc.size = 2 * MIB;
    desc.flags = 4;
    RULE(cu->cuImportExternalMemory(&ext, &desc), CUDA_ERROR_INVALID_VALUE, "flags must be 0 or");
    desc.flags = 0;
    CHECK_OK(cu->cuImportExternalMemory(&ext, &desc)); /* the fd is the driver's now */
    CUDA_EXTERNAL_MEMORY_BUFFER_DESC buffer = {0, MIB, 1, {0}};
    RULE(cu->cuExternalMemoryGetMappedBuffer(&mapped, ext, &buffer), CUDA_ERROR_INVALID_VALUE, "flags must be 0");
    buffer.flags = 0;
    buffer.offset = 4096;
    RULE(cu->cuExternalMemoryGetMappedBuffer(&mapped, ext, &buffer), CUDA_ERROR_INVALID_VALUE,
         "offset is not aligned as the exporter requires");
    buffer.offset = 0;
    buffer.size = 3 * MIB;
    RULE(cu->cuExternalMemoryGetMappedBuffer(&mapped, ext, &buffer), CUDA_ERROR_INVALID_VALUE,
         "is not inside the object");
    buffer.size = MIB;
    CHECK_OK(cu->cuExternalMemoryGetMappedBuffer(&mapped, ext, &buffer));
    /* What the allocation holds, the imported buffer shows. */
    ((volatile char *)(uintptr_t)va)[100] = 42;
    CHECK(((volatile char *)(uintptr_t)mapped)[100] == 42);
    RULE(cu->cuDestroyExternalMemory(ext), CUDA_ERROR_INVALID_VALUE, "cuMemFree them first");
    CHECK_OK(cu->cuMemFree(mapped));
    CHECK_OK(cu->cuDestroyExternalMemory(ext));
    RULE(cu->cuDestroyExternalMemory(ext), CUDA_ERROR_INVALID_HANDLE, "not a live external memory object");
    RULE(cu->cuExternalMemoryGetMappedBuffer(&mapped, ext, &buffer), CUDA_ERROR_INVALID_HANDLE,
         "not a live external memory object");

    CHECK_OK(cu->cuMemUnmap(va, 2 * MIB));
    CHECK_OK(cu->cuMemAddressFree(va, 2 * MIB));
    CHECK_OK(cu->cuMemRelease(h));
}

int main(void)
{
    cu = mcoll_contract_driver();
    mcoll_contract_set_quiet(1);
    rules_before_init();
    rules_devices_and_contexts();
    rules_buffers_and_copies();
    rules_allocation();
    rules_reserve_map_access();
    rules_export_import();
    rules_multicast_create();
    rules_multicast_team_and_bind();
    rules_multicast_granularity();
    rules_kernels_and_teardown();
    rules_user_memory();
    CHECK_OK(cu->cuCtxSetCurrent(NULL));
    CHECK_OK(cu->cuDevicePrimaryCtxRelease(0));

    printf("test_model_rules: %d rules broken on purpose, %d violations recorded\n",
           rules_checked, mcoll_contract_violations());
    CHECK(rules_checked >= 80);
    CHECK(mcoll_contract_violations() == rules_checked);
    CHECK(mcoll_contract_live_objects() == 0);
    return check_exit("test_model_rules");
}
