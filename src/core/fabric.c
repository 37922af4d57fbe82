/* NVML's GPU fabric info, loaded at run time (see fabric.h). */
#include <dlfcn.h>
#include <pthread.h>
#include <string.h>
#include "driver.h"
#include "fabric.h"
#include "log.h"

/* The few NVML declarations used, spelled here so that building needs no nvml.h. */
typedef struct nvml_device *nvml_device;
typedef struct {                  /* nvmlGpuFabricInfo_t */
    unsigned char cluster_uuid[16];
    int status;
    unsigned clique_id;
    unsigned char state;
} nvml_fabric_v1;
typedef struct {                  /* nvmlGpuFabricInfo_v2_t */
    unsigned version;
    unsigned char cluster_uuid[16];
    int status;
    unsigned clique_id;
    unsigned char state;
    unsigned health_mask;
} nvml_fabric_v2;
#define NVML_FABRIC_INFO_V2 ((unsigned)sizeof(nvml_fabric_v2) | (2u << 24))
#define NVML_FABRIC_STATE_COMPLETED 3

static struct {
    int (*init)(void);
    int (*by_bus_id)(const char *, nvml_device *);
    int (*fabric_v)(nvml_device, nvml_fabric_v2 *);
    int (*fabric)(nvml_device, nvml_fabric_v1 *);
    int ok;
} nvml;
static pthread_once_t nvml_once = PTHREAD_ONCE_INIT;
static mcoll_fabric_query_fn installed;

static void nvml_load(void)
{
    void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) return;
    *(void **)&nvml.init = dlsym(lib, "nvmlInit_v2");
    *(void **)&nvml.by_bus_id = dlsym(lib, "nvmlDeviceGetHandleByPciBusId_v2");
    *(void **)&nvml.fabric_v = dlsym(lib, "nvmlDeviceGetGpuFabricInfoV");
    *(void **)&nvml.fabric = dlsym(lib, "nvmlDeviceGetGpuFabricInfo");
    /* The library stays open: NVML keeps state for the life of the process. */
    nvml.ok = nvml.init && nvml.by_bus_id && (nvml.fabric_v || nvml.fabric) && nvml.init() == 0;
    MCOLL_TRACE("NVML %s", nvml.ok ? "loaded" : "without GPU fabric info");
}

/* A clique counts once the GPU's registration with the fabric manager is complete and good. */
static int nvml_query(const char *bus_id, mcoll_fabric_info *info)
{
    nvml_device dev;
    pthread_once(&nvml_once, nvml_load);
    if (!nvml.ok || nvml.by_bus_id(bus_id, &dev) != 0) return 0;
    if (nvml.fabric_v) {
        nvml_fabric_v2 v;
        memset(&v, 0, sizeof v);
        v.version = NVML_FABRIC_INFO_V2;
        if (nvml.fabric_v(dev, &v) != 0 || v.state != NVML_FABRIC_STATE_COMPLETED || v.status != 0) return 0;
        memcpy(info->cluster_uuid, v.cluster_uuid, sizeof info->cluster_uuid);
        info->clique_id = v.clique_id;
        return 1;
    }
    {
        nvml_fabric_v1 v;
        memset(&v, 0, sizeof v);
        if (nvml.fabric(dev, &v) != 0 || v.state != NVML_FABRIC_STATE_COMPLETED || v.status != 0) return 0;
        memcpy(info->cluster_uuid, v.cluster_uuid, sizeof info->cluster_uuid);
        info->clique_id = v.clique_id;
        return 1;
    }
}

void mcoll_fabric_install(mcoll_fabric_query_fn query) { installed = query; }

/* FNV-1a over the UUID and the clique id. */
static int64_t key_of(const mcoll_fabric_info *info)
{
    uint64_t h = 1469598103934665603ull;
    unsigned char bytes[20];
    int i;
    memcpy(bytes, info->cluster_uuid, 16);
    for (i = 0; i < 4; i++) bytes[16 + i] = (unsigned char)(info->clique_id >> (8 * i));
    for (i = 0; i < 20; i++) h = (h ^ bytes[i]) * 1099511628211ull;
    return (int64_t)(h >> 1);
}

static int64_t query_key(int device)
{
    static const unsigned char no_cluster[16];
    mcoll_fabric_info info;
    char bus_id[32];
    CUdevice dev;
    if (!mcoll_driver_available() || mcoll_cu.cuDeviceGet(&dev, device) != CUDA_SUCCESS ||
        mcoll_cu.cuDeviceGetPCIBusId(bus_id, (int)sizeof bus_id, dev) != CUDA_SUCCESS)
        return -1;
    memset(&info, 0, sizeof info);
    if (!(installed ? installed : nvml_query)(bus_id, &info)) return -1;
    /* A GPU outside any NVLink cluster reports a zero UUID. */
    if (!memcmp(info.cluster_uuid, no_cluster, sizeof no_cluster)) return -1;
    return key_of(&info);
}

/* Asked once per device: a GPU's clique does not change while the process runs. */
#define MAX_DEVICES 64
static int64_t known[MAX_DEVICES];
static int asked[MAX_DEVICES];
static pthread_mutex_t known_lock = PTHREAD_MUTEX_INITIALIZER;

int64_t mcoll_fabric_key(int device)
{
    int64_t key;
    if (device < 0 || device >= MAX_DEVICES || installed) return query_key(device); /* models change */
    pthread_mutex_lock(&known_lock);
    if (!asked[device]) {
        known[device] = query_key(device);
        asked[device] = 1;
    }
    key = known[device];
    pthread_mutex_unlock(&known_lock);
    return key;
}
