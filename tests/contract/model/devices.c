/* Initialisation, devices and primary contexts. The current context is per thread, as in the
 * driver; a context handle is the address of one byte of `contexts`, one per device. */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include "model.h"

static char contexts[MCOLL_CONTRACT_MAX_DEVICES];
static _Thread_local int current_device = -1;

int model_current_device(void)
{
    return current_device;
}

CUcontext model_context_of(int device)
{
    return model_valid_device(device) ? (CUcontext)(void *)&contexts[device] : NULL;
}

/* Device of a context handle, or -1 when it is not one of ours. */
static int device_of_context(CUcontext context)
{
    const char *p = (const char *)(void *)context;
    if (p < contexts || p >= contexts + MCOLL_CONTRACT_MAX_DEVICES) return -1;
    return (int)(p - contexts);
}

CUresult model_cuInit(unsigned int flags)
{
    model_call call;
    CUresult rc = model_enter(&call, MODEL_cuInit, 0, "flags=%u", flags);
    if (rc != CUDA_SUCCESS) return rc;
    if (flags != 0) return model_violation(&call, CUDA_ERROR_INVALID_VALUE, "Flags must be 0");
    if (model_injecting(&call)) return model_leave(&call, call.inject);
    model.initialized = 1;
    return model_leave(&call, CUDA_SUCCESS);
}

CUresult model_cuDriverGetVersion(int *version)
{
    model_call call;
    CUresult rc = model_enter(&call, MODEL_cuDriverGetVersion, 0, "version=%p", (void *)version);
    if (rc != CUDA_SUCCESS) return rc;
    if (!version) return model_violation(&call, CUDA_ERROR_INVALID_VALUE, "driverVersion is NULL");
    if (model_injecting(&call)) return model_leave(&call, call.inject);
    *version = model.config.driver_version;
    return model_leave(&call, CUDA_SUCCESS);
}

CUresult model_cuDeviceGetCount(int *count)
{
    model_call call;
    CUresult rc = model_enter(&call, MODEL_cuDeviceGetCount, 1, "count=%p", (void *)count);
    if (rc != CUDA_SUCCESS) return rc;
    if (!count) return model_violation(&call, CUDA_ERROR_INVALID_VALUE, "count is NULL");
    if (model_injecting(&call)) return model_leave(&call, call.inject);
    *count = model.config.device_count;
    return model_leave(&call, CUDA_SUCCESS);
}

CUresult model_cuDeviceGet(CUdevice *device, int ordinal)
{
    model_call call;
    CUresult rc = model_enter(&call, MODEL_cuDeviceGet, 1, "ordinal=%d", ordinal);
    if (rc != CUDA_SUCCESS) return rc;
    if (!device) return model_violation(&call, CUDA_ERROR_INVALID_VALUE, "device is NULL");
    if (!model_valid_device(ordinal))
        return model_violation(&call, CUDA_ERROR_INVALID_DEVICE, "ordinal not in [0, %d)",
                               model.config.device_count);
    if (model_injecting(&call)) return model_leave(&call, call.inject);
    *device = ordinal;
    return model_leave(&call, CUDA_SUCCESS);
}

CUresult model_cuDeviceGetAttribute(int *value, CUdevice_attribute attribute, CUdevice device)
{
    model_call call;
    CUresult rc = model_enter(&call, MODEL_cuDeviceGetAttribute, 1, "attribute=%d, device=%d",
                              (int)attribute, device);
    if (rc != CUDA_SUCCESS) return rc;
    if (!value) return model_violation(&call, CUDA_ERROR_INVALID_VALUE, "pi is NULL");
    if ((int)attribute <= 0 || (int)attribute >= MODEL_ATTRIBUTE_COUNT)
        return model_violation(&call, CUDA_ERROR_INVALID_VALUE, "unknown attribute");
    if (!model_valid_device(device))
        return model_violation(&call, CUDA_ERROR_INVALID_DEVICE, "no device %d", device);
    if (model_injecting(&call)) return model_leave(&call, call.inject);
    *value = model_attribute(device, attribute);
    return model_leave(&call, CUDA_SUCCESS);
}

CUresult model_cuDeviceGetPCIBusId(char *bus_id, int len, CUdevice device)
{
    model_call call;
    CUresult rc = model_enter(&call, MODEL_cuDeviceGetPCIBusId, 1, "len=%d, device=%d", len, device);
    if (rc != CUDA_SUCCESS) return rc;
    if (!bus_id || len <= 0)
        return model_violation(&call, CUDA_ERROR_INVALID_VALUE, "pciBusId is NULL or len <= 0");
    if (!model_valid_device(device))
        return model_violation(&call, CUDA_ERROR_INVALID_DEVICE, "no device %d", device);
    if (model_injecting(&call)) return model_leave(&call, call.inject);
    snprintf(bus_id, (size_t)len, "%04x:%02x:00.0",
             model_attribute(device, CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID),
             model_attribute(device, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID));
    return model_leave(&call, CUDA_SUCCESS);
}

/* Every process of a node sees device d as the same GPU: ranks given the same ordinal share
 * it. Another node's device d is another GPU. */
CUresult model_cuDeviceGetUuid(CUuuid *uuid, CUdevice device)
{
    model_call call;
    CUresult rc = model_enter(&call, MODEL_cuDeviceGetUuid, 1, "device=%d", device);
    if (rc != CUDA_SUCCESS) return rc;
    if (!uuid) return model_violation(&call, CUDA_ERROR_INVALID_VALUE, "uuid is NULL");
    if (!model_valid_device(device))
        return model_violation(&call, CUDA_ERROR_INVALID_DEVICE, "no device %d", device);
    if (model_injecting(&call)) return model_leave(&call, call.inject);
    memset(uuid->bytes, 0, sizeof uuid->bytes);
    memcpy(uuid->bytes, "model-gpu", 9);
    uuid->bytes[14] = (char)model_this_node();
    uuid->bytes[15] = (char)device;
    return model_leave(&call, CUDA_SUCCESS);
}

CUresult model_cuDevicePrimaryCtxRetain(CUcontext *context, CUdevice device)
{
    model_call call;
    CUresult rc = model_enter(&call, MODEL_cuDevicePrimaryCtxRetain, 1, "device=%d", device);
    if (rc != CUDA_SUCCESS) return rc;
    if (!context) return model_violation(&call, CUDA_ERROR_INVALID_VALUE, "pctx is NULL");
    if (!model_valid_device(device))
        return model_violation(&call, CUDA_ERROR_INVALID_DEVICE, "no device %d", device);
    if (model_injecting(&call)) return model_leave(&call, call.inject);
    model.context_retains[device]++;
    *context = model_context_of(device);
    return model_leave(&call, CUDA_SUCCESS);
}

CUresult model_cuDevicePrimaryCtxRelease(CUdevice device)
{
    model_call call;
    CUresult rc = model_enter(&call, MODEL_cuDevicePrimaryCtxRelease, 1, "device=%d", device);
    if (rc != CUDA_SUCCESS) return rc;
    if (!model_valid_device(device))
        return model_violation(&call, CUDA_ERROR_INVALID_DEVICE, "no device %d", device);
    if (model.context_retains[device] == 0)
        return model_violation(&call, CUDA_ERROR_INVALID_CONTEXT,
                               "primary context of device %d released more often than retained",
                               device);
    if (model_injecting(&call)) return model_leave(&call, call.inject);
    model.context_retains[device]--;
    return model_leave(&call, CUDA_SUCCESS);
}

CUresult model_cuCtxGetCurrent(CUcontext *context)
{
    model_call call;
    CUresult rc = model_enter(&call, MODEL_cuCtxGetCurrent, 1, "%s", "");
    if (rc != CUDA_SUCCESS) return rc;
    if (!context) return model_violation(&call, CUDA_ERROR_INVALID_VALUE, "pctx is NULL");
    if (model_injecting(&call)) return model_leave(&call, call.inject);
    *context = current_device >= 0 ? model_context_of(current_device) : NULL;
    return model_leave(&call, CUDA_SUCCESS);
}

CUresult model_cuCtxSetCurrent(CUcontext context)
{
    model_call call;
    CUresult rc = model_enter(&call, MODEL_cuCtxSetCurrent, 1, "ctx=%p", (void *)context);
    if (rc != CUDA_SUCCESS) return rc;
    int device = context ? device_of_context(context) : -1;
    if (context && !model_valid_device(device))
        return model_violation(&call, CUDA_ERROR_INVALID_CONTEXT, "not a context of this driver");
    if (context && model.context_retains[device] == 0)
        return model_violation(&call, CUDA_ERROR_INVALID_CONTEXT,
                               "primary context of device %d is not retained", device);
    if (model_injecting(&call)) return model_leave(&call, call.inject);
    current_device = device;
    return model_leave(&call, CUDA_SUCCESS);
}

CUresult model_cuCtxGetDevice(CUdevice *device)
{
    model_call call;
    CUresult rc = model_enter(&call, MODEL_cuCtxGetDevice, 1, "%s", "");
    if (rc != CUDA_SUCCESS) return rc;
    if (!device) return model_violation(&call, CUDA_ERROR_INVALID_VALUE, "device is NULL");
    if (current_device < 0)
        return model_violation(&call, CUDA_ERROR_INVALID_CONTEXT, "no current context");
    if (model_injecting(&call)) return model_leave(&call, call.inject);
    *device = current_device;
    return model_leave(&call, CUDA_SUCCESS);
}

CUresult model_cuCtxSynchronize(void)
{
    model_call call;
    CUresult rc = model_enter(&call, MODEL_cuCtxSynchronize, 1, "%s", "");
    if (rc != CUDA_SUCCESS) return rc;
    if (current_device < 0)
        return model_violation(&call, CUDA_ERROR_INVALID_CONTEXT, "no current context");
    if (model_injecting(&call)) return model_leave(&call, call.inject);
    model_work_done(NULL, 1);  /* the kernels tests declared (kernel.c) are done */
    return model_leave(&call, CUDA_SUCCESS);
}
