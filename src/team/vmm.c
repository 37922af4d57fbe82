/* Allocation properties, handle types and access descriptors (see vmm.h). */
#include <string.h>
#include "vmm.h"

CUmemAllocationHandleType mcoll_handle_type(mcoll_handle_kind kind)
{
    return kind == MCOLL_HANDLE_FABRIC ? CU_MEM_HANDLE_TYPE_FABRIC : CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
}

CUmemAllocationProp mcoll_allocation_prop(int device, CUmemAllocationHandleType handle_type)
{
    CUmemAllocationProp prop;
    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = device;
    prop.requestedHandleTypes = handle_type;
    return prop;
}

CUresult mcoll_set_access(int device, CUdeviceptr va, size_t size)
{
    CUmemAccessDesc access;
    memset(&access, 0, sizeof access);
    access.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    access.location.id = device;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    return mcoll_cu.cuMemSetAccess(va, size, &access, 1);
}
