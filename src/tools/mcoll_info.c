/* mcoll_info: the settings mcoll would use here, and what it finds of the driver and GPUs. */
#include <stdio.h>
#include "mcoll.h"
#include "config.h"
#include "driver.h"

int main(void)
{
    int count = 0, i, version = 0;
    printf("mcoll %s (API %d.%d)\n\n", MCOLL_PACKAGE_VERSION, mcoll_version() / 1000, mcoll_version() % 1000);
    mcoll_config_print();
    printf("\n");
    if (mcoll_driver_load() != MCOLL_SUCCESS) {
        printf("CUDA driver: not found or no usable GPU (every MPI call is forwarded)\n");
        return 0;
    }
    mcoll_cu.cuDriverGetVersion(&version);
    mcoll_cu.cuDeviceGetCount(&count);
    printf("CUDA driver: %d.%d, %d GPU(s)\n", version / 1000, version % 1000 / 10, count);
    for (i = 0; i < count; i++) {
        CUdevice dev;
        int mc = 0, fabric = 0, vmm = 0;
        char bus[32] = "?";
        mcoll_cu.cuDeviceGet(&dev, i);
        mcoll_cu.cuDeviceGetPCIBusId(bus, sizeof bus, dev);
        mcoll_cu.cuDeviceGetAttribute(&vmm, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, dev);
        mcoll_cu.cuDeviceGetAttribute(&fabric, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED, dev);
        mcoll_cu.cuDeviceGetAttribute(&mc, CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED, dev);
        printf("  GPU %d %s: virtual memory %s, fabric handles %s, multicast %s\n", i, bus, vmm ? "yes" : "no",
               fabric ? "yes" : "no", mc ? "supported" : "not supported");
    }
    if (mcoll_settings_get()->nvls_killed) printf("multicast: off (NCCL_NVLS_ENABLE=0)\n");
    return 0;
}
