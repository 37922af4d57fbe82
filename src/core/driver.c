/* Loader of the driver table: dlopen libcuda.so.1 once, resolve every entry through
 * cuGetProcAddress. Never links libcuda, so the library loads where there is no driver. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include "driver.h"
#include "config.h"
#include "log.h"
#include "mcoll.h"

mcoll_driver mcoll_cu;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int load_result = MCOLL_ERR_NO_DEVICE;
static int installed;
static mcoll_driver installed_table;

typedef CUresult (*get_proc_v2_fn)(const char *, void **, int, cuuint64_t, CUdriverProcAddressQueryResult *);
typedef CUresult (*get_proc_v1_fn)(const char *, void **, int, cuuint64_t);

static get_proc_v2_fn get_proc_v2;
static get_proc_v1_fn get_proc_v1;

static void *resolve(const char *name, int version)
{
    void *fn = NULL;
    CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SUCCESS;
    CUresult rc;
    if (get_proc_v2)
        rc = get_proc_v2(name, &fn, version, CU_GET_PROC_ADDRESS_DEFAULT, &status);
    else
        rc = get_proc_v1(name, &fn, version, CU_GET_PROC_ADDRESS_DEFAULT);
    if (rc != CUDA_SUCCESS || status != CU_GET_PROC_ADDRESS_SUCCESS) return NULL;
    return fn;
}

static int load_from_libcuda(void)
{
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    int missing = 0;
    if (!lib) {
        MCOLL_INFO("no CUDA driver (%s): every call goes to MPI", dlerror());
        return MCOLL_ERR_NO_DEVICE;
    }
    get_proc_v2 = (get_proc_v2_fn)dlsym(lib, "cuGetProcAddress_v2");
    if (!get_proc_v2) get_proc_v1 = (get_proc_v1_fn)dlsym(lib, "cuGetProcAddress");
    if (!get_proc_v2 && !get_proc_v1) {
        MCOLL_WARN("libcuda.so.1 has no cuGetProcAddress: driver too old for mcoll, every call goes to MPI");
        return MCOLL_ERR_NO_DEVICE;
    }

#define RESOLVE_REQUIRED(name, version)                                              \
    mcoll_cu.name = (PFN_##name##_v##version)resolve(#name, version);                \
    if (!mcoll_cu.name) { MCOLL_WARN("driver entry point %s not found", #name); missing = 1; }
#define RESOLVE_OPTIONAL(name, version) \
    mcoll_cu.name = (PFN_##name##_v##version)resolve(#name, version);

    MCOLL_DRIVER_REQUIRED(RESOLVE_REQUIRED)
    MCOLL_DRIVER_VMM(RESOLVE_OPTIONAL)
    MCOLL_DRIVER_USER_MEMORY(RESOLVE_OPTIONAL)
    MCOLL_DRIVER_STREAM_WAIT(RESOLVE_OPTIONAL)
    MCOLL_DRIVER_KERNEL_LOAD(RESOLVE_OPTIONAL)
    /* With the multicast switch off not even the addresses of cuMulticast* are taken. */
    if (mcoll_settings_get()->nvls != MCOLL_OFF) {
        MCOLL_DRIVER_MULTICAST(RESOLVE_OPTIONAL)
    }
    if (missing) return MCOLL_ERR_NO_DEVICE;
    return MCOLL_SUCCESS;
}

static void load(void)
{
    CUresult rc;
    if (installed) {
        mcoll_cu = installed_table;
        /* The installed table obeys the kill switch too: tests count the calls. */
        if (mcoll_settings_get()->nvls == MCOLL_OFF) {
#define CLEAR_MULTICAST(name, version) mcoll_cu.name = NULL;
            MCOLL_DRIVER_MULTICAST(CLEAR_MULTICAST)
        }
    } else {
        load_result = load_from_libcuda();
        if (load_result != MCOLL_SUCCESS) {
            memset(&mcoll_cu, 0, sizeof mcoll_cu);
            return;
        }
    }
    rc = mcoll_cu.cuInit(0);
    if (rc != CUDA_SUCCESS) {
        MCOLL_INFO("cuInit failed (%s): no usable GPU, every call goes to MPI", mcoll_cu_errname(rc));
        memset(&mcoll_cu, 0, sizeof mcoll_cu);
        load_result = MCOLL_ERR_NO_DEVICE;
        return;
    }
    load_result = MCOLL_SUCCESS;
}

int mcoll_driver_load(void)
{
    pthread_once(&load_once, load);
    return load_result;
}

int mcoll_driver_available(void) { return load_result == MCOLL_SUCCESS; }

void mcoll_driver_install(const mcoll_driver *table)
{
    installed_table = *table;
    installed = 1;
}

const char *mcoll_cu_errname(CUresult rc)
{
    const char *name = NULL;
    static char unknown[32];
    if (mcoll_cu.cuGetErrorName && mcoll_cu.cuGetErrorName(rc, &name) == CUDA_SUCCESS && name) return name;
    snprintf(unknown, sizeof unknown, "CUDA error %d", (int)rc);
    return unknown;
}
