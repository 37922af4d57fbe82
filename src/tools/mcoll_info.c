/* mcoll_info: which mcoll library a program loads here (its file and version), the settings it
 * reads, and what the CUDA driver shows. It links the shared library like any application, so
 * LD_PRELOAD, LD_LIBRARY_PATH and the RUNPATH choose the library it reports as they would for
 * the application; it uses only the public API, and asks the driver itself for the GPUs. */
#define _GNU_SOURCE
#include <cuda.h>
#include <cudaTypedefs.h>
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mcoll.h"

#ifndef MCOLL_PACKAGE_VERSION
#define MCOLL_PACKAGE_VERSION "unknown"
#endif

extern char **environ;

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: mcoll_info [-a] [-V] [-h]\n"
            "Reports the mcoll library this program loaded, the MCOLL_* settings and the GPUs.\n"
            "\n"
            "  (no option)    library, CUDA driver and GPUs, and the MCOLL_* variables set here\n"
            "  -a, --all      the same, then every setting with its value, default and meaning\n"
            "  -V, --version  the versions of this program and of the library it loaded\n"
            "  -h, --help     this text\n"
            "\n"
            "The library is found as an application finds it: LD_PRELOAD, LD_LIBRARY_PATH, then\n"
            "this program's RUNPATH (the directory it was installed for).\n");
}

/* The file of the mcoll library this program calls: the first object after the program in the
 * loader's order that defines mcoll_version (a preloaded one comes first). NULL when mcoll is
 * linked into the program itself. */
static const char *library_file(char *buf, size_t len)
{
    Dl_info info;
    void *sym = dlsym(RTLD_NEXT, "mcoll_version");
    if (!sym || !dladdr(sym, &info) || !info.dli_fname) return NULL;
    if (!realpath(info.dli_fname, buf)) snprintf(buf, len, "%s", info.dli_fname);
    return buf;
}

/* The package version in an installed library's file name (libmcoll.so.0.2.0). */
static const char *file_version(const char *file)
{
    const char *v = file ? strstr(file, "libmcoll.so.") : NULL;
    return v && v[12] ? v + 12 : "not in the file name";
}

static void report_library(void)
{
    char buf[PATH_MAX];
    const char *file = library_file(buf, sizeof buf);
    int api = mcoll_version();

    if (file)
        printf("library:      %s (version %s, API %d.%d)\n", file, file_version(file), api / 1000, api % 1000);
    else
        printf("library:      linked into this program (version %s, API %d.%d)\n", MCOLL_PACKAGE_VERSION,
               api / 1000, api % 1000);
    if (api / 1000 != MCOLL_API_VERSION_MAJOR || api < MCOLL_API_VERSION)
        printf("              note: this mcoll_info was built for API %d.%d\n", MCOLL_API_VERSION_MAJOR,
               MCOLL_API_VERSION_MINOR);
}

/* The driver as any CUDA program sees it (mcoll itself also never links libcuda). */
static void report_driver(void)
{
    void *cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    PFN_cuInit_v2000 init;
    PFN_cuDriverGetVersion_v2020 get_version;
    PFN_cuDeviceGetCount_v2000 get_count;
    PFN_cuDeviceGet_v2000 get_device;
    PFN_cuDeviceGetName_v2000 get_name;
    PFN_cuDeviceGetPCIBusId_v4010 get_bus_id;
    PFN_cuDeviceGetAttribute_v2000 get_attribute;
    int version = 0, count = 0, i;
    CUresult rc;

    if (!cuda) {
        printf("CUDA driver:  none (%s); mcoll forwards every MPI call to MPI\n", dlerror());
        return;
    }
    init = (PFN_cuInit_v2000)dlsym(cuda, "cuInit");
    get_version = (PFN_cuDriverGetVersion_v2020)dlsym(cuda, "cuDriverGetVersion");
    get_count = (PFN_cuDeviceGetCount_v2000)dlsym(cuda, "cuDeviceGetCount");
    get_device = (PFN_cuDeviceGet_v2000)dlsym(cuda, "cuDeviceGet");
    get_name = (PFN_cuDeviceGetName_v2000)dlsym(cuda, "cuDeviceGetName");
    get_bus_id = (PFN_cuDeviceGetPCIBusId_v4010)dlsym(cuda, "cuDeviceGetPCIBusId");
    get_attribute = (PFN_cuDeviceGetAttribute_v2000)dlsym(cuda, "cuDeviceGetAttribute");
    if (!init || !get_version || !get_count || !get_device || !get_name || !get_bus_id || !get_attribute) {
        printf("CUDA driver:  libcuda.so.1 lacks basic entry points; mcoll forwards every MPI call to MPI\n");
        return;
    }
    get_version(&version);
    rc = init(0);
    if (rc == CUDA_SUCCESS) get_count(&count);
    printf("CUDA driver:  %d.%d, %d GPU(s)%s\n", version / 1000, version % 1000 / 10, count,
           rc == CUDA_SUCCESS ? "" : " (cuInit failed; mcoll forwards every MPI call to MPI)");
    for (i = 0; i < count; i++) {
        CUdevice dev;
        int mc = 0, fabric = 0, vmm = 0;
        char bus[32] = "?", name[128] = "?";
        get_device(&dev, i);
        get_name(name, sizeof name, dev);
        get_bus_id(bus, sizeof bus, dev);
        get_attribute(&vmm, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, dev);
        get_attribute(&fabric, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED, dev);
        get_attribute(&mc, CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED, dev);
        printf("  GPU %d %s %s: virtual memory %s, fabric handles %s, multicast %s\n", i, bus, name,
               vmm ? "yes" : "no", fabric ? "yes" : "no", mc ? "supported" : "not supported");
    }
    {
        const char *nccl = getenv("NCCL_NVLS_ENABLE");
        if (nccl && !strcmp(nccl, "0")) printf("multicast:    off (NCCL_NVLS_ENABLE=0)\n");
    }
}

/* The variables the library reads that are set in this environment. */
static void report_environment(void)
{
    char **e;
    int n = 0;
    for (e = environ; *e; e++) {
        if (strncmp(*e, "MCOLL_", 6) && strncmp(*e, "NCCL_NVLS_ENABLE=", 17)) continue;
        printf("%s%s\n", n++ ? "              " : "settings:     ", *e);
    }
    if (!n) printf("settings:     no MCOLL_* variable set: defaults\n");
}

int main(int argc, char **argv)
{
    int all = 0, i;

    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(argv[i], "-V") || !strcmp(argv[i], "--version")) {
            printf("mcoll_info %s (API %d.%d)\n", MCOLL_PACKAGE_VERSION, MCOLL_API_VERSION_MAJOR, MCOLL_API_VERSION_MINOR);
            report_library();
            return 0;
        } else if (!strcmp(argv[i], "-a") || !strcmp(argv[i], "--all")) {
            all = 1;
        } else {
            fprintf(stderr, "mcoll_info: unknown option %s\n", argv[i]);
            usage(stderr);
            return 2;
        }
    }

    printf("mcoll_info %s\n", MCOLL_PACKAGE_VERSION);
    report_library();
    report_driver();
    report_environment();
    if (all) {
        printf("\n");
        mcoll_config_print();
    } else {
        printf("(mcoll_info -a lists every setting)\n");
    }
    return 0;
}
