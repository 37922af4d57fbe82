/* Fault injection in the contract model: any call, any error, at its nth invocation, in this
 * process; set from code or from MCOLL_CONTRACT_FAIL. A failed call returns the error, records
 * no violation, and has no effect. Every error code the seed documents list is injected into
 * the calls they document it for. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "contract/check.h"

#define MIB ((size_t)1 << 20)
#define POSIX_FD CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR

static const mcoll_driver *cu;

static CUmemGenericAllocationHandle create(int device, size_t size)
{
    CUmemGenericAllocationHandle handle = 0;
    CUmemAllocationProp prop;
    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = device;
    prop.requestedHandleTypes = POSIX_FD;
    CHECK_OK(cu->cuMemCreate(&handle, size, &prop, 0));
    return handle;
}

static CUmulticastObjectProp multicast_prop(unsigned devices, size_t size)
{
    CUmulticastObjectProp prop;
    memset(&prop, 0, sizeof prop);
    prop.numDevices = devices;
    prop.size = size;
    prop.handleTypes = POSIX_FD;
    return prop;
}

/* Set in main before the model's first use, so the environment is read. */
static void test_environment(void)
{
    CHECK_OK(cu->cuInit(0));
    int count = 0, fabric = 1;
    CHECK_OK(cu->cuDeviceGetCount(&count));
    CHECK(count == 4);
    CHECK_OK(cu->cuDeviceGetAttribute(&fabric, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED, 0));
    CHECK(fabric == 0);

    /* Rank 3's rules apply (this process claims rank 3), rank 5's do not. */
    CUmemGenericAllocationHandle a = create(0, 2 * MIB);
    CUmemGenericAllocationHandle b = 0;
    CUmemAllocationProp prop;
    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    CHECK_CU(cu->cuMemCreate(&b, 2 * MIB, &prop, 0), CUDA_ERROR_OUT_OF_MEMORY);
    CHECK(b == 0);
    CHECK(mcoll_contract_live("allocation") == 1);

    CUmulticastObjectProp mc_prop = multicast_prop(1, 2 * MIB);
    CUmemGenericAllocationHandle mc = 0;
    CHECK_OK(cu->cuMulticastCreate(&mc, &mc_prop));
    CHECK_OK(cu->cuMulticastAddDevice(mc, 0));
    CHECK_CU(cu->cuMulticastBindMem(mc, 0, a, 0, 2 * MIB, 0), CUDA_ERROR_SYSTEM_NOT_READY);
    CHECK_OK(cu->cuMulticastBindMem(mc, 0, a, 0, 2 * MIB, 0));  /* only the first one fails */
    CUdeviceptr va = 0;
    CHECK_OK(cu->cuMemAddressReserve(&va, 2 * MIB, 0, 0, 0));
    CHECK_OK(cu->cuMemMap(va, 2 * MIB, 0, mc, 0));              /* rank 5's rule: not here */
    CHECK_OK(cu->cuMemUnmap(va, 2 * MIB));
    CHECK_OK(cu->cuMemAddressFree(va, 2 * MIB));
    CHECK_OK(cu->cuMulticastUnbind(mc, 0, 0, 2 * MIB));
    CHECK_OK(cu->cuMemRelease(mc));
    CHECK_OK(cu->cuMemRelease(a));
    CHECK(mcoll_contract_injected() == 2);
    CHECK(mcoll_contract_violations() == 0);
    long index = mcoll_contract_log_find("cuMulticastBindMem", 0);
    CHECK(index >= 0 && strstr(mcoll_contract_log_line((size_t)index),
                               "= CUDA_ERROR_SYSTEM_NOT_READY [injected]"));
    mcoll_contract_reset();
}

static void test_error_names(void)
{
    static const struct {
        const char *name;
        CUresult code;
    } seeds[] = {
        {"INVALID_VALUE", CUDA_ERROR_INVALID_VALUE},       {"INVALID_DEVICE", CUDA_ERROR_INVALID_DEVICE},
        {"NOT_INITIALIZED", CUDA_ERROR_NOT_INITIALIZED},   {"DEINITIALIZED", CUDA_ERROR_DEINITIALIZED},
        {"NOT_PERMITTED", CUDA_ERROR_NOT_PERMITTED},       {"NOT_SUPPORTED", CUDA_ERROR_NOT_SUPPORTED},
        {"OUT_OF_MEMORY", CUDA_ERROR_OUT_OF_MEMORY},       {"SYSTEM_NOT_READY", CUDA_ERROR_SYSTEM_NOT_READY},
        {"ILLEGAL_STATE", CUDA_ERROR_ILLEGAL_STATE},
    };
    for (size_t i = 0; i < sizeof seeds / sizeof seeds[0]; i++) {
        char full[64];
        CUresult code = CUDA_SUCCESS;
        snprintf(full, sizeof full, "CUDA_ERROR_%s", seeds[i].name);
        CHECK(mcoll_contract_error_from_name(full, &code) == 0 && code == seeds[i].code);
        code = CUDA_SUCCESS;
        CHECK(mcoll_contract_error_from_name(seeds[i].name, &code) == 0 && code == seeds[i].code);
        CHECK(strcmp(mcoll_contract_error_name(seeds[i].code), full) == 0);
    }
    CUresult code = CUDA_SUCCESS;
    CHECK(mcoll_contract_error_from_name("802", &code) == 0 && code == CUDA_ERROR_SYSTEM_NOT_READY);
    CHECK(mcoll_contract_error_from_name("CUDA_ERROR_NO_SUCH_THING", &code) == -1);
    CHECK(mcoll_contract_error_from_name("", &code) == -1);

    CHECK(mcoll_contract_fail("cuNoSuchCall", 1, CUDA_ERROR_UNKNOWN) == -1);
    CHECK(mcoll_contract_fail("cuMemMap", -1, CUDA_ERROR_UNKNOWN) == -1);
    CHECK(mcoll_contract_fail_spec("cuMemMap:1") == -1);
    CHECK(mcoll_contract_fail_spec("cuMemMap:x:OUT_OF_MEMORY") == -1);
    CHECK(mcoll_contract_fail_spec("cuMemMap:1:NOT_AN_ERROR") == -1);
    CHECK(mcoll_contract_fail_spec("cuMemMap:1:OUT_OF_MEMORY,cuBogus:1:OUT_OF_MEMORY") == -1);
    CHECK(mcoll_contract_fail_spec("cuMemMap:1:OUT_OF_MEMORY:3; cuMemUnmap:2:UNKNOWN") == 2);
    CHECK(mcoll_contract_fail_spec("cuMemMap:1:OUT_OF_MEMORY:4") == 0);  /* another rank's */
    mcoll_contract_fail_clear();
}

/* Inject every listed error into one call and check each failure is clean. */
static void inject_each(const char *call, const CUresult *errors, size_t count,
                        CUresult (*attempt)(void), void (*undo)(void))
{
    for (size_t i = 0; i < count; i++) {
        int live = mcoll_contract_live_objects();
        int violations = mcoll_contract_violations();
        CHECK(mcoll_contract_fail(call, 1, errors[i]) == 0);
        CUresult rc = attempt();
        if (rc != errors[i])
            fprintf(stderr, "%s: injected %s, got %s\n", call, mcoll_contract_error_name(errors[i]),
                    mcoll_contract_error_name(rc));
        CHECK(rc == errors[i]);
        CHECK(mcoll_contract_live_objects() == live);
        CHECK(mcoll_contract_violations() == violations);
        /* The rule fired once: the same call now succeeds, and is undone. */
        CHECK_OK(attempt());
        undo();
    }
    mcoll_contract_fail_clear();
}

static CUmemGenericAllocationHandle mc_handle, mem_handle, made;
static CUdeviceptr reserved;

static CUresult try_bind(void) { return cu->cuMulticastBindMem(mc_handle, 0, mem_handle, 0, 2 * MIB, 0); }
static void undo_bind(void) { CHECK_OK(cu->cuMulticastUnbind(mc_handle, 0, 0, 2 * MIB)); }
static CUresult try_create(void)
{
    CUmulticastObjectProp prop = multicast_prop(2, 2 * MIB);
    return cu->cuMulticastCreate(&made, &prop);
}
static void undo_create(void) { CHECK_OK(cu->cuMemRelease(made)); }
static CUresult try_map(void) { return cu->cuMemMap(reserved, 2 * MIB, 0, mem_handle, 0); }
static void undo_map(void) { CHECK_OK(cu->cuMemUnmap(reserved, 2 * MIB)); }

static void test_every_documented_error(void)
{
    /* 000/002_*.txt: cuMulticastBindMem. */
    static const CUresult bind_errors[] = {
        CUDA_ERROR_INVALID_VALUE, CUDA_ERROR_INVALID_DEVICE, CUDA_ERROR_NOT_INITIALIZED,
        CUDA_ERROR_DEINITIALIZED, CUDA_ERROR_NOT_PERMITTED, CUDA_ERROR_NOT_SUPPORTED,
        CUDA_ERROR_OUT_OF_MEMORY, CUDA_ERROR_SYSTEM_NOT_READY, CUDA_ERROR_ILLEGAL_STATE,
    };
    /* 001_*.txt: cuMulticastCreate. */
    static const CUresult create_errors[] = {
        CUDA_ERROR_INVALID_VALUE, CUDA_ERROR_OUT_OF_MEMORY, CUDA_ERROR_INVALID_DEVICE,
        CUDA_ERROR_NOT_INITIALIZED, CUDA_ERROR_DEINITIALIZED, CUDA_ERROR_NOT_PERMITTED,
        CUDA_ERROR_NOT_SUPPORTED,
    };
    /* 003_*.txt: cuMemMap. */
    static const CUresult map_errors[] = {
        CUDA_ERROR_INVALID_VALUE, CUDA_ERROR_INVALID_DEVICE, CUDA_ERROR_OUT_OF_MEMORY,
        CUDA_ERROR_NOT_INITIALIZED, CUDA_ERROR_DEINITIALIZED, CUDA_ERROR_NOT_PERMITTED,
        CUDA_ERROR_NOT_SUPPORTED,
    };
    CUmulticastObjectProp prop = multicast_prop(1, 2 * MIB);
    CHECK_OK(cu->cuMulticastCreate(&mc_handle, &prop));
    CHECK_OK(cu->cuMulticastAddDevice(mc_handle, 0));
    mem_handle = create(0, 2 * MIB);
    CHECK_OK(cu->cuMemAddressReserve(&reserved, 2 * MIB, 0, 0, 0));

    inject_each("cuMulticastBindMem", bind_errors, sizeof bind_errors / sizeof bind_errors[0],
                try_bind, undo_bind);
    inject_each("cuMulticastCreate", create_errors, sizeof create_errors / sizeof create_errors[0],
                try_create, undo_create);
    inject_each("cuMemMap", map_errors, sizeof map_errors / sizeof map_errors[0], try_map, undo_map);
    CHECK(mcoll_contract_injected() == 9 + 7 + 7);

    CHECK_OK(cu->cuMemAddressFree(reserved, 2 * MIB));
    CHECK_OK(cu->cuMemRelease(mem_handle));
    CHECK_OK(cu->cuMemRelease(mc_handle));
}

static void test_nth_and_always(void)
{
    int count = 0;
    /* nth counts from when the rule is set. */
    CHECK_OK(cu->cuDeviceGetCount(&count));
    CHECK(mcoll_contract_fail("cuDeviceGetCount", 3, CUDA_ERROR_UNKNOWN) == 0);
    CHECK_OK(cu->cuDeviceGetCount(&count));
    CHECK_OK(cu->cuDeviceGetCount(&count));
    CHECK_CU(cu->cuDeviceGetCount(&count), CUDA_ERROR_UNKNOWN);
    CHECK_OK(cu->cuDeviceGetCount(&count));

    /* nth = 0: every call until the rules are cleared. */
    CHECK(mcoll_contract_fail("cuMulticastGetGranularity", 0, CUDA_ERROR_NOT_SUPPORTED) == 0);
    CUmulticastObjectProp prop = multicast_prop(1, 2 * MIB);
    size_t granularity = 0;
    for (int i = 0; i < 3; i++)
        CHECK_CU(cu->cuMulticastGetGranularity(&granularity, &prop, CU_MULTICAST_GRANULARITY_MINIMUM),
                 CUDA_ERROR_NOT_SUPPORTED);
    CHECK(granularity == 0);
    mcoll_contract_fail_clear();
    CHECK_OK(cu->cuMulticastGetGranularity(&granularity, &prop, CU_MULTICAST_GRANULARITY_MINIMUM));

    /* A broken rule wins over an injected failure, and uses up the rule's invocation. */
    mcoll_contract_set_quiet(1);
    CUmemGenericAllocationHandle handle = create(0, 2 * MIB);
    CUdeviceptr va = 0;
    CHECK_OK(cu->cuMemAddressReserve(&va, 2 * MIB, 0, 0, 0));
    CHECK(mcoll_contract_fail("cuMemMap", 1, CUDA_ERROR_OUT_OF_MEMORY) == 0);
    int violations = mcoll_contract_violations();
    CHECK_CU(cu->cuMemMap(va, 2 * MIB, 2 * MIB, handle, 0), CUDA_ERROR_INVALID_VALUE);
    CHECK(mcoll_contract_violations() == violations + 1);
    CHECK_OK(cu->cuMemMap(va, 2 * MIB, 0, handle, 0));
    CHECK_OK(cu->cuMemUnmap(va, 2 * MIB));
    CHECK_OK(cu->cuMemAddressFree(va, 2 * MIB));
    CHECK_OK(cu->cuMemRelease(handle));
    mcoll_contract_reset();
    mcoll_contract_set_quiet(0);

    /* cuInit itself can fail: the driver then stays uninitialised. */
    CHECK(mcoll_contract_fail_spec("cuInit:1:CUDA_ERROR_NO_DEVICE") == 1);
    CHECK_CU(cu->cuInit(0), CUDA_ERROR_NO_DEVICE);
    CHECK_OK(cu->cuInit(0));
    mcoll_contract_reset();
    CHECK(mcoll_contract_injected() == 0 && mcoll_contract_calls("") == 0);
}

int main(void)
{
    setenv("OMPI_COMM_WORLD_RANK", "3", 1);
    setenv("MCOLL_CONTRACT_DEVICES", "4", 1);
    setenv("MCOLL_CONTRACT_FABRIC", "0", 1);
    setenv("MCOLL_CONTRACT_FAIL",
           "cuMulticastBindMem:1:CUDA_ERROR_SYSTEM_NOT_READY,cuMemCreate:2:OUT_OF_MEMORY:3;"
           "cuMemMap:1:NOT_PERMITTED:5",
           1);
    cu = mcoll_contract_driver();
    test_environment();
    test_error_names();
    test_every_documented_error();
    test_nth_and_always();
    CHECK(mcoll_contract_violations() == 0);
    CHECK(mcoll_contract_live_objects() == 0);
    return check_exit("test_model_faults");
}
