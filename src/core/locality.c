/* GPU locality through hwloc's core API. The PCI address comes from the driver table, so
 * nothing here links libcuda (hwloc/cuda.h would). The topology is loaded once. Built without
 * hwloc (configure --without-hwloc), pinned memory comes from the driver, on any node. */
#include <pthread.h>
#include <stdio.h>
#include "checks.h"
#include "locality.h"

#if MCOLL_HAVE_HWLOC
#include <hwloc.h>

static hwloc_topology_t topology;
static int topology_ok;
static pthread_once_t topology_once = PTHREAD_ONCE_INIT;

static void load_topology(void)
{
    if (hwloc_topology_init(&topology) != 0) return;
    hwloc_topology_set_io_types_filter(topology, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
    if (hwloc_topology_load(topology) != 0) {
        hwloc_topology_destroy(topology);
        return;
    }
    topology_ok = 1;
}

/* The first non-I/O ancestor of the GPU's PCI device: its cpuset and nodeset are the GPU's. */
static hwloc_obj_t gpu_ancestor(int device, char *busid, size_t len)
{
    CUdevice dev;
    hwloc_obj_t pci;
    pthread_once(&topology_once, load_topology);
    if (!topology_ok || !mcoll_driver_available()) return NULL;
    if (mcoll_cu.cuDeviceGet(&dev, device) != CUDA_SUCCESS ||
        mcoll_cu.cuDeviceGetPCIBusId(busid, (int)len, dev) != CUDA_SUCCESS)
        return NULL;
    pci = hwloc_get_pcidev_by_busidstring(topology, busid);
    return pci ? hwloc_get_non_io_ancestor_obj(topology, pci) : NULL;
}

void mcoll_locality_log(int device)
{
    char busid[32] = "?", cpus[256] = "?", nodes[64] = "?";
    hwloc_obj_t near;
    if (mcoll_log_level < MCOLL_LOG_INFO) return;
    near = gpu_ancestor(device, busid, sizeof busid);
    if (near) {
        hwloc_bitmap_list_snprintf(cpus, sizeof cpus, near->cpuset);
        hwloc_bitmap_list_snprintf(nodes, sizeof nodes, near->nodeset);
    }
    MCOLL_INFO("GPU %d (%s): NUMA node(s) %s, CPUs %s", device, busid, nodes, cpus);
}

void *mcoll_host_alloc_near(int device, size_t bytes, int *registered)
{
    char busid[32];
    hwloc_obj_t near = gpu_ancestor(device, busid, sizeof busid);
    void *ptr = NULL;

    *registered = 0;
    if (near) {
        ptr = hwloc_alloc_membind(topology, bytes, near->nodeset, HWLOC_MEMBIND_BIND, HWLOC_MEMBIND_BYNODESET);
        if (ptr && mcoll_cu.cuMemHostRegister(ptr, bytes, CU_MEMHOSTREGISTER_PORTABLE) == CUDA_SUCCESS) {
            *registered = 1;
            return ptr;
        }
        if (ptr) hwloc_free(topology, ptr, bytes);
        ptr = NULL;
    }
    if (mcoll_cu.cuMemHostAlloc(&ptr, bytes, CU_MEMHOSTALLOC_PORTABLE) == CUDA_SUCCESS) return ptr;
    return NULL;
}

/* Quietly: at finalize the context may already be gone, and the memory's pinning with it. */
void mcoll_host_free_near(void *ptr, size_t bytes, int registered)
{
    if (!ptr) return;
    if (registered) {
        mcoll_cu.cuMemHostUnregister(ptr);
        hwloc_free(topology, ptr, bytes);
    } else {
        mcoll_cu.cuMemFreeHost(ptr);
    }
}

int mcoll_locality_thread_cores(void)
{
    hwloc_bitmap_t set;
    int cores = -1;
    pthread_once(&topology_once, load_topology);
    if (!topology_ok || !(set = hwloc_bitmap_alloc())) return -1;
    if (hwloc_get_cpubind(topology, set, HWLOC_CPUBIND_THREAD) == 0)
        cores = hwloc_get_nbobjs_inside_cpuset_by_type(topology, set, HWLOC_OBJ_CORE);
    hwloc_bitmap_free(set);
    return cores;
}

#else /* !MCOLL_HAVE_HWLOC */

void mcoll_locality_log(int device)
{
    MCOLL_INFO("GPU %d: NUMA placement unknown (mcoll built without hwloc)", device);
}

void *mcoll_host_alloc_near(int device, size_t bytes, int *registered)
{
    void *ptr = NULL;
    (void)device;
    *registered = 0;
    if (mcoll_cu.cuMemHostAlloc(&ptr, bytes, CU_MEMHOSTALLOC_PORTABLE) == CUDA_SUCCESS) return ptr;
    return NULL;
}

int mcoll_locality_thread_cores(void) { return -1; }

void mcoll_host_free_near(void *ptr, size_t bytes, int registered)
{
    (void)bytes;
    (void)registered;
    if (ptr) mcoll_cu.cuMemFreeHost(ptr);
}

#endif /* MCOLL_HAVE_HWLOC */
