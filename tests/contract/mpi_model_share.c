/* Cross-process sharing in the contract model, under mpirun (any size from 2 to 8):
 *   - an allocation created on rank 0 is exported both ways (a POSIX fd sent over a Unix socket
 *     with SCM_RIGHTS, and fabric bytes sent with MPI_Bcast); every other rank imports and maps
 *     it, and what one rank writes the others read;
 *   - a multicast object created on rank 0 for every rank's device: a bind (or a map) before
 *     every device was added is a violation; after all ranks added theirs, binds succeed; a
 *     device added twice, from another process, is a violation.
 * mcoll itself is switched off (MCOLL_DISABLE=1): this tests the model, not the library. */
#define _GNU_SOURCE
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include "contract/check.h"

#define MIB ((size_t)1 << 20)
#define TYPES (CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR | CU_MEM_HANDLE_TYPE_FABRIC)

static const mcoll_driver *cu;
static int rank, size;
static unsigned long long job_tag;

/* ---------------------------------------------------------------------------------------------
 * fd passing: each rank listens on an abstract datagram socket named after the job and rank.
 * ------------------------------------------------------------------------------------------- */
static socklen_t socket_address(struct sockaddr_un *addr, int to)
{
    memset(addr, 0, sizeof *addr);
    addr->sun_family = AF_UNIX;
    int n = snprintf(addr->sun_path + 1, sizeof addr->sun_path - 1, "mcoll-contract-%llx-%d",
                     job_tag, to);
    return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
}

static int fd_listen(void)
{
    struct sockaddr_un addr;
    socklen_t length = socket_address(&addr, rank);
    int sock = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (sock < 0 || bind(sock, (struct sockaddr *)&addr, length) != 0) return -1;
    return sock;
}

static int fd_send(int to, int fd)
{
    struct sockaddr_un addr;
    socklen_t length = socket_address(&addr, to);
    int sock = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    char byte = 'f';
    struct iovec iov = {&byte, 1};
    union {
        struct cmsghdr header;
        char space[CMSG_SPACE(sizeof(int))];
    } control;
    memset(&control, 0, sizeof control);
    struct msghdr msg = {.msg_name = &addr, .msg_namelen = length, .msg_iov = &iov,
                         .msg_iovlen = 1, .msg_control = control.space,
                         .msg_controllen = sizeof control.space};
    struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
    cmsg->cmsg_level = SOL_SOCKET;
    cmsg->cmsg_type = SCM_RIGHTS;
    cmsg->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(cmsg), &fd, sizeof fd);
    int rc = sock >= 0 && sendmsg(sock, &msg, 0) == 1 ? 0 : -1;
    if (sock >= 0) close(sock);
    return rc;
}

static int fd_receive(int sock)
{
    char byte;
    struct iovec iov = {&byte, 1};
    union {
        struct cmsghdr header;
        char space[CMSG_SPACE(sizeof(int))];
    } control;
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.space,
                         .msg_controllen = sizeof control.space};
    if (recvmsg(sock, &msg, 0) != 1) return -1;
    struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
    if (!cmsg || cmsg->cmsg_type != SCM_RIGHTS) return -1;
    int fd;
    memcpy(&fd, CMSG_DATA(cmsg), sizeof fd);
    return fd;
}

/* Rank 0 sends a duplicate of `fd` to every other rank; returns the fd each rank holds. */
static int share_fd(int sock, int fd)
{
    if (rank == 0) {
        for (int r = 1; r < size; r++) CHECK(fd_send(r, fd) == 0);
        return fd;
    }
    int received = fd_receive(sock);
    CHECK(received >= 0);
    return received;
}

/* ------------------------------------------------------------------------------------------- */
static CUmemAllocationProp allocation_prop(int device)
{
    CUmemAllocationProp prop;
    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = device;
    prop.requestedHandleTypes = (CUmemAllocationHandleType)TYPES;
    return prop;
}

static CUdeviceptr map_readwrite(CUmemGenericAllocationHandle handle, size_t bytes)
{
    CUdeviceptr va = 0;
    CUmemAccessDesc desc;
    memset(&desc, 0, sizeof desc);
    desc.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    desc.location.id = rank;
    desc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    CHECK_OK(cu->cuMemAddressReserve(&va, bytes, 0, 0, 0));
    CHECK_OK(cu->cuMemMap(va, bytes, 0, handle, 0));
    CHECK_OK(cu->cuMemSetAccess(va, bytes, &desc, 1));
    return va;
}

static void unmap_and_free(CUdeviceptr va, size_t bytes)
{
    CHECK_OK(cu->cuMemUnmap(va, bytes));
    CHECK_OK(cu->cuMemAddressFree(va, bytes));
}

static void test_allocation_sharing(int sock)
{
    const size_t bytes = 2 * MIB;
    CUmemGenericAllocationHandle own = 0, by_fd = 0, by_fabric = 0;
    CUmemFabricHandle fabric;
    CUdeviceptr va = 0, va_fd = 0, va_fabric = 0;
    int fd = -1;

    if (rank == 0) {
        CUmemAllocationProp prop = allocation_prop(0);
        CHECK_OK(cu->cuMemCreate(&own, bytes, &prop, 0));
        va = map_readwrite(own, bytes);
        ((volatile int *)(uintptr_t)va)[0] = 1234;
        CHECK_OK(cu->cuMemExportToShareableHandle(&fd, own, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
        CHECK_OK(cu->cuMemExportToShareableHandle(&fabric, own, CU_MEM_HANDLE_TYPE_FABRIC, 0));
    }
    fd = share_fd(sock, fd);
    MPI_Bcast(&fabric, sizeof fabric, MPI_BYTE, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        close(fd);  /* sent: the exported fd is no longer needed here */
        CHECK(mcoll_contract_live("exported_fd") == 0);
    } else {
        CHECK_OK(cu->cuMemImportFromShareableHandle(&by_fd, (void *)(uintptr_t)fd,
                                                    CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
        close(fd);
        CHECK_OK(cu->cuMemImportFromShareableHandle(&by_fabric, &fabric, CU_MEM_HANDLE_TYPE_FABRIC));
        va_fd = map_readwrite(by_fd, bytes);
        va_fabric = map_readwrite(by_fabric, bytes);
        CHECK(((volatile int *)(uintptr_t)va_fd)[0] == 1234);
        CHECK(((volatile int *)(uintptr_t)va_fabric)[0] == 1234);
        ((volatile int *)(uintptr_t)va_fd)[rank] = 1000 + rank;  /* write through one view */
        int ordinal = -1;
        CHECK_OK(cu->cuPointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, va_fd));
        CHECK(ordinal == 0);  /* imported memory still lives on the exporter's device */
    }
    MPI_Barrier(MPI_COMM_WORLD);
    /* Every rank sees every other rank's write: rank 0 through its own mapping, the others
     * through their fabric view. */
    volatile int *view = (volatile int *)(uintptr_t)(rank == 0 ? va : va_fabric);
    for (int r = 1; r < size; r++) CHECK(view[r] == 1000 + r);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        unmap_and_free(va, bytes);
        CHECK_OK(cu->cuMemRelease(own));
    } else {
        unmap_and_free(va_fd, bytes);
        unmap_and_free(va_fabric, bytes);
        CHECK_OK(cu->cuMemRelease(by_fd));
        CHECK_OK(cu->cuMemRelease(by_fabric));
    }
}

static void test_multicast_team(int sock)
{
    size_t granularity = 0;
    CUmulticastObjectProp prop;
    memset(&prop, 0, sizeof prop);
    prop.numDevices = (unsigned)size;
    prop.handleTypes = TYPES;
    CUmemGenericAllocationHandle mc = 0, mem = 0;
    CUmemFabricHandle fabric;
    int fd = -1;

    if (rank == 0) {
        CHECK_OK(cu->cuMulticastGetGranularity(&granularity, &prop, CU_MULTICAST_GRANULARITY_MINIMUM));
        prop.size = granularity;
        CHECK_OK(cu->cuMulticastCreate(&mc, &prop));
        CHECK_OK(cu->cuMemExportToShareableHandle(&fabric, mc, CU_MEM_HANDLE_TYPE_FABRIC, 0));
        CHECK_OK(cu->cuMemExportToShareableHandle(&fd, mc, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
    }
    MPI_Bcast(&granularity, sizeof granularity, MPI_BYTE, 0, MPI_COMM_WORLD);
    MPI_Bcast(&fabric, sizeof fabric, MPI_BYTE, 0, MPI_COMM_WORLD);
    fd = share_fd(sock, fd);
    if (rank > 0) {
        /* Odd ranks import the fd, even ranks the fabric bytes. */
        if (rank % 2)
            CHECK_OK(cu->cuMemImportFromShareableHandle(&mc, (void *)(uintptr_t)fd,
                                                        CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
        else
            CHECK_OK(cu->cuMemImportFromShareableHandle(&mc, &fabric, CU_MEM_HANDLE_TYPE_FABRIC));
    }
    close(fd);
    CUmemAllocationProp mem_prop = allocation_prop(rank);
    CHECK_OK(cu->cuMemCreate(&mem, granularity, &mem_prop, 0));

    /* Rank 0 alone has added its device: binding or mapping now breaks the rule. */
    if (rank == 0) {
        CHECK_OK(cu->cuMulticastAddDevice(mc, 0));
        CHECK_CU(cu->cuMulticastBindMem(mc, 0, mem, 0, granularity, 0), CUDA_ERROR_NOT_PERMITTED);
        CUdeviceptr early = 0;
        CHECK_OK(cu->cuMemAddressReserve(&early, granularity, 0, 0, 0));
        CHECK_CU(cu->cuMemMap(early, granularity, 0, mc, 0), CUDA_ERROR_NOT_PERMITTED);
        CHECK_OK(cu->cuMemAddressFree(early, granularity));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank > 0) CHECK_OK(cu->cuMulticastAddDevice(mc, rank));
    MPI_Barrier(MPI_COMM_WORLD);
    /* The team state is shared: device 0, added by rank 0, cannot be added again elsewhere. */
    if (rank == size - 1) CHECK_CU(cu->cuMulticastAddDevice(mc, 0), CUDA_ERROR_INVALID_VALUE);

    CHECK_OK(cu->cuMulticastBindMem(mc, 0, mem, 0, granularity, 0));
    CUdeviceptr mc_va = map_readwrite(mc, granularity);
    ((volatile int *)(uintptr_t)mc_va)[rank] = 100 + rank;
    MPI_Barrier(MPI_COMM_WORLD);
    for (int r = 0; r < size; r++) CHECK(((volatile int *)(uintptr_t)mc_va)[r] == 100 + r);
    MPI_Barrier(MPI_COMM_WORLD);

    unmap_and_free(mc_va, granularity);  /* unmap, then unbind */
    CHECK_OK(cu->cuMulticastUnbind(mc, rank, 0, granularity));
    CHECK_OK(cu->cuMemRelease(mem));
    CHECK_OK(cu->cuMemRelease(mc));
    CHECK(mcoll_contract_calls("cuMulticastCreate") == (rank == 0 ? 1 : 0));
}

int main(int argc, char **argv)
{
    setenv("MCOLL_DISABLE", "1", 1);
    mcoll_contract_install();
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    cu = mcoll_contract_driver();
    if (size < 2 || size > 8) {
        if (rank == 0) printf("skip: mpi_model_share needs 2 to 8 ranks, got %d\n", size);
        MPI_Finalize();
        return 77;
    }
    mcoll_contract_set_quiet(1);
    job_tag = ((unsigned long long)getpid() << 20) ^ (unsigned long long)time(NULL);
    MPI_Bcast(&job_tag, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
    int sock = rank > 0 ? fd_listen() : -1;
    CHECK(rank == 0 || sock >= 0);
    MPI_Barrier(MPI_COMM_WORLD);  /* every receiver listens before rank 0 sends */

    CUcontext context = NULL;
    CHECK_OK(cu->cuInit(0));
    CHECK_OK(cu->cuDevicePrimaryCtxRetain(&context, rank));
    CHECK_OK(cu->cuCtxSetCurrent(context));
    test_allocation_sharing(sock);
    test_multicast_team(sock);
    CHECK_OK(cu->cuCtxSetCurrent(NULL));
    CHECK_OK(cu->cuDevicePrimaryCtxRelease(rank));
    if (sock >= 0) close(sock);

    /* Exactly the violations provoked above, and nothing left alive. */
    int expected = rank == 0 ? 2 : rank == size - 1 ? 1 : 0;
    CHECK(mcoll_contract_violations() == expected);
    if (rank == 0) {
        CHECK(mcoll_contract_violations_matching("cuMulticastBindMem") == 1);
        CHECK(mcoll_contract_violations_matching("cuMemMap") == 1);
        CHECK(mcoll_contract_violations_matching("every device must be added") == 2);
    }
    if (rank == size - 1)
        CHECK(mcoll_contract_violations_matching("device 0 was already added") == 1);
    CHECK(mcoll_contract_live_objects() == 0);

    char name[32];
    snprintf(name, sizeof name, "mpi_model_share[%d]", rank);
    int status = check_exit(name), worst = 0;
    MPI_Allreduce(&status, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Finalize();
    return worst;
}
