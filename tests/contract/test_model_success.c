/* The contract model's success paths: every sequence the documents allow runs without a
 * violation, does what the driver would (memory really shared between mappings, pointer
 * attributes right), and leaves no live object behind. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "contract/check.h"

#define MIB ((size_t)1 << 20)

static const mcoll_driver *cu;

static void test_devices_and_contexts(void)
{
    int version = 0, count = 0, value = -1;
    CUdevice dev = -1;
    char bus[32];
    CHECK_OK(cu->cuDriverGetVersion(&version));
    CHECK(version == 13000);
    CHECK_OK(cu->cuInit(0));
    CHECK_OK(cu->cuDeviceGetCount(&count));
    CHECK(count == 8);
    CHECK_OK(cu->cuDeviceGet(&dev, 3));
    CHECK(dev == 3);
    CHECK_OK(cu->cuDeviceGetAttribute(&value, CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED, dev));
    CHECK(value == 1);
    CHECK_OK(cu->cuDeviceGetAttribute(&value, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev));
    CHECK(value == 9);
    CHECK_OK(cu->cuDeviceGetAttribute(&value, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev));
    CHECK(value == 0);
    CHECK_OK(cu->cuDeviceGetAttribute(&value, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED, dev));
    CHECK(value == 1);
    CHECK_OK(cu->cuDeviceGetAttribute(
        &value, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED, dev));
    CHECK(value == 1);
    CHECK_OK(cu->cuDeviceGetAttribute(
        &value, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, dev));
    CHECK(value == 1);
    CHECK_OK(cu->cuDeviceGetAttribute(&value, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev));
    CHECK(value == 132);
    CHECK_OK(cu->cuDeviceGetPCIBusId(bus, sizeof bus, dev));
    CHECK(strcmp(bus, "0000:48:00.0") == 0);

    const char *text = NULL;
    CHECK_OK(cu->cuGetErrorName(CUDA_ERROR_SYSTEM_NOT_READY, &text));
    CHECK(text && strcmp(text, "CUDA_ERROR_SYSTEM_NOT_READY") == 0);
    CHECK_OK(cu->cuGetErrorString(CUDA_ERROR_INVALID_VALUE, &text));
    CHECK(text && strcmp(text, "invalid argument") == 0);
    /* An unknown code is an error, not misuse. */
    CHECK_CU(cu->cuGetErrorName((CUresult)123456, &text), CUDA_ERROR_INVALID_VALUE);
    CHECK(text == NULL);

    /* Configuration and per-device overrides. */
    CHECK(mcoll_contract_set_attribute(5, CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED, 0) == 0);
    CHECK_OK(cu->cuDeviceGetAttribute(&value, CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED, 5));
    CHECK(value == 0);
    CHECK_OK(cu->cuDeviceGetAttribute(&value, CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED, 4));
    CHECK(value == 1);
    mcoll_contract_config config;
    mcoll_contract_get_config(&config);
    config.device_count = 4;
    CHECK(mcoll_contract_configure(&config) == 0);
    CHECK_OK(cu->cuDeviceGetCount(&count));
    CHECK(count == 4);
    CHECK_OK(cu->cuDeviceGetAttribute(&value, CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED, 2));
    CHECK(value == 1);
    config.alloc_granularity_minimum = 3 * MIB;  /* not a power of two: refused */
    CHECK(mcoll_contract_configure(&config) == -1);
    mcoll_contract_config_defaults(&config);
    CHECK(mcoll_contract_configure(&config) == 0);
}

static void *other_thread(void *arg)
{
    CUcontext *contexts = arg;
    CUcontext current = (CUcontext)1;
    CUdevice dev = -1;
    /* A new thread has no current context until it sets one. */
    CHECK_OK(cu->cuCtxGetCurrent(&current));
    CHECK(current == NULL);
    CHECK_OK(cu->cuCtxSetCurrent(contexts[1]));
    CHECK_OK(cu->cuCtxGetDevice(&dev));
    CHECK(dev == 1);
    return NULL;
}

static void test_current_context_per_thread(void)
{
    CUcontext contexts[2], current = NULL;
    CUdevice dev = -1;
    CHECK_OK(cu->cuDevicePrimaryCtxRetain(&contexts[0], 0));
    CHECK_OK(cu->cuDevicePrimaryCtxRetain(&contexts[1], 1));
    CHECK(contexts[0] != contexts[1]);
    CHECK_OK(cu->cuCtxSetCurrent(contexts[0]));
    CHECK_OK(cu->cuCtxGetCurrent(&current));
    CHECK(current == contexts[0]);
    pthread_t thread;
    CHECK(pthread_create(&thread, NULL, other_thread, contexts) == 0);
    pthread_join(thread, NULL);
    CHECK_OK(cu->cuCtxGetDevice(&dev));
    CHECK(dev == 0);  /* the other thread's choice does not leak into this one */
    CHECK_OK(cu->cuCtxSynchronize());
    CHECK_OK(cu->cuDevicePrimaryCtxRelease(1));
    CHECK(mcoll_contract_live("context") == 1);
}

static void test_buffers_and_copies(void)
{
    CUdeviceptr dptr = 0;
    CUstream stream = NULL;
    CUevent event = NULL;
    char host[256], back[256];
    for (int i = 0; i < 256; i++) host[i] = (char)i;

    CHECK_OK(cu->cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
    CHECK_OK(cu->cuEventCreate(&event, CU_EVENT_DISABLE_TIMING));
    CHECK_OK(cu->cuMemAlloc(&dptr, 1000));
    CHECK_OK(cu->cuMemcpyHtoDAsync(dptr, host, sizeof host, stream));
    CHECK_OK(cu->cuMemsetD8Async(dptr + 16, 0xab, 4, stream));
    CHECK_OK(cu->cuMemcpyDtoDAsync(dptr + 512, dptr, sizeof host, NULL));
    CHECK_OK(cu->cuMemcpyDtoHAsync(back, dptr + 512, sizeof back, CU_STREAM_PER_THREAD));
    CHECK_OK(cu->cuEventRecord(event, stream));
    CHECK_OK(cu->cuEventSynchronize(event));
    CHECK_OK(cu->cuStreamSynchronize(stream));
    CHECK(back[15] == 15 && (unsigned char)back[16] == 0xab && (unsigned char)back[19] == 0xab &&
          back[20] == 20 && back[255] == (char)255);
    CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_ACTIVE;
    CHECK_OK(cu->cuStreamIsCapturing(stream, &status));
    CHECK(status == CU_STREAM_CAPTURE_STATUS_NONE);

    /* Pointer attributes of a cuMemAlloc buffer, in the middle of it. */
    unsigned type = 0;
    int ordinal = -1, managed = -1;
    unsigned long long id1 = 0, id2 = 0;
    CUdeviceptr start = 0;
    size_t size = 0;
    CUpointer_attribute attrs[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                   CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                                   CU_POINTER_ATTRIBUTE_BUFFER_ID,
                                   CU_POINTER_ATTRIBUTE_RANGE_START_ADDR,
                                   CU_POINTER_ATTRIBUTE_RANGE_SIZE,
                                   CU_POINTER_ATTRIBUTE_IS_MANAGED};
    void *data[] = {&type, &ordinal, &id1, &start, &size, &managed};
    CHECK_OK(cu->cuPointerGetAttributes(6, attrs, data, dptr + 100));
    CHECK(type == CU_MEMORYTYPE_DEVICE && ordinal == 0 && id1 != 0 && start == dptr &&
          size == 1000 && managed == 0);
    CHECK_OK(cu->cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, dptr));
    CHECK(type == CU_MEMORYTYPE_DEVICE);
    CHECK_OK(cu->cuMemFree(dptr));

    /* A new buffer gets a new id, even at the same address. */
    CHECK_OK(cu->cuMemAlloc(&dptr, 1000));
    CHECK_OK(cu->cuPointerGetAttribute(&id2, CU_POINTER_ATTRIBUTE_BUFFER_ID, dptr));
    CHECK(id2 != id1);
    CHECK_OK(cu->cuMemFree(dptr));

    /* Unregistered host memory: an error from the single query, defaults from the plural. */
    int on_stack = 0;
    CHECK_CU(cu->cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                       (CUdeviceptr)(uintptr_t)&on_stack),
             CUDA_ERROR_INVALID_VALUE);
    type = 77;
    CHECK_OK(cu->cuPointerGetAttributes(6, attrs, data, (CUdeviceptr)(uintptr_t)&on_stack));
    CHECK(type == 0 && start == 0 && size == 0 && id1 == 0);

    /* Pinned host memory and registered host memory are HOST memory. */
    void *pinned = NULL;
    CHECK_OK(cu->cuMemHostAlloc(&pinned, 4096, CU_MEMHOSTALLOC_PORTABLE));
    CHECK_OK(cu->cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                       (CUdeviceptr)(uintptr_t)pinned));
    CHECK(type == CU_MEMORYTYPE_HOST);
    static char registered[8192];
    CHECK_OK(cu->cuMemHostRegister(registered, sizeof registered, CU_MEMHOSTREGISTER_PORTABLE));
    CHECK_OK(cu->cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                       (CUdeviceptr)(uintptr_t)(registered + 100)));
    CHECK(type == CU_MEMORYTYPE_HOST);
    CHECK_OK(cu->cuMemcpyHtoDAsync((CUdeviceptr)(uintptr_t)pinned, host, 64, stream));
    CHECK(memcmp(pinned, host, 64) == 0);
    CHECK_OK(cu->cuMemHostUnregister(registered));
    CHECK_OK(cu->cuMemFreeHost(pinned));
    CHECK_OK(cu->cuEventDestroy(event));
    CHECK_OK(cu->cuStreamDestroy(stream));
}

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

static CUmemAccessDesc access_desc(int device)
{
    CUmemAccessDesc desc;
    memset(&desc, 0, sizeof desc);
    desc.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    desc.location.id = device;
    desc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    return desc;
}

/* Reserve, map and open `handle` for reading and writing; returns the address. */
static CUdeviceptr map_readwrite(CUmemGenericAllocationHandle handle, size_t size, int device)
{
    CUdeviceptr va = 0;
    CUmemAccessDesc desc = access_desc(device);
    CHECK_OK(cu->cuMemAddressReserve(&va, size, 0, 0, 0));
    CHECK_OK(cu->cuMemMap(va, size, 0, handle, 0));
    CHECK_OK(cu->cuMemSetAccess(va, size, &desc, 1));
    return va;
}

static void unmap_and_free(CUdeviceptr va, size_t size)
{
    CHECK_OK(cu->cuMemUnmap(va, size));
    CHECK_OK(cu->cuMemAddressFree(va, size));
}

/* 1 when a child process that writes one int at `va` dies of SIGSEGV. */
static int write_faults(CUdeviceptr va)
{
    pid_t child = fork();
    if (child == 0) {
        ((volatile int *)(uintptr_t)va)[0] = 1;
        _exit(0);
    }
    int status = 0;
    if (child < 0 || waitpid(child, &status, 0) != child) return 0;
    return WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV;
}

/* As on a GPU, a mapped range is not accessible until cuMemSetAccess, and a read-only range
 * refuses writes: the CPU faults there. */
static void test_access_is_real(void)
{
    CUmemAllocationProp prop = allocation_prop(0, 0);
    CUmemGenericAllocationHandle handle = 0;
    CUdeviceptr va = 0;
    CHECK_OK(cu->cuMemCreate(&handle, 2 * MIB, &prop, 0));
    CHECK_OK(cu->cuMemAddressReserve(&va, 2 * MIB, 0, 0, 0));
    CHECK(write_faults(va));
    CHECK_OK(cu->cuMemMap(va, 2 * MIB, 0, handle, 0));
    CHECK(write_faults(va));
    CUmemAccessDesc desc = access_desc(0);
    desc.flags = CU_MEM_ACCESS_FLAGS_PROT_READ;
    CHECK_OK(cu->cuMemSetAccess(va, 2 * MIB, &desc, 1));
    CHECK(((volatile int *)(uintptr_t)va)[0] != 0);  /* new memory holds garbage, not zeros */
    CHECK(write_faults(va));
    desc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    CHECK_OK(cu->cuMemSetAccess(va, 2 * MIB, &desc, 1));
    CHECK(!write_faults(va));
    unmap_and_free(va, 2 * MIB);
    CHECK_OK(cu->cuMemRelease(handle));
}

static void test_vmm_allocation(void)
{
    const unsigned long long types = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR | CU_MEM_HANDLE_TYPE_FABRIC;
    CUmemAllocationProp prop = allocation_prop(1, types);
    size_t minimum = 0, recommended = 0, size = 4 * MIB;
    CHECK_OK(cu->cuMemGetAllocationGranularity(&minimum, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    CHECK_OK(cu->cuMemGetAllocationGranularity(&recommended, &prop,
                                               CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
    CHECK(minimum == 2 * MIB && recommended == 2 * MIB);

    CUmemGenericAllocationHandle handle = 0, by_fd = 0, by_fabric = 0;
    CHECK_OK(cu->cuMemCreate(&handle, size, &prop, 0));
    CUdeviceptr va = map_readwrite(handle, size, 1);
    CHECK(va % minimum == 0);
    ((volatile int *)(uintptr_t)va)[0] = 4242;
    ((volatile int *)(uintptr_t)(va + size))[-1] = 77;

    /* Attributes of VMM memory: device memory of device 1, range = the reservation. */
    unsigned type = 0;
    int ordinal = -1;
    unsigned long long allowed = 0, id = 0;
    CUdeviceptr start = 0;
    CHECK_OK(cu->cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, va + 4096));
    CHECK_OK(cu->cuPointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, va));
    CHECK_OK(cu->cuPointerGetAttribute(&allowed, CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES, va));
    CHECK_OK(cu->cuPointerGetAttribute(&start, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, va + 100));
    CHECK_OK(cu->cuPointerGetAttribute(&id, CU_POINTER_ATTRIBUTE_BUFFER_ID, va));
    CHECK(type == CU_MEMORYTYPE_DEVICE && ordinal == 1 && allowed == types && start == va && id);

    /* Export both ways and import in this same process: a second view of the same bytes. */
    int fd = -1;
    CUmemFabricHandle fabric;
    CHECK_OK(cu->cuMemExportToShareableHandle(&fd, handle, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
    CHECK(fd >= 0);
    CHECK(mcoll_contract_live("exported_fd") == 1);
    CHECK_OK(cu->cuMemExportToShareableHandle(&fabric, handle, CU_MEM_HANDLE_TYPE_FABRIC, 0));
    CHECK_OK(cu->cuMemImportFromShareableHandle(&by_fd, (void *)(uintptr_t)fd,
                                                CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
    close(fd);  /* the importer owns its copy; the exported fd is the caller's to close */
    CHECK(mcoll_contract_live("exported_fd") == 0);
    CHECK_OK(cu->cuMemImportFromShareableHandle(&by_fabric, &fabric, CU_MEM_HANDLE_TYPE_FABRIC));
    CHECK(mcoll_contract_live("imported") == 2);
    CUdeviceptr va_fd = map_readwrite(by_fd, size, 1);
    CUdeviceptr va_fabric = map_readwrite(by_fabric, size, 1);
    CHECK(((volatile int *)(uintptr_t)va_fd)[0] == 4242);
    CHECK(((volatile int *)(uintptr_t)(va_fabric + size))[-1] == 77);
    ((volatile int *)(uintptr_t)va_fabric)[1] = 99;
    CHECK(((volatile int *)(uintptr_t)va)[1] == 99);

    /* The driver allows releasing a handle while it is mapped; the mapping stays usable. */
    CHECK_OK(cu->cuMemRelease(by_fd));
    CHECK(((volatile int *)(uintptr_t)va_fd)[1] == 99);
    unmap_and_free(va_fd, size);
    unmap_and_free(va_fabric, size);
    CHECK_OK(cu->cuMemRelease(by_fabric));

    /* Unmap then map again at the same place: mapping a reservation that is unmapped again. */
    CHECK_OK(cu->cuMemUnmap(va, size));
    CHECK_OK(cu->cuMemMap(va, 2 * MIB, 0, handle, 0));
    CUmemAccessDesc desc = access_desc(1);
    CHECK_OK(cu->cuMemSetAccess(va, 2 * MIB, &desc, 1));
    CHECK(((volatile int *)(uintptr_t)va)[0] == 4242);
    unmap_and_free(va, size);
    CHECK_OK(cu->cuMemRelease(handle));

    /* Two allocations end to end in one reservation, opened with one cuMemSetAccess. */
    CUmemGenericAllocationHandle a = 0, b = 0;
    CUmemAllocationProp plain = allocation_prop(0, 0);
    CHECK_OK(cu->cuMemCreate(&a, 2 * MIB, &plain, 0));
    CHECK_OK(cu->cuMemCreate(&b, 2 * MIB, &plain, 0));
    CHECK_OK(cu->cuMemAddressReserve(&va, 4 * MIB, 4 * MIB, 0, 0));
    CHECK(va % (4 * MIB) == 0);
    CHECK_OK(cu->cuMemMap(va, 2 * MIB, 0, a, 0));
    CHECK_OK(cu->cuMemMap(va + 2 * MIB, 2 * MIB, 0, b, 0));
    desc = access_desc(0);
    CHECK_OK(cu->cuMemSetAccess(va, 4 * MIB, &desc, 1));
    CHECK_OK(cu->cuMemsetD8Async(va + 2 * MIB - 8, 0x5a, 16, NULL));
    CHECK(((volatile unsigned char *)(uintptr_t)va)[4 * MIB / 2 + 7] == 0x5a);
    CHECK_OK(cu->cuMemUnmap(va, 4 * MIB));  /* one call may unmap several whole mappings */
    CHECK_OK(cu->cuMemAddressFree(va, 4 * MIB));
    CHECK_OK(cu->cuMemRelease(a));
    CHECK_OK(cu->cuMemRelease(b));
}

static void test_multicast(void)
{
    const unsigned long long types = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR | CU_MEM_HANDLE_TYPE_FABRIC;
    CUmulticastObjectProp mc_prop;
    memset(&mc_prop, 0, sizeof mc_prop);
    mc_prop.numDevices = 2;
    mc_prop.handleTypes = types;
    size_t minimum = 0, recommended = 0;
    CHECK_OK(cu->cuMulticastGetGranularity(&minimum, &mc_prop, CU_MULTICAST_GRANULARITY_MINIMUM));
    CHECK_OK(cu->cuMulticastGetGranularity(&recommended, &mc_prop,
                                           CU_MULTICAST_GRANULARITY_RECOMMENDED));
    CHECK(minimum == 2 * MIB && recommended == 512 * MIB);
    mc_prop.size = 2 * minimum;

    CUmemGenericAllocationHandle mc = 0, mem[2] = {0, 0};
    CHECK_OK(cu->cuMulticastCreate(&mc, &mc_prop));
    CHECK(mcoll_contract_live("multicast") == 1);
    CHECK_OK(cu->cuMulticastAddDevice(mc, 0));
    CHECK_OK(cu->cuMulticastAddDevice(mc, 1));
    for (int d = 0; d < 2; d++) {
        CUmemAllocationProp prop = allocation_prop(d, types);
        CHECK_OK(cu->cuMemCreate(&mem[d], mc_prop.size, &prop, 0));
    }
    /* Device 0 binds its whole allocation; device 1 binds its second half at mcOffset 0. */
    CHECK_OK(cu->cuMulticastBindMem(mc, 0, mem[0], 0, mc_prop.size, 0));
    CHECK_OK(cu->cuMulticastBindMem(mc, 0, mem[1], minimum, minimum, 0));
    CUdeviceptr mc_va = map_readwrite(mc, mc_prop.size, 0);
    ((volatile int *)(uintptr_t)mc_va)[0] = 1;
    unsigned type = 0;
    CHECK_OK(cu->cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, mc_va));
    CHECK(type == CU_MEMORYTYPE_DEVICE);

    /* The multicast handle travels like an allocation handle. */
    CUmemFabricHandle fabric;
    CUmemGenericAllocationHandle imported = 0;
    CHECK_OK(cu->cuMemExportToShareableHandle(&fabric, mc, CU_MEM_HANDLE_TYPE_FABRIC, 0));
    CHECK_OK(cu->cuMemImportFromShareableHandle(&imported, &fabric, CU_MEM_HANDLE_TYPE_FABRIC));
    CHECK_OK(cu->cuMemRelease(imported));

    unmap_and_free(mc_va, mc_prop.size);  /* unmap, then unbind */
    CHECK_OK(cu->cuMulticastUnbind(mc, 1, 0, minimum));
    CHECK_OK(cu->cuMulticastUnbind(mc, 0, 0, mc_prop.size));
    CHECK_OK(cu->cuMemRelease(mem[0]));
    CHECK_OK(cu->cuMemRelease(mem[1]));
    CHECK_OK(cu->cuMemRelease(mc));

    /* cuMulticastBindAddr: bind by mapped address, unbind before unmapping. */
    mc_prop.handleTypes = 0;
    mc_prop.numDevices = 1;
    mc_prop.size = minimum;
    CHECK_OK(cu->cuMulticastCreate(&mc, &mc_prop));
    CHECK_OK(cu->cuMulticastAddDevice(mc, 2));
    CUmemAllocationProp prop = allocation_prop(2, 0);
    CHECK_OK(cu->cuMemCreate(&mem[0], 2 * minimum, &prop, 0));
    CUdeviceptr va = map_readwrite(mem[0], 2 * minimum, 2);
    CHECK_OK(cu->cuMemRelease(mem[0]));  /* the mapping keeps the memory */
    CHECK_OK(cu->cuMulticastBindAddr(mc, 0, va + minimum, minimum, 0));
    CHECK_OK(cu->cuMulticastUnbind(mc, 2, 0, minimum));
    unmap_and_free(va, 2 * minimum);
    CHECK_OK(cu->cuMemRelease(mc));
}

/* The order of queued work (order.c): stream order, the legacy default stream and blocking
 * streams waiting for each other's earlier work, non-blocking streams for neither, events. */
static void test_work_order(void)
{
    CUstream blocking = NULL, nonblocking = NULL, other = NULL;
    CUevent event = NULL;
    CUdeviceptr dptr = 0;
    CHECK_OK(cu->cuMemAlloc(&dptr, 64));
    CHECK_OK(cu->cuStreamCreate(&blocking, CU_STREAM_DEFAULT));
    CHECK_OK(cu->cuStreamCreate(&nonblocking, CU_STREAM_NON_BLOCKING));
    CHECK_OK(cu->cuStreamCreate(&other, CU_STREAM_NON_BLOCKING));
    CHECK_OK(cu->cuEventCreate(&event, CU_EVENT_DISABLE_TIMING));

    CHECK_OK(cu->cuMemsetD8Async(dptr, 1, 8, CU_STREAM_LEGACY));
    const uint64_t legacy = mcoll_contract_last_work(CU_STREAM_LEGACY);
    CHECK(legacy != 0);
    CHECK(mcoll_contract_comes_after(CU_STREAM_LEGACY, legacy) == 1);
    CHECK(mcoll_contract_comes_after(blocking, legacy) == 1);
    CHECK(mcoll_contract_comes_after(nonblocking, legacy) == 0);

    CHECK_OK(mcoll_contract_kernel_access(nonblocking, dptr, 8, 1));
    const uint64_t kernel = mcoll_contract_last_work(nonblocking);
    CHECK(mcoll_contract_comes_after(nonblocking, kernel) == 1);
    CHECK(mcoll_contract_comes_after(CU_STREAM_LEGACY, kernel) == 0);
    CHECK(mcoll_contract_comes_after(blocking, kernel) == 0);
    CHECK(mcoll_contract_comes_after(other, kernel) == 0);

    CHECK_OK(mcoll_contract_kernel_access(blocking, dptr, 8, 1));
    const uint64_t blocked = mcoll_contract_last_work(blocking);
    CHECK(mcoll_contract_comes_after(CU_STREAM_LEGACY, blocked) == 1);
    CHECK(mcoll_contract_comes_after(other, blocked) == 0);

    /* An event carries what its stream's work waits for, the legacy stream's work included. */
    CHECK_OK(cu->cuEventRecord(event, blocking));
    CHECK_OK(cu->cuStreamWaitEvent(other, event, 0));
    CHECK(mcoll_contract_comes_after(other, blocked) == 1);
    CHECK(mcoll_contract_comes_after(other, legacy) == 1);
    CHECK(mcoll_contract_comes_after(other, kernel) == 0);
    CHECK(mcoll_contract_comes_after((CUstream)(uintptr_t)0x1234, kernel) == -1);
    CHECK(mcoll_contract_comes_after(other, 0) == -1);

    CHECK_OK(cu->cuStreamSynchronize(nonblocking));
    CHECK_OK(cu->cuStreamSynchronize(blocking));
    CHECK_OK(cu->cuEventDestroy(event));
    CHECK_OK(cu->cuStreamDestroy(other));
    CHECK_OK(cu->cuStreamDestroy(nonblocking));
    CHECK_OK(cu->cuStreamDestroy(blocking));
    CHECK_OK(cu->cuMemFree(dptr));
}

static void test_counts_and_log(void)
{
    mcoll_contract_reset();
    CHECK(mcoll_contract_calls("") == 0 && mcoll_contract_log_length() == 0);
    test_multicast();
    CHECK(mcoll_contract_calls("cuMulticastCreate") == 2);
    CHECK(mcoll_contract_calls("cuMulticastBind") == 3);
    CHECK(mcoll_contract_calls("cuMulticast") == 13);
    CHECK(mcoll_contract_calls(NULL) == (long)mcoll_contract_log_length());
    long create = mcoll_contract_log_find("cuMulticastCreate", 0);
    long add = mcoll_contract_log_find("cuMulticastAddDevice", 0);
    long bind = mcoll_contract_log_find("cuMulticastBindMem", 0);
    long unbind = mcoll_contract_log_find("cuMulticastUnbind", 0);
    long release = mcoll_contract_log_find("cuMemRelease", (size_t)unbind);
    CHECK(create == 2 && create < add && add < bind && bind < unbind && unbind < release);
    CHECK(strcmp(mcoll_contract_log_call((size_t)create), "cuMulticastCreate") == 0);
    CHECK(mcoll_contract_log_result((size_t)create) == CUDA_SUCCESS);
    const char *line = mcoll_contract_log_line((size_t)create);
    CHECK(line && strstr(line, "numDevices=2") && strstr(line, "= CUDA_SUCCESS"));
    CHECK(mcoll_contract_log_line(1u << 30) == NULL);
}

int main(void)
{
    cu = mcoll_contract_driver();
    test_devices_and_contexts();
    test_current_context_per_thread();
    test_buffers_and_copies();
    test_access_is_real();
    test_vmm_allocation();
    test_multicast();
    test_work_order();
    test_counts_and_log();
    CHECK_OK(cu->cuCtxSetCurrent(NULL));
    CHECK_OK(cu->cuDevicePrimaryCtxRelease(0));

    CHECK(mcoll_contract_violations() == 0);
    CHECK(mcoll_contract_live_objects() == 0);
    CHECK(mcoll_contract_live("context") == 0);
    CHECK(mcoll_contract_injected() == 0);
    return check_exit("test_model_success");
}
