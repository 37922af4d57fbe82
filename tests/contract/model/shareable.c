/* Shareable objects: every allocation and multicast object is a memfd whose page 0 holds the
 * object's description (model_object_header) and whose data follows. Exporting gives either a
 * duplicate of that fd (POSIX_FILE_DESCRIPTOR: a real fd, which can cross a Unix socket with
 * SCM_RIGHTS) or 64 bytes naming the exporter's pid and fd (FABRIC), which another process of
 * the same user turns back into the object by opening /proc/<pid>/fd/<fd>. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "model.h"

#define MODEL_OBJECT_MAGIC 0x4d434f4c4c4f424aULL  /* "MCOLLOBJ" */
#define MODEL_FABRIC_MAGIC 0x4d43464142524943ULL  /* "MCFABRIC" */

typedef struct {
    uint64_t magic;
    uint64_t object_id;            /* guards against the fd number naming something else */
    uint32_t pid;
    int32_t fd;
    uint32_t kind;
    uint8_t unused[36];
} model_fabric_bytes;

_Static_assert(sizeof(model_fabric_bytes) == sizeof(CUmemFabricHandle),
               "a fabric handle is 64 bytes");

void model_forget_exported_fd(int fd)
{
    model_node *n = model.exported_fds;
    while (n) {
        model_exported_fd *e = (model_exported_fd *)n;
        n = n->next;
        if (e->fd == fd) {
            model_list_remove(&model.exported_fds, &e->node);
            free(e);
        }
    }
}

static model_handle *add_handle(int fd, model_object_header *header, int imported)
{
    model_handle *h = calloc(1, sizeof *h);
    if (!h) return NULL;
    h->value = model_new_handle_value();
    h->fd = fd;
    h->header = header;
    h->imported = imported;
    model_list_push(&model.handles, &h->node);
    return h;
}

/* New device memory holds whatever was there before; code that needs zeros must write them. */
static void fill_garbage(int fd, size_t at, size_t size)
{
    unsigned char block[1 << 16];
    for (size_t i = 0; i < sizeof block; i++) block[i] = (unsigned char)(0xA5 ^ (i * 131));
    for (size_t done = 0; done < size;) {
        size_t n = size - done < sizeof block ? size - done : sizeof block;
        if (pwrite(fd, block, n, (off_t)(at + done)) != (ssize_t)n) return;
        done += n;
    }
}

CUresult model_object_create(uint32_t kind, size_t size, int device, uint64_t handle_types,
                             uint32_t num_devices, model_handle **out)
{
    size_t page = model_page_size();
    int fd = memfd_create(kind == MODEL_KIND_MULTICAST ? "mcoll-contract-multicast"
                                                       : "mcoll-contract-allocation",
                          MFD_CLOEXEC);
    if (fd < 0) return CUDA_ERROR_OUT_OF_MEMORY;
    model_forget_exported_fd(fd);
    model_object_header *header = MAP_FAILED;
    if (ftruncate(fd, (off_t)(page + size)) == 0)
        header = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (header == MAP_FAILED) {
        close(fd);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    if (kind == MODEL_KIND_ALLOCATION) fill_garbage(fd, page, size);
    header->magic = MODEL_OBJECT_MAGIC;
    header->object_id = model_new_object_id();
    header->kind = kind;
    header->device = device;
    header->size = size;
    header->handle_types = handle_types;
    header->num_devices = num_devices;
    header->creator_pid = (uint32_t)getpid();
    header->creator_node = model_this_node();
    atomic_init(&header->devices_added, 0);
    *out = add_handle(fd, header, 0);
    if (!*out) {
        munmap(header, page);
        close(fd);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    return CUDA_SUCCESS;
}

void model_object_close(model_handle *handle)
{
    model_list_remove(&model.handles, &handle->node);
    munmap(handle->header, model_page_size());
    close(handle->fd);
    free(handle);
}

/* Map page 0 of `fd` (owned by the caller until success) and check it describes an object of
 * this model. Returns the header or NULL with *why set. */
static model_object_header *open_header(int fd, const char **why)
{
    struct stat st;
    if (fstat(fd, &st) != 0) {
        *why = "not an open file descriptor";
        return NULL;
    }
    if (!S_ISREG(st.st_mode) || (size_t)st.st_size < model_page_size()) {
        *why = "file descriptor does not name an object exported by this driver";
        return NULL;
    }
    model_object_header *header =
        mmap(NULL, model_page_size(), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (header == MAP_FAILED) {
        *why = "file descriptor cannot be mapped";
        return NULL;
    }
    if (header->magic != MODEL_OBJECT_MAGIC) {
        munmap(header, model_page_size());
        *why = "file descriptor does not name an object exported by this driver";
        return NULL;
    }
    return header;
}

CUresult model_cuMemExportToShareableHandle(void *shareable, CUmemGenericAllocationHandle handle,
                                            CUmemAllocationHandleType type,
                                            unsigned long long flags)
{
    model_call call;
    CUresult rc = model_enter(&call, MODEL_cuMemExportToShareableHandle, 1,
                              "handle=%#llx, type=%d, flags=%llu", (unsigned long long)handle,
                              (int)type, flags);
    if (rc != CUDA_SUCCESS) return rc;
    const char *why = NULL;
    model_handle *h = model_find_handle(handle, &why);
    if (!shareable) return model_violation(&call, CUDA_ERROR_INVALID_VALUE, "shareableHandle is NULL");
    if (flags != 0) return model_violation(&call, CUDA_ERROR_INVALID_VALUE, "flags must be 0");
    if (!h) return model_violation(&call, CUDA_ERROR_INVALID_VALUE, "%s", why);
    if (type != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR && type != CU_MEM_HANDLE_TYPE_FABRIC)
        return model_violation(&call, CUDA_ERROR_INVALID_VALUE,
                               "handleType must be POSIX_FILE_DESCRIPTOR or FABRIC on Linux");
    if (!(h->header->handle_types & (uint64_t)type))
        return model_violation(&call, CUDA_ERROR_INVALID_VALUE,
                               "handle type %d was not requested when the %s was created "
                               "(requested types %#llx)",
                               (int)type,
                               h->header->kind == MODEL_KIND_MULTICAST ? "multicast object"
                                                                       : "allocation",
                               (unsigned long long)h->header->handle_types);
    if (model_injecting(&call)) return model_leave(&call, call.inject);

    if (type == CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) {
        int fd = dup(h->fd);
        struct stat st;
        if (fd < 0) return model_leave(&call, CUDA_ERROR_OUT_OF_MEMORY);
        model_forget_exported_fd(fd);
        model_exported_fd *e = calloc(1, sizeof *e);
        if (!e || fstat(fd, &st) != 0) {
            free(e);
            close(fd);
            return model_leave(&call, CUDA_ERROR_OUT_OF_MEMORY);
        }
        e->fd = fd;
        e->dev = (unsigned long long)st.st_dev;
        e->ino = (unsigned long long)st.st_ino;
        model_list_push(&model.exported_fds, &e->node);
        *(int *)shareable = fd;
    } else {
        model_fabric_bytes bytes;
        memset(&bytes, 0, sizeof bytes);
        bytes.magic = MODEL_FABRIC_MAGIC;
        bytes.object_id = h->header->object_id;
        bytes.pid = (uint32_t)getpid();
        bytes.fd = h->fd;
        bytes.kind = h->header->kind;
        memcpy(shareable, &bytes, sizeof bytes);
    }
    return model_leave(&call, CUDA_SUCCESS);
}

/* This process's own fd for the object a fabric handle names, or -1 with *why and *err set.
 * A permission error is the machine's doing, not the caller's: it maps to NOT_PERMITTED, the
 * driver's answer when the importer may not reach the exporter's memory. */
static int open_fabric(const model_fabric_bytes *bytes, const char **why, CUresult *err)
{
    *err = CUDA_ERROR_INVALID_VALUE;
    if (bytes->magic != MODEL_FABRIC_MAGIC) {
        *why = "not a fabric handle exported by this driver";
        return -1;
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/%u/fd/%d", bytes->pid, bytes->fd);
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0 && (errno == EACCES || errno == EPERM)) {
        *err = CUDA_ERROR_NOT_PERMITTED;
        *why = "cannot open the exporter's /proc/<pid>/fd entry: the model needs the processes "
               "of a job to run as one user and to be allowed to read each other's /proc";
    } else if (fd < 0) {
        *why = "the exporting process no longer holds the object (released before every peer "
               "imported it, or the process exited)";
    }
    return fd;
}

CUresult model_cuMemImportFromShareableHandle(CUmemGenericAllocationHandle *handle,
                                              void *os_handle, CUmemAllocationHandleType type)
{
    model_call call;
    CUresult rc = model_enter(&call, MODEL_cuMemImportFromShareableHandle, 1,
                              "osHandle=%p, type=%d", os_handle, (int)type);
    if (rc != CUDA_SUCCESS) return rc;
    if (!handle) return model_violation(&call, CUDA_ERROR_INVALID_VALUE, "handle is NULL");
    if (type != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR && type != CU_MEM_HANDLE_TYPE_FABRIC)
        return model_violation(&call, CUDA_ERROR_INVALID_VALUE,
                               "shHandleType must be POSIX_FILE_DESCRIPTOR or FABRIC on Linux");
    if (type == CU_MEM_HANDLE_TYPE_FABRIC &&
        !model_any_device_has(CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED))
        return model_violation(&call, CUDA_ERROR_NOT_SUPPORTED,
                               "CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED is 0");
    if (type == CU_MEM_HANDLE_TYPE_FABRIC && !os_handle)
        return model_violation(&call, CUDA_ERROR_INVALID_VALUE, "osHandle is NULL");

    const char *why = NULL;
    int fd = -1;
    if (type == CU_MEM_HANDLE_TYPE_FABRIC) {
        model_fabric_bytes bytes;
        memcpy(&bytes, os_handle, sizeof bytes);
        CUresult err;
        fd = open_fabric(&bytes, &why, &err);
        if (fd < 0) return model_violation(&call, err, "%s", why);
        model_object_header *header = open_header(fd, &why);
        int same = header && header->object_id == bytes.object_id;
        if (header) munmap(header, model_page_size());
        if (!same) {
            close(fd);
            return model_violation(&call, CUDA_ERROR_INVALID_VALUE, "%s",
                                   why ? why : "the exporting process no longer holds the object");
        }
    } else {
        int received = (int)(intptr_t)os_handle;
        fd = received >= 0 ? fcntl(received, F_DUPFD_CLOEXEC, 0) : -1;
        if (fd < 0)
            return model_violation(&call, CUDA_ERROR_INVALID_VALUE,
                                   "osHandle is not an open file descriptor");
    }
    model_forget_exported_fd(fd);
    model_object_header *header = open_header(fd, &why);
    if (!header) {
        close(fd);
        return model_violation(&call, CUDA_ERROR_INVALID_VALUE, "%s", why);
    }
    /* A descriptor is a process's, passed on one node only (here a socket on one machine would
     * carry it further, so the model refuses what a real job could not do). */
    if (type == CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR && header->creator_node != model_this_node()) {
        int from = header->creator_node;
        munmap(header, model_page_size());
        close(fd);
        return model_violation(&call, CUDA_ERROR_INVALID_VALUE,
                               "a POSIX file descriptor handle does not cross nodes: the object was "
                               "created on node %d, this process is on node %d (fabric handles do)",
                               from, model_this_node());
    }
    if (!(header->handle_types & (uint64_t)type)) {
        munmap(header, model_page_size());
        close(fd);
        return model_violation(&call, CUDA_ERROR_INVALID_VALUE,
                               "the object was not created exportable as type %d", (int)type);
    }
    if (model_injecting(&call)) {
        munmap(header, model_page_size());
        close(fd);
        return model_leave(&call, call.inject);
    }
    model_handle *h = add_handle(fd, header, 1);
    if (!h) {
        munmap(header, model_page_size());
        close(fd);
        return model_leave(&call, CUDA_ERROR_OUT_OF_MEMORY);
    }
    *handle = h->value;
    return model_leave(&call, CUDA_SUCCESS);
}
