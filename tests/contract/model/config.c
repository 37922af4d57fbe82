/* Configuration of the modelled machine: device count, what each device reports through
 * cuDeviceGetAttribute, and the granularities of allocations and multicast objects. */
#define _GNU_SOURCE
#include <string.h>
#include "model.h"

#define MIB ((size_t)1 << 20)

void mcoll_contract_config_defaults(mcoll_contract_config *config)
{
    memset(config, 0, sizeof *config);
    config->device_count = 8;
    config->driver_version = 13000;
    config->compute_major = 9;
    config->compute_minor = 0;
    config->multiprocessor_count = 132;
    config->multicast_supported = 1;
    config->vmm_supported = 1;
    config->posix_fd_supported = 1;
    config->fabric_supported = 1;
    config->alloc_granularity_minimum = 2 * MIB;
    config->alloc_granularity_recommended = 2 * MIB;
    config->multicast_granularity_minimum = 2 * MIB;
    config->multicast_granularity_recommended = 512 * MIB;
}

/* Attributes of an H100-like device; the rest read 0. PCI bus ids are distinct per device. */
static void fill_attributes(int device, const mcoll_contract_config *c)
{
    int *a = model.attributes[device];
    memset(a, 0, sizeof model.attributes[device]);
    a[CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK] = 1024;
    a[CU_DEVICE_ATTRIBUTE_WARP_SIZE] = 32;
    a[CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT] = c->multiprocessor_count;
    a[CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR] = c->compute_major;
    a[CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR] = c->compute_minor;
    a[CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING] = 1;
    a[CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY] = 1;
    a[CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS] = 1;
    a[CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID] = 0;
    a[CU_DEVICE_ATTRIBUTE_PCI_BUS_ID] = 0x18 + 0x10 * device;
    a[CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID] = 0;
    a[CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED] = c->vmm_supported;
    a[CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED] = c->posix_fd_supported;
    a[CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED] = c->fabric_supported;
    a[CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED] = c->multicast_supported;
    a[CU_DEVICE_ATTRIBUTE_MPS_ENABLED] = c->mps_enabled;
    a[CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED] = 1;
    a[CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED] = 1;
}

void model_apply_config(const mcoll_contract_config *config)
{
    model.config = *config;
    memset(model.granularity, 0, sizeof model.granularity);
    for (int d = 0; d < MCOLL_CONTRACT_MAX_DEVICES; d++) fill_attributes(d, config);
}

static int valid_granularity(size_t g)
{
    return g >= model_page_size() && (g & (g - 1)) == 0;
}

int mcoll_contract_configure(const mcoll_contract_config *config)
{
    model_setup();
    if (!config || config->device_count < 1 || config->device_count > MCOLL_CONTRACT_MAX_DEVICES ||
        !valid_granularity(config->alloc_granularity_minimum) ||
        !valid_granularity(config->alloc_granularity_recommended) ||
        !valid_granularity(config->multicast_granularity_minimum) ||
        !valid_granularity(config->multicast_granularity_recommended))
        return -1;
    pthread_mutex_lock(&model.lock);
    model_apply_config(config);
    pthread_mutex_unlock(&model.lock);
    return 0;
}

void mcoll_contract_get_config(mcoll_contract_config *config)
{
    model_setup();
    pthread_mutex_lock(&model.lock);
    *config = model.config;
    pthread_mutex_unlock(&model.lock);
}

int mcoll_contract_set_attribute(int device, CUdevice_attribute attribute, int value)
{
    model_setup();
    if ((int)attribute <= 0 || (int)attribute >= MODEL_ATTRIBUTE_COUNT || device < -1 ||
        device >= MCOLL_CONTRACT_MAX_DEVICES)
        return -1;
    pthread_mutex_lock(&model.lock);
    for (int d = 0; d < MCOLL_CONTRACT_MAX_DEVICES; d++)
        if (device == -1 || device == d) model.attributes[d][attribute] = value;
    pthread_mutex_unlock(&model.lock);
    return 0;
}

int mcoll_contract_node(void)
{
    model_setup();
    pthread_mutex_lock(&model.lock);
    int node = model_this_node();
    pthread_mutex_unlock(&model.lock);
    return node;
}

void mcoll_contract_set_node_size(int node_size)
{
    model_setup();
    pthread_mutex_lock(&model.lock);
    model.config.node_size = node_size > 0 ? node_size : 0;
    pthread_mutex_unlock(&model.lock);
}

int model_this_node(void)
{
    int rank = model_launcher_rank();
    return model.config.node_size > 0 && rank > 0 ? rank / model.config.node_size : 0;
}

int model_global_device(int device)
{
    return model_this_node() * model.config.device_count + device;
}

int model_valid_device(int device)
{
    return device >= 0 && device < model.config.device_count;
}

int model_attribute(int device, CUdevice_attribute attribute)
{
    if (!model_valid_device(device) || (int)attribute <= 0 || (int)attribute >= MODEL_ATTRIBUTE_COUNT)
        return 0;
    return model.attributes[device][attribute];
}

int model_any_device_has(CUdevice_attribute attribute)
{
    for (int d = 0; d < model.config.device_count; d++)
        if (model_attribute(d, attribute)) return 1;
    return 0;
}

size_t model_alloc_granularity(int device, int recommended)
{
    size_t g = model_valid_device(device) ? model.granularity[device][recommended != 0] : 0;
    if (g) return g;
    return recommended ? model.config.alloc_granularity_recommended : model.config.alloc_granularity_minimum;
}

int mcoll_contract_set_granularity(int device, size_t minimum, size_t recommended)
{
    model_setup();
    pthread_mutex_lock(&model.lock);
    int ok = model_valid_device(device) &&
             ((minimum == 0 && recommended == 0) ||
              (valid_granularity(minimum) && valid_granularity(recommended) && recommended % minimum == 0));
    if (ok) {
        model.granularity[device][0] = minimum;
        model.granularity[device][1] = recommended;
    }
    pthread_mutex_unlock(&model.lock);
    return ok ? 0 : -1;
}
