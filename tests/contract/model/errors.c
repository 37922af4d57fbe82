/* Error names and texts: cuGetErrorName / cuGetErrorString, and name parsing for fault rules. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include "model.h"

typedef struct {
    CUresult code;
    const char *name;
    const char *text;
} model_error;

#define E(code, text) {code, #code, text}
static const model_error errors[] = {
    E(CUDA_SUCCESS, "no error"),
    E(CUDA_ERROR_INVALID_VALUE, "invalid argument"),
    E(CUDA_ERROR_OUT_OF_MEMORY, "out of memory"),
    E(CUDA_ERROR_NOT_INITIALIZED, "initialization error"),
    E(CUDA_ERROR_DEINITIALIZED, "driver shutting down"),
    E(CUDA_ERROR_NO_DEVICE, "no CUDA-capable device is detected"),
    E(CUDA_ERROR_INVALID_DEVICE, "invalid device ordinal"),
    E(CUDA_ERROR_DEVICE_NOT_LICENSED, "device doesn't have valid Grid license"),
    E(CUDA_ERROR_INVALID_IMAGE, "device kernel image is invalid"),
    E(CUDA_ERROR_INVALID_CONTEXT, "invalid device context"),
    E(CUDA_ERROR_MAP_FAILED, "mapping of buffer object failed"),
    E(CUDA_ERROR_UNMAP_FAILED, "unmapping of buffer object failed"),
    E(CUDA_ERROR_ALREADY_MAPPED, "resource already mapped"),
    E(CUDA_ERROR_NO_BINARY_FOR_GPU, "no kernel image is available for execution on the device"),
    E(CUDA_ERROR_NOT_MAPPED, "resource not mapped"),
    E(CUDA_ERROR_ECC_UNCORRECTABLE, "uncorrectable ECC error encountered"),
    E(CUDA_ERROR_PEER_ACCESS_UNSUPPORTED, "peer access is not supported between these two devices"),
    E(CUDA_ERROR_NVLINK_UNCORRECTABLE, "uncorrectable NVLink error detected during the execution"),
    E(CUDA_ERROR_OPERATING_SYSTEM, "OS call failed or operation not supported on this OS"),
    E(CUDA_ERROR_INVALID_HANDLE, "invalid resource handle"),
    E(CUDA_ERROR_ILLEGAL_STATE, "the operation cannot be performed in the present state"),
    E(CUDA_ERROR_NOT_FOUND, "named symbol not found"),
    E(CUDA_ERROR_NOT_READY, "device not ready"),
    E(CUDA_ERROR_ILLEGAL_ADDRESS, "an illegal memory access was encountered"),
    E(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "too many resources requested for launch"),
    E(CUDA_ERROR_LAUNCH_TIMEOUT, "the launch timed out and was terminated"),
    E(CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED, "peer access is already enabled"),
    E(CUDA_ERROR_PEER_ACCESS_NOT_ENABLED, "peer access has not been enabled"),
    E(CUDA_ERROR_CONTEXT_IS_DESTROYED, "context is destroyed"),
    E(CUDA_ERROR_ASSERT, "device-side assert triggered"),
    E(CUDA_ERROR_HARDWARE_STACK_ERROR, "hardware stack error"),
    E(CUDA_ERROR_ILLEGAL_INSTRUCTION, "an illegal instruction was encountered"),
    E(CUDA_ERROR_MISALIGNED_ADDRESS, "misaligned address"),
    E(CUDA_ERROR_LAUNCH_FAILED, "unspecified launch failure"),
    E(CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED, "part or all of the requested memory range is already mapped"),
    E(CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED, "pointer does not correspond to a registered memory region"),
    E(CUDA_ERROR_NOT_PERMITTED, "operation not permitted"),
    E(CUDA_ERROR_NOT_SUPPORTED, "operation not supported"),
    E(CUDA_ERROR_SYSTEM_NOT_READY, "system not yet initialized"),
    E(CUDA_ERROR_SYSTEM_DRIVER_MISMATCH, "system has unsupported display driver / cuda driver combination"),
    E(CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE, "forward compatibility was attempted on non supported HW"),
    E(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, "operation not permitted when stream is capturing"),
    E(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, "operation failed due to a previous error during capture"),
    E(CUDA_ERROR_TIMEOUT, "timeout occurred"),
    E(CUDA_ERROR_UNKNOWN, "unknown error"),
};
#undef E
enum { ERROR_COUNT = sizeof errors / sizeof errors[0] };

static const model_error *find_error(CUresult code)
{
    for (int i = 0; i < ERROR_COUNT; i++)
        if (errors[i].code == code) return &errors[i];
    return NULL;
}

const char *model_error_name(CUresult err)
{
    const model_error *e = find_error(err);
    return e ? e->name : "CUDA_ERROR_(unknown code)";
}

const char *mcoll_contract_error_name(CUresult err)
{
    return model_error_name(err);
}

int mcoll_contract_error_from_name(const char *name, CUresult *err)
{
    if (!name || !*name) return -1;
    char *end;
    long number = strtol(name, &end, 0);
    if (*end == '\0') {
        *err = (CUresult)number;
        return 0;
    }
    for (int i = 0; i < ERROR_COUNT; i++) {
        const char *full = errors[i].name;
        const char *shortname = strncmp(full, "CUDA_ERROR_", 11) == 0 ? full + 11 : full + 5;
        if (strcmp(name, full) == 0 || strcmp(name, shortname) == 0) {
            *err = errors[i].code;
            return 0;
        }
    }
    return -1;
}

/* Both work before cuInit in the real driver. An unknown code gives CUDA_ERROR_INVALID_VALUE
 * and NULL text, which is not misuse (so no violation); a NULL out pointer is. */
static CUresult error_text(model_fn fn, CUresult error, const char **text, int want_name)
{
    model_call call;
    CUresult rc = model_enter(&call, fn, 0, "error=%d", (int)error);
    if (rc != CUDA_SUCCESS) return rc;
    if (!text) return model_violation(&call, CUDA_ERROR_INVALID_VALUE, "pStr is NULL");
    if (model_injecting(&call)) return model_leave(&call, call.inject);
    const model_error *e = find_error(error);
    *text = e ? (want_name ? e->name : e->text) : NULL;
    return model_leave(&call, e ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE);
}

CUresult model_cuGetErrorString(CUresult error, const char **text)
{
    return error_text(MODEL_cuGetErrorString, error, text, 0);
}

CUresult model_cuGetErrorName(CUresult error, const char **text)
{
    return error_text(MODEL_cuGetErrorName, error, text, 1);
}
