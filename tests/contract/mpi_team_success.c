/* The team and multicast code on its success path, against the contract driver, under mpirun
 * (any size from 2 to 8; tests/run.sh uses 4). Every device reports multicast support, so every
 * rank must end on the NVLS engine with no broken rule, and the calls in the driver's log must
 * follow the design card and the CUDA documents in shared/seeds:
 *   - every rank queries the multicast granularity for numDevices = team size; rank 0 alone
 *     calls cuMulticastCreate, with numDevices = team size and a size that is a multiple of the
 *     MINIMUM granularity, and exports the handle; every rank, rank 0 included, imports it and
 *     works on the imported handle;
 *   - on every rank cuMulticastAddDevice(own device) < cuMulticastBindMem(own allocation,
 *     offsets 0, flags 0, size within both) < cuMemAddressReserve < cuMemMap(multicast handle)
 *     < cuMemSetAccess(that range); across ranks the model refuses a bind or a map made before
 *     every device was added, so no violation means every rank waited for every other;
 *   - symmetric memory: one cuMemCreate and one export per rank, every peer's handle imported
 *     and mapped at base + i * size, every slot backed by the memory of rank i's device, and what
 *     a rank writes through its own mapping its peers read through theirs;
 *   - live objects while the team lives are exactly the team's; after mcoll_comm_destroy none,
 *     and the teardown unbinds, then releases the memory, then releases the multicast object.
 * Both handle kinds: fabric handles (plain bytes through MPI), and POSIX descriptors, which
 * must really travel over mcoll's SCM_RIGHTS sockets: this program wraps recvmsg() and records
 * every descriptor received on a socket in a directory "mcoll-...", so each import can be
 * traced to one. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/un.h>
#include "launch.h"
#include "contract/team_common.h"

/* ---------------------------------------------------------------------------------------------
 * Descriptors received over mcoll's handle-exchange sockets.
 * ------------------------------------------------------------------------------------------- */
#define MAX_RECEIVED 256

typedef struct {
    int fd;
    long at;           /* length of the driver's call log when it arrived */
    long closed;       /* and when it was closed (LONG_MAX while open) */
    char target[96];   /* what /proc/self/fd/<fd> named then */
} received_fd;

static received_fd received[MAX_RECEIVED];
static int received_count;

/* 1 when `sock` is bound to a Unix address .../mcoll-XXXXXX/<rank> (fd_exchange.c's sockets;
 * an accepted socket carries its listener's address). */
static int mcoll_socket(int sock)
{
    struct sockaddr_un addr;
    socklen_t length = sizeof addr;
    const char *last;
    memset(&addr, 0, sizeof addr);
    if (getsockname(sock, (struct sockaddr *)&addr, &length) != 0 || addr.sun_family != AF_UNIX) return 0;
    if (length <= offsetof(struct sockaddr_un, sun_path) || addr.sun_path[0] != '/') return 0;
    last = strrchr(addr.sun_path, '/');
    while (last > addr.sun_path && last[-1] != '/') last--;  /* the directory's name */
    return strncmp(last, "mcoll-", 6) == 0;
}

ssize_t recvmsg(int sock, struct msghdr *msg, int flags)
{
    static ssize_t (*real)(int, struct msghdr *, int);
    if (!real) {
        void *symbol = dlsym(RTLD_NEXT, "recvmsg");
        memcpy(&real, &symbol, sizeof real);
    }
    ssize_t n = real(sock, msg, flags);
    if (n < 0 || !msg->msg_control || msg->msg_controllen == 0) return n;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(msg); c; c = CMSG_NXTHDR(msg, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS || !mcoll_socket(sock)) continue;
        size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (size_t i = 0; i < count && received_count < MAX_RECEIVED; i++) {
            received_fd *r = &received[received_count++];
            char path[64];
            memcpy(&r->fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
            r->at = log_end();
            r->closed = LONG_MAX;
            snprintf(path, sizeof path, "/proc/self/fd/%d", r->fd);
            ssize_t length = readlink(path, r->target, sizeof r->target - 1);
            r->target[length > 0 ? length : 0] = '\0';
        }
    }
    return n;
}

/* Numbers are reused once closed: mark the received descriptor `fd` closed. */
int close(int fd)
{
    static int (*real)(int);
    if (!real) {
        void *symbol = dlsym(RTLD_NEXT, "close");
        memcpy(&real, &symbol, sizeof real);
    }
    for (int i = received_count - 1; i >= 0; i--)
        if (received[i].fd == fd && received[i].closed == LONG_MAX) {
            received[i].closed = log_end();
            break;
        }
    return real(fd);
}

/* The descriptor received over an mcoll socket that was open as number `fd` at log entry
 * `index`; NULL if none. */
static const received_fd *received_as(unsigned long long fd, long index)
{
    for (int i = 0; i < received_count; i++)
        if ((unsigned long long)received[i].fd == fd && received[i].at <= index && index < received[i].closed)
            return &received[i];
    return NULL;
}

/* ---------------------------------------------------------------------------------------------
 * One team's life.
 * ------------------------------------------------------------------------------------------- */
typedef struct {
    int fabric;              /* handle kind the model offers */
    mcoll_tristate nvls;     /* what the configuration asks */
    const char *name;
} success_case;

/* What the creation's log says about this rank's objects. */
typedef struct {
    unsigned long long local;      /* this rank's cuMemCreate allocation */
    unsigned long long mc;         /* the multicast handle this rank works on (imported) */
    unsigned long long created;    /* rank 0: the handle cuMulticastCreate returned */
    unsigned long long mc_va;      /* where the multicast object is mapped */
    unsigned long long base;       /* the symmetric reservation: rank i's memory at base + i * size */
    size_t bind_size;
} team_objects;

static void check_info(const mcoll_comm_info_t *info, const success_case *c, const int *devices)
{
    CHECK(info->engine == MCOLL_ENGINE_NVLS);
    CHECK(info->team_size == world_size);
    CHECK(info->rank == world_rank);
    CHECK(strncmp(info->nvls_reason, "on:", 3) == 0);
    CHECK(strcmp(info->handle_type, c->fabric ? "fabric" : "posix-fd") == 0);
    CHECK(info->symmetric_bytes >= 4 * TEAM_MIB && info->symmetric_bytes % (2 * TEAM_MIB) == 0);
    CHECK(info->peer_mapped_bytes == info->symmetric_bytes * (size_t)(world_size - 1));
    for (int i = 0; i < world_size; i++)
        if (i != world_rank) CHECK(devices[i] != info->device);  /* one GPU per rank */
}

/* The multicast sequence of this rank, from the creation's log (entries [0, end)). */
static void check_multicast_sequence(const mcoll_comm_info_t *info, const success_case *c, long end,
                                     team_objects *t)
{
    mcoll_contract_config config;
    mcoll_contract_get_config(&config);
    const size_t minimum = config.multicast_granularity_minimum;

    /* Granularity: rank 0 queries it (the others may, to agree on it), for the whole team. */
    long granularity = log_find("cuMulticastGetGranularity", 0);
    if (world_rank == 0) CHECK(granularity >= 0);
    for (long i = granularity; i >= 0; i = log_find("cuMulticastGetGranularity", i + 1))
        CHECK(log_succeeded(i) && log_arg(i, "numDevices", 0) == (unsigned long long)world_size);
    if (granularity >= 0) CHECK(log_arg(granularity, "option", ~0ull) == CU_MULTICAST_GRANULARITY_MINIMUM);

    /* Rank 0 alone creates the object, for the whole team, and exports it. */
    long create = log_find("cuMulticastCreate", 0);
    CHECK(log_count("cuMulticastCreate", 0, end) == (world_rank == 0));
    unsigned long long sizes[2] = {0, 0};
    if (world_rank == 0) {
        CHECK(log_succeeded(create));
        CHECK(log_arg(create, "numDevices", 0) == (unsigned long long)world_size);
        sizes[0] = log_arg(create, "size", 0);
        CHECK(sizes[0] > 0 && sizes[0] % minimum == 0);
        CHECK(log_arg(create, "flags", 1) == 0);
        CHECK(log_arg(create, "handleTypes", 0) ==
              (c->fabric ? CU_MEM_HANDLE_TYPE_FABRIC : CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
        long exported = log_find("cuMemExportToShareableHandle", create);
        CHECK(exported > create && log_succeeded(exported));
        t->created = log_arg(exported, "handle", 0);
    }
    MPI_Bcast(sizes, 2, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
    const unsigned long long mc_size = sizes[0];

    /* Every rank adds its own device to the handle it imported, then binds, reserves, maps,
     * sets access, in that order. */
    long add = log_find("cuMulticastAddDevice", 0);
    CHECK(log_count("cuMulticastAddDevice", 0, end) == 1 && log_succeeded(add));
    CHECK(log_arg(add, "dev", ~0ull) == (unsigned long long)info->device);
    t->mc = log_arg(add, "mcHandle", 0);
    if (world_rank == 0) CHECK(t->mc != t->created);  /* rank 0 works on its import too */
    long import = -1;
    for (long i = log_find("cuMemImportFromShareableHandle", 0); i >= 0 && i < add;
         i = log_find("cuMemImportFromShareableHandle", i + 1))
        import = i;
    CHECK(import >= 0 && import < add && log_succeeded(import));  /* the import comes first */

    long bind = log_find("cuMulticastBindMem", 0);
    CHECK(log_count("cuMulticastBindMem", 0, end) == 1 && log_succeeded(bind));
    CHECK(add < bind);
    CHECK(log_arg(bind, "mcHandle", 0) == t->mc);
    CHECK(log_arg(bind, "memHandle", 0) == t->local);
    CHECK(log_arg(bind, "mcOffset", 1) == 0);
    CHECK(log_arg(bind, "memOffset", 1) == 0);
    CHECK(log_arg(bind, "flags", 1) == 0);
    t->bind_size = (size_t)log_arg(bind, "size", 0);
    CHECK(t->bind_size > 0 && t->bind_size % minimum == 0);
    CHECK(t->bind_size <= info->symmetric_bytes && t->bind_size <= mc_size);

    long reserve = log_find("cuMemAddressReserve", bind);
    CHECK(reserve > bind && log_succeeded(reserve));
    long map = log_find_arg("cuMemMap", 0, "handle", t->mc);
    CHECK(map > reserve && log_succeeded(map));
    CHECK(log_count("cuMemMap", bind, end) == 1);
    t->mc_va = log_arg(map, "ptr", 0);
    CHECK(t->mc_va % minimum == 0 && log_arg(map, "size", 0) % minimum == 0);
    long access = log_find_arg("cuMemSetAccess", map, "ptr", t->mc_va);
    CHECK(access > map && log_succeeded(access));
    CHECK(log_arg(access, "device", ~0ull) == (unsigned long long)info->device);
}

/* Fabric handles are tried first on one granule (an allocation exported, then released at
 * once): the attribute does not say whether this process may use them. */
static void check_fabric_probe(const success_case *c, long first_map)
{
    long probe = log_find("cuMemCreate", 0);
    if (!c->fabric) {
        CHECK(log_count("cuMemCreate", 0, first_map) == 1);  /* the symmetric allocation only */
        return;
    }
    CHECK(log_count("cuMemCreate", 0, first_map) == 2);
    CHECK(log_succeeded(probe) && log_arg(probe, "handleTypes", 0) == CU_MEM_HANDLE_TYPE_FABRIC);
    long exported = log_find("cuMemExportToShareableHandle", probe);
    long released = log_find("cuMemRelease", probe);
    long created = log_find("cuMemCreate", probe + 1);
    CHECK(exported > probe && log_succeeded(exported) && log_arg(exported, "type", 0) == CU_MEM_HANDLE_TYPE_FABRIC);
    CHECK(released > exported && released < created && log_succeeded(released));
    CHECK(log_arg(released, "handle", 0) == log_arg(exported, "handle", 1));
}

/* Symmetric memory from the log: one allocation, exported once, every peer imported and mapped
 * in one reservation. Fills t->local and t->base. */
static void check_symmetric_sequence(const mcoll_comm_info_t *info, const success_case *c, long end,
                                     team_objects *t)
{
    const size_t bytes = info->symmetric_bytes;
    /* The first map is this rank's own allocation at base + rank * size; the allocation is the
     * last cuMemCreate before it. */
    long own = log_find("cuMemMap", 0);
    long created = -1;
    for (long i = log_find("cuMemCreate", 0); i >= 0 && i < own; i = log_find("cuMemCreate", i + 1)) created = i;
    check_fabric_probe(c, own);
    CHECK(log_succeeded(created) && log_arg(created, "size", 0) == bytes);
    CHECK(log_arg(created, "handleTypes", 0) ==
          (c->fabric ? CU_MEM_HANDLE_TYPE_FABRIC : CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
    CHECK(log_count("cuMemCreate", own, end) == 0);
    t->local = log_arg(own, "handle", 0);
    t->base = log_arg(own, "ptr", 0) - (unsigned long long)world_rank * bytes;
    CHECK(log_count("cuMemExportToShareableHandle", own, end) == (world_rank == 0 ? 2 : 1));
    long exported = log_find("cuMemExportToShareableHandle", own);
    CHECK(log_arg(exported, "handle", 0) == t->local);

    /* Imports: every peer's allocation, then the multicast object. */
    CHECK(log_count("cuMemImportFromShareableHandle", 0, end) == world_size);

    /* Before the multicast object's turn (cuMulticastAddDevice), the maps are the team_size
     * slots of the symmetric reservation. */
    long limit = log_find("cuMulticastAddDevice", 0);
    if (limit < 0) limit = end;
    int slots = 0;
    for (long i = log_find("cuMemMap", 0); i >= 0 && i < limit; i = log_find("cuMemMap", i + 1)) {
        unsigned long long ptr = log_arg(i, "ptr", 0);
        CHECK(log_succeeded(i) && log_arg(i, "size", 0) == bytes);
        CHECK(ptr >= t->base && (ptr - t->base) % bytes == 0 && (ptr - t->base) / bytes < (unsigned long long)world_size);
        slots++;
        long access = log_find_arg("cuMemSetAccess", i, "ptr", ptr);
        CHECK(access > i && log_succeeded(access));
    }
    CHECK(slots == world_size);
    CHECK(log_count("cuMemMap", 0, end) == world_size + 1);
}

/* Descriptors: every import of a peer's allocation, and of the multicast object on the ranks
 * that did not create it, used a descriptor that arrived over an mcoll socket. */
static void check_descriptors(const success_case *c, long end)
{
    if (c->fabric) {
        CHECK(received_count == 0);
        return;
    }
    CHECK(received_count == (world_rank == 0 ? world_size - 1 : world_size));
    int allocations = 0, multicast = 0, self = 0;
    for (long i = log_find("cuMemImportFromShareableHandle", 0); i >= 0 && i < end;
         i = log_find("cuMemImportFromShareableHandle", i + 1)) {
        const received_fd *r = received_as(log_arg(i, "osHandle", ~0ull), i);
        if (!r) {
            self++;
            continue;
        }
        allocations += strstr(r->target, "mcoll-contract-allocation") != NULL;
        multicast += strstr(r->target, "mcoll-contract-multicast") != NULL;
    }
    CHECK(allocations == world_size - 1);
    CHECK(multicast == (world_rank == 0 ? 0 : 1));
    CHECK(self == (world_rank == 0 ? 1 : 0));  /* rank 0 imports its own export, not received */
}

/* Exactly the team's objects are alive. */
static void check_live_during(void)
{
    CHECK(mcoll_contract_live("allocation") == 1);
    CHECK(mcoll_contract_live("imported") == world_size);  /* peers, and the multicast object */
    CHECK(mcoll_contract_live("multicast") == (world_rank == 0));
    CHECK(mcoll_contract_live("reservation") == 2);
    CHECK(mcoll_contract_live("mapping") == world_size + 1);
    CHECK(mcoll_contract_live("exported_fd") == 0);
    CHECK(mcoll_contract_live("device_memory") == 1);     /* barrier epochs */
    CHECK(mcoll_contract_live("stream") == 2);            /* blocking and nonblocking calls' */
    CHECK(mcoll_contract_live("event") == 1);             /* the mark that orders the two */
    CHECK(mcoll_contract_live("host_memory") == 1);       /* the watchdog's abort flag */
    CHECK(mcoll_contract_live("context") == 1);           /* the team holds its context */
    CHECK(mcoll_contract_live_objects() == 1 + world_size + (world_rank == 0) + 2 + world_size + 1 + 2 + 1 + 1 + 1);
}

/* Through the pointer registry and plain loads and stores: slot i is rank i's memory, and a
 * write through this rank's own mapping is what every peer reads through its view of it. */
static void check_memory(const mcoll_comm_info_t *info, const team_objects *t, const int *devices)
{
    const mcoll_driver *cu = mcoll_contract_driver();
    const size_t bytes = info->symmetric_bytes;
    const size_t words = 8;
    for (int i = 0; i < world_size; i++) {
        int ordinal = -1;
        CHECK_OK(cu->cuPointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                                           (CUdeviceptr)(t->base + (unsigned long long)i * bytes)));
        CHECK(ordinal == devices[i]);
    }
    volatile uint64_t *own = (volatile uint64_t *)(uintptr_t)(t->base + (unsigned long long)world_rank * bytes +
                                                              MCOLL_DATA_OFFSET);
    for (size_t w = 0; w < words; w++) own[w] = ((uint64_t)(world_rank + 1) << 32) | w;
    own[(bytes - MCOLL_DATA_OFFSET) / sizeof(uint64_t) - 1] = 0xfeedull + (uint64_t)world_rank;
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < world_size; i++) {
        volatile uint64_t *peer = (volatile uint64_t *)(uintptr_t)(t->base + (unsigned long long)i * bytes +
                                                                   MCOLL_DATA_OFFSET);
        int same = 1;
        for (size_t w = 0; w < words; w++) same &= peer[w] == (((uint64_t)(i + 1) << 32) | w);
        CHECK(same);
        CHECK(peer[(bytes - MCOLL_DATA_OFFSET) / sizeof(uint64_t) - 1] == 0xfeedull + (uint64_t)i);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* The destruction's log (entries [from, end)): unbind, then the memory, then the multicast
 * object, and everything the creation made is undone. */
static void check_teardown(const team_objects *t, long from)
{
    long end = log_end();
    long unbind = log_find("cuMulticastUnbind", from);
    CHECK(log_count("cuMulticastUnbind", from, end) == 1 && log_succeeded(unbind));
    CHECK(log_arg(unbind, "mcHandle", 0) == t->mc);
    CHECK(log_arg(unbind, "mcOffset", 1) == 0 && log_arg(unbind, "size", 0) == t->bind_size);
    long unmap_mc = log_find_arg("cuMemUnmap", from, "ptr", t->mc_va);
    CHECK(unmap_mc >= 0 && unmap_mc < unbind);
    CHECK(log_count("cuMemUnmap", from, end) == world_size + 1);
    CHECK(log_count("cuMemAddressFree", from, end) == 2);

    /* Releases: the local allocation and every imported peer, all after the unbind; the
     * multicast handles (the import, and on rank 0 the created object) last. */
    int memory = 0, multicast = 0, order = 1;
    for (long i = log_find("cuMemRelease", from); i >= 0; i = log_find("cuMemRelease", i + 1)) {
        unsigned long long handle = log_arg(i, "handle", 0);
        CHECK(log_succeeded(i));
        CHECK(i > unbind);
        if (handle == t->mc || (world_rank == 0 && handle == t->created)) {
            multicast++;
        } else {
            memory++;
            order &= multicast == 0;
        }
        if (handle == t->local) CHECK(i > unbind);
    }
    CHECK(memory == world_size);
    CHECK(multicast == (world_rank == 0 ? 2 : 1));
    CHECK(order);
}

static void run_case(const success_case *c)
{
    mcoll_config config = team_config(c->nvls);
    mcoll_comm *comm = NULL;
    mcoll_comm_info_t info;
    team_objects t;
    int devices[64];

    case_begin();
    memset(&t, 0, sizeof t);
    use_fabric(c->fabric);
    MPI_Barrier(MPI_COMM_WORLD);
    mcoll_contract_reset();
    received_count = 0;

    mcoll_result rc = mcoll_comm_create(MPI_COMM_WORLD, &config, &comm);
    long created_end = log_end();
    CHECK(rc == MCOLL_SUCCESS && comm != NULL);
    CHECK(all_ranks(rc == MCOLL_SUCCESS));
    if (rc != MCOLL_SUCCESS || !comm) {
        case_end(c->name);
        return;
    }
    CHECK(mcoll_comm_info(comm, &info) == MCOLL_SUCCESS);
    MPI_Allgather(&info.device, 1, MPI_INT, devices, 1, MPI_INT, MPI_COMM_WORLD);
    check_info(&info, c, devices);
    CHECK(all_ranks(info.engine == MCOLL_ENGINE_NVLS));
    check_symmetric_sequence(&info, c, created_end, &t);
    check_multicast_sequence(&info, c, created_end, &t);
    CHECK(t.local && t.mc && t.local != t.mc);
    check_descriptors(c, created_end);
    check_live_during();
    /* Among the rules: no rank bound or mapped before every rank had added its device. */
    CHECK(mcoll_contract_violations() == 0);
    check_memory(&info, &t, devices);

    long destroy_from = log_end();
    CHECK(mcoll_comm_destroy(comm) == MCOLL_SUCCESS);
    check_teardown(&t, destroy_from);
    CHECK(mcoll_contract_live_objects() == 0);
    CHECK(mcoll_contract_live("context") == 0);
    CHECK(mcoll_contract_violations() == 0);
    if (check_failures) mcoll_contract_violations_print(stderr);
    case_end(c->name);
}

int main(int argc, char **argv)
{
    int skip = team_test_start(&argc, &argv, "mpi_team_success");
    if (skip) return skip;
    static const success_case cases[] = {
        {1, MCOLL_ON, "success: fabric handles, multicast on"},
        {1, MCOLL_TRISTATE_AUTO, "success: fabric handles, multicast auto"},
        {0, MCOLL_ON, "success: POSIX descriptors over SCM_RIGHTS, multicast on"},
        {0, MCOLL_TRISTATE_AUTO, "success: POSIX descriptors over SCM_RIGHTS, multicast auto"},
        {1, MCOLL_ON, "success: fabric handles again (nothing left from the cases before)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) run_case(&cases[i]);
    int status = team_test_exit("mpi_team_success");
    MPI_Finalize();
    return status;
}
