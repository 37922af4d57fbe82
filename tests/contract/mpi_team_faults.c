/* Failures during team creation, against the contract driver, under mpirun (2 to 8 ranks).
 * Each case fails one call on ONE rank (0, 1 and the last rank in turn; rank 0 alone for the calls
 * only rank 0 makes), with each error the CUDA documents list for that call, and runs with fabric
 * handles and again with POSIX descriptors (the fabric-handle probe with fabric handles only).
 *
 * Multicast steps: cuMulticastGetGranularity (the MINIMUM, then the RECOMMENDED query),
 * cuMulticastCreate, the export and the import of the multicast handle, cuMulticastAddDevice,
 * cuMulticastBindMem, and cuMemAddressReserve / cuMemMap / cuMemSetAccess of the multicast range.
 * Every rank must fall back to the unicast engine together: mcoll_comm_create succeeds, every
 * rank's nvls_reason is the same and names the call, the error and the failing rank, rank 0 logs
 * exactly one "multicast setup:" warning naming them (mcoll_last_warning() too) and no other
 * rank logs one, no rank goes on to the next step, the multicast objects are undone on every rank
 * while the team lives on, nothing breaks a rule, and mcoll_comm_destroy leaves nothing alive.
 *
 * Symmetric memory: cuMemCreate, cuMemAddressReserve, cuMemMap and cuMemSetAccess of the rank's
 * own allocation and of a peer's, the export, and the import of the first and of the last peer's
 * handle: mcoll_comm_create returns the same error on every rank, nothing is left alive, nothing
 * breaks a rule, and the next mcoll_comm_create, without faults, builds a multicast team.
 *
 * Fabric-handle probe (a granule created with fabric handles and exported, before the team picks
 * its handle kind): its cuMemCreate or export fails on one rank: every rank uses POSIX
 * descriptors, the team still runs NVLS, and the probe leaves nothing behind.
 *
 * Also: a device without multicast support, and multicast switched off by the configuration:
 * unicast on every rank and not one cuMulticast* call.
 *
 * Which invocation of a call to fail is read from the log of a clean team creation made first,
 * so the cases follow the code if the number of calls before a step changes. Each case takes
 * milliseconds; a hang would end in tests/run.sh's timeout. */
#define _GNU_SOURCE
#include <time.h>
#include "contract/team_common.h"

/* The documented errors. Seeds (shared/seeds): cuMulticastCreate, cuMulticastBindMem (the
 * release-version list, with CUDA_ERROR_ILLEGAL_STATE), cuMemMap. The CUDA Driver API reference
 * for the others. */
static const CUresult errors_granularity[] = {
    CUDA_ERROR_INVALID_VALUE, CUDA_ERROR_INVALID_DEVICE, CUDA_ERROR_NOT_INITIALIZED,
    CUDA_ERROR_DEINITIALIZED, CUDA_ERROR_NOT_PERMITTED, CUDA_ERROR_NOT_SUPPORTED, 0};
static const CUresult errors_create[] = {
    CUDA_ERROR_INVALID_VALUE, CUDA_ERROR_OUT_OF_MEMORY, CUDA_ERROR_INVALID_DEVICE,
    CUDA_ERROR_NOT_INITIALIZED, CUDA_ERROR_DEINITIALIZED, CUDA_ERROR_NOT_PERMITTED,
    CUDA_ERROR_NOT_SUPPORTED, 0};
static const CUresult errors_add_device[] = {
    CUDA_ERROR_INVALID_VALUE, CUDA_ERROR_INVALID_DEVICE, CUDA_ERROR_NOT_INITIALIZED,
    CUDA_ERROR_DEINITIALIZED, CUDA_ERROR_NOT_PERMITTED, CUDA_ERROR_NOT_SUPPORTED, 0};
static const CUresult errors_bind[] = {
    CUDA_ERROR_INVALID_VALUE, CUDA_ERROR_INVALID_DEVICE, CUDA_ERROR_NOT_INITIALIZED,
    CUDA_ERROR_DEINITIALIZED, CUDA_ERROR_NOT_PERMITTED, CUDA_ERROR_NOT_SUPPORTED,
    CUDA_ERROR_OUT_OF_MEMORY, CUDA_ERROR_SYSTEM_NOT_READY, CUDA_ERROR_ILLEGAL_STATE, 0};
static const CUresult errors_map[] = {
    CUDA_ERROR_INVALID_VALUE, CUDA_ERROR_INVALID_DEVICE, CUDA_ERROR_OUT_OF_MEMORY,
    CUDA_ERROR_NOT_INITIALIZED, CUDA_ERROR_DEINITIALIZED, CUDA_ERROR_NOT_PERMITTED,
    CUDA_ERROR_NOT_SUPPORTED, 0};
static const CUresult errors_access[] = {
    CUDA_ERROR_INVALID_VALUE, CUDA_ERROR_INVALID_DEVICE, CUDA_ERROR_NOT_SUPPORTED, 0};
static const CUresult errors_reserve[] = {
    CUDA_ERROR_INVALID_VALUE, CUDA_ERROR_NOT_INITIALIZED, CUDA_ERROR_DEINITIALIZED,
    CUDA_ERROR_NOT_PERMITTED, CUDA_ERROR_NOT_SUPPORTED, 0};
static const CUresult errors_share[] = {  /* export and import */
    CUDA_ERROR_INVALID_VALUE, CUDA_ERROR_NOT_INITIALIZED, CUDA_ERROR_DEINITIALIZED,
    CUDA_ERROR_NOT_PERMITTED, CUDA_ERROR_NOT_SUPPORTED, 0};
static const CUresult errors_mem_create[] = {
    CUDA_ERROR_OUT_OF_MEMORY, CUDA_ERROR_INVALID_VALUE, CUDA_ERROR_NOT_INITIALIZED,
    CUDA_ERROR_DEINITIALIZED, CUDA_ERROR_NOT_PERMITTED, CUDA_ERROR_INVALID_DEVICE,
    CUDA_ERROR_NOT_SUPPORTED, 0};

/* Which invocation of the call fails, counted in the clean creation's log of the failing rank. */
typedef enum {
    NTH_FIRST,               /* the first */
    NTH_SECOND,              /* the second */
    NTH_LAST_BEFORE_ADD,     /* the last before cuMulticastAddDevice: the multicast handle's share */
    NTH_FIRST_AFTER_BIND,    /* the first after cuMulticastBindMem: the multicast range */
    NTH_FIRST_AFTER_IMPORT,  /* the first after the first import: the first peer slot */
    NTH_LAST_SYMMETRIC,      /* the last before the multicast object's turn: the last peer */
    NTH_LAST_IMPORT_BEFORE_MAP, /* the last import before the peer slots are mapped */
    NTH_LAST_BEFORE_OWN_MAP, /* the last before the rank maps its own allocation */
    NTH_FIRST_AFTER_OWN_MAP  /* the first after the rank mapped its own allocation */
} nth_rule;

/* Where a failure lands: the fabric-handle probe (fabric handles only; every rank then uses
 * POSIX descriptors), the multicast object (every rank runs unicast) or the symmetric memory
 * (mcoll_comm_create fails on every rank). */
typedef enum { PROBE_STEP, MULTICAST_STEP, SYMMETRIC_STEP } step_kind;

typedef struct {
    const char *label;
    const char *call;          /* the entry that fails */
    nth_rule nth;
    step_kind kind;
    int rank0_only;            /* only rank 0 makes this call */
    const CUresult *errors;
    const char *next;          /* a call of the next step (NULL: none) */
    int next_allowed;          /* how many of `next` every rank makes when this one failed, all of
                                * them before this step (-1: one per rank of the team) */
} fault_site;

/* The probe: nth invocation per site on this rank, from a clean creation's log. */
#define MAX_SITES 32
static int nth_of[2][MAX_SITES];   /* [fabric][site] */

static int nth_from_log(const fault_site *s)
{
    long add = log_find("cuMulticastAddDevice", 0);
    long bind = log_find("cuMulticastBindMem", 0);
    long import = log_find("cuMemImportFromShareableHandle", 0);
    long peer_map = log_find("cuMemMap", import);
    long own_map = log_find("cuMemMap", 0);
    switch (s->nth) {
    case NTH_FIRST: return 1;
    case NTH_SECOND: return 2;
    case NTH_LAST_BEFORE_ADD: return log_count(s->call, 0, add);
    case NTH_FIRST_AFTER_BIND: return log_count(s->call, 0, bind) + 1;
    case NTH_FIRST_AFTER_IMPORT: return log_count(s->call, 0, import) + 1;
    case NTH_LAST_SYMMETRIC: return log_count(s->call, 0, add);
    case NTH_LAST_IMPORT_BEFORE_MAP: return log_count(s->call, 0, peer_map);
    case NTH_LAST_BEFORE_OWN_MAP: return log_count(s->call, 0, own_map);
    case NTH_FIRST_AFTER_OWN_MAP: return log_count(s->call, 0, own_map) + 1;
    }
    return 1;
}

/* label, call, which invocation, step, rank 0 only, errors, next step's call, its count */
static const fault_site sites[] = {
    /* The fabric-handle probe: every rank uses POSIX descriptors instead. */
    {"cuMemCreate of the fabric-handle probe", "cuMemCreate", NTH_FIRST, PROBE_STEP, 0,
     errors_mem_create, NULL, 0},
    {"export of the fabric-handle probe", "cuMemExportToShareableHandle", NTH_FIRST, PROBE_STEP, 0,
     errors_share, NULL, 0},
    /* Multicast: every rank falls back to unicast together. */
    {"cuMulticastGetGranularity (MINIMUM)", "cuMulticastGetGranularity", NTH_FIRST, MULTICAST_STEP, 0,
     errors_granularity, "cuMulticastCreate", 0},
    {"cuMulticastGetGranularity (RECOMMENDED)", "cuMulticastGetGranularity", NTH_SECOND, MULTICAST_STEP, 0,
     errors_granularity, "cuMulticastCreate", 0},
    {"cuMulticastCreate", "cuMulticastCreate", NTH_FIRST, MULTICAST_STEP, 1,
     errors_create, "cuMulticastAddDevice", 0},
    {"export of the multicast handle", "cuMemExportToShareableHandle", NTH_LAST_BEFORE_ADD, MULTICAST_STEP, 1,
     errors_share, "cuMulticastAddDevice", 0},
    {"import of the multicast handle", "cuMemImportFromShareableHandle", NTH_LAST_BEFORE_ADD, MULTICAST_STEP, 0,
     errors_share, "cuMulticastAddDevice", 0},
    {"cuMulticastAddDevice", "cuMulticastAddDevice", NTH_FIRST, MULTICAST_STEP, 0,
     errors_add_device, "cuMulticastBindMem", 0},
    {"cuMulticastBindMem", "cuMulticastBindMem", NTH_FIRST, MULTICAST_STEP, 0,
     errors_bind, "cuMemAddressReserve", 1},
    {"cuMemAddressReserve of the multicast range", "cuMemAddressReserve", NTH_FIRST_AFTER_BIND, MULTICAST_STEP, 0,
     errors_reserve, "cuMemMap", -1},
    {"cuMemMap of the multicast object", "cuMemMap", NTH_FIRST_AFTER_BIND, MULTICAST_STEP, 0,
     errors_map, "cuMemSetAccess", -1},
    {"cuMemSetAccess of the multicast range", "cuMemSetAccess", NTH_FIRST_AFTER_BIND, MULTICAST_STEP, 0,
     errors_access, NULL, 0},
    /* Symmetric memory: mcoll_comm_create fails on every rank. */
    {"cuMemCreate", "cuMemCreate", NTH_LAST_BEFORE_OWN_MAP, SYMMETRIC_STEP, 0,
     errors_mem_create, NULL, 0},
    {"cuMemAddressReserve of the symmetric range", "cuMemAddressReserve", NTH_FIRST, SYMMETRIC_STEP, 0,
     errors_reserve, NULL, 0},
    {"cuMemMap of the own allocation", "cuMemMap", NTH_FIRST, SYMMETRIC_STEP, 0,
     errors_map, NULL, 0},
    {"cuMemSetAccess of the own allocation", "cuMemSetAccess", NTH_FIRST, SYMMETRIC_STEP, 0,
     errors_access, NULL, 0},
    {"export of the own allocation", "cuMemExportToShareableHandle", NTH_FIRST_AFTER_OWN_MAP, SYMMETRIC_STEP, 0,
     errors_share, NULL, 0},
    {"import of the first peer's allocation", "cuMemImportFromShareableHandle", NTH_FIRST, SYMMETRIC_STEP, 0,
     errors_share, NULL, 0},
    {"import of the last peer's allocation", "cuMemImportFromShareableHandle", NTH_LAST_IMPORT_BEFORE_MAP,
     SYMMETRIC_STEP, 0, errors_share, NULL, 0},
    {"cuMemMap of the first peer's allocation", "cuMemMap", NTH_FIRST_AFTER_IMPORT, SYMMETRIC_STEP, 0,
     errors_map, NULL, 0},
    {"cuMemMap of the last peer's allocation", "cuMemMap", NTH_LAST_SYMMETRIC, SYMMETRIC_STEP, 0,
     errors_map, NULL, 0},
    {"cuMemSetAccess of the first peer's allocation", "cuMemSetAccess", NTH_FIRST_AFTER_IMPORT, SYMMETRIC_STEP, 0,
     errors_access, NULL, 0},
};
enum { SITE_COUNT = sizeof sites / sizeof sites[0] };

static int devices[64];  /* every rank's device ordinal */

/* A clean team: NVLS everywhere, nothing left after it. Records the nth table for `fabric`. */
static void clean_team(int fabric, int record, const char *name)
{
    mcoll_config config = team_config(MCOLL_TRISTATE_AUTO);
    mcoll_comm *comm = NULL;
    mcoll_comm_info_t info;

    case_begin();
    use_fabric(fabric);
    MPI_Barrier(MPI_COMM_WORLD);
    mcoll_contract_reset();
    mcoll_result rc = mcoll_comm_create(MPI_COMM_WORLD, &config, &comm);
    CHECK(rc == MCOLL_SUCCESS && comm);
    if (rc == MCOLL_SUCCESS && comm) {
        CHECK(mcoll_comm_info(comm, &info) == MCOLL_SUCCESS);
        CHECK(info.engine == MCOLL_ENGINE_NVLS);
        CHECK(strcmp(info.handle_type, fabric ? "fabric" : "posix-fd") == 0);
        MPI_Allgather(&info.device, 1, MPI_INT, devices, 1, MPI_INT, MPI_COMM_WORLD);
        if (record)
            for (int s = 0; s < SITE_COUNT; s++) nth_of[fabric][s] = nth_from_log(&sites[s]);
        CHECK(mcoll_comm_destroy(comm) == MCOLL_SUCCESS);
    }
    CHECK(mcoll_contract_live_objects() == 0 && mcoll_contract_live("context") == 0);
    CHECK(mcoll_contract_violations() == 0);
    case_end(name);
}

static int contains(const char *text, const char *part)
{
    return text && part && strstr(text, part) != NULL;
}

/* The single "multicast setup:" line of `text` names the call, the rank and the error. */
static int warning_names(const char *text, const char *call, const char *rank_text, const char *error)
{
    const char *line = strstr(text, "multicast setup:");
    if (!line) return 0;
    const char *end = strchr(line, '\n');
    size_t length = end ? (size_t)(end - line) : strlen(line);
    char buffer[1024];
    if (length >= sizeof buffer) length = sizeof buffer - 1;
    memcpy(buffer, line, length);
    buffer[length] = '\0';
    return contains(buffer, call) && contains(buffer, rank_text) && contains(buffer, error);
}

static void multicast_fault(int site, int fabric, int fail_rank, CUresult err, mcoll_tristate nvls)
{
    const fault_site *s = &sites[site];
    const char *error = mcoll_contract_error_name(err);
    mcoll_config config = team_config(nvls);
    mcoll_comm *comm = NULL;
    mcoll_comm_info_t info;
    char name[256], rank_text[32], reason0[sizeof info.nvls_reason];
    stderr_capture capture;

    snprintf(name, sizeof name, "fallback: %s fails with %s on rank %d (%s, multicast %s)", s->label, error, fail_rank,
             fabric ? "fabric" : "POSIX fd", nvls == MCOLL_ON ? "on" : "auto");
    snprintf(rank_text, sizeof rank_text, "local rank %d", fail_rank);
    case_begin();
    use_fabric(fabric);
    MPI_Barrier(MPI_COMM_WORLD);
    mcoll_contract_reset();
    if (world_rank == fail_rank) CHECK(mcoll_contract_fail(s->call, nth_of[fabric][site], err) == 0);

    capture_begin(&capture);
    mcoll_result rc = mcoll_comm_create(MPI_COMM_WORLD, &config, &comm);
    char *logged = capture_end(&capture);
    mcoll_contract_fail_clear();

    CHECK(rc == MCOLL_SUCCESS && comm);
    CHECK(all_ranks(rc == MCOLL_SUCCESS && comm));
    /* The fault hit the intended call, once, on the intended rank. */
    long injected = -1;
    CHECK(log_injected(0, &injected) == (world_rank == fail_rank));
    CHECK(mcoll_contract_injected() == (world_rank == fail_rank));
    if (world_rank == fail_rank) {
        CHECK(log_is(injected, s->call));
        if (s->nth == NTH_FIRST_AFTER_BIND) CHECK(injected > log_find("cuMulticastBindMem", 0));
        if (s->nth == NTH_LAST_BEFORE_ADD) CHECK(injected > log_find("cuMemMap", log_find(s->call, 0)));
    }
    /* No rank went on to the next step. */
    if (s->next) {
        int allowed = s->next_allowed >= 0 ? s->next_allowed : world_size;
        CHECK(all_ranks(log_count(s->next, 0, -1) == allowed));
    }
    if (rc == MCOLL_SUCCESS && comm) {
        CHECK(mcoll_comm_info(comm, &info) == MCOLL_SUCCESS);
        CHECK(info.engine == MCOLL_ENGINE_UNICAST);
        CHECK(all_ranks(info.engine == MCOLL_ENGINE_UNICAST));
        CHECK(contains(info.nvls_reason, "off:"));
        CHECK(contains(info.nvls_reason, s->call));
        CHECK(contains(info.nvls_reason, error));
        CHECK(contains(info.nvls_reason, rank_text));
        memcpy(reason0, info.nvls_reason, sizeof reason0);
        MPI_Bcast(reason0, (int)sizeof reason0, MPI_CHAR, 0, MPI_COMM_WORLD);
        CHECK(strcmp(reason0, info.nvls_reason) == 0);
        if (check_failures) fprintf(stderr, "rank %d: nvls_reason \"%s\"\n", world_rank, info.nvls_reason);
        /* Rank 0 told the user once, naming the rank, the call and the error. */
        if (world_rank == 0) {
            CHECK(count_lines(logged, "multicast setup:") == 1);
            CHECK(warning_names(logged, s->call, rank_text, error));
            const char *last = mcoll_last_warning();
            CHECK(contains(last, s->call) && contains(last, rank_text) && contains(last, error));
        } else {
            CHECK(count_lines(logged, "multicast setup:") == 0);
        }
        /* The multicast parts are undone on every rank while the team lives on unicast. */
        CHECK(mcoll_contract_live("multicast") == 0);
        CHECK(mcoll_contract_live("imported") == world_size - 1);
        CHECK(mcoll_contract_live("reservation") == 1);
        CHECK(mcoll_contract_live("mapping") == world_size);
        CHECK(mcoll_contract_live("context") == 1);
        CHECK(mcoll_comm_destroy(comm) == MCOLL_SUCCESS);
    }
    free(logged);
    CHECK(mcoll_contract_live_objects() == 0);
    CHECK(mcoll_contract_live("context") == 0);
    CHECK(mcoll_contract_violations() == 0);
    case_end(name);
}

static void probe_fault(int site, int fail_rank, CUresult err)
{
    const fault_site *s = &sites[site];
    const char *error = mcoll_contract_error_name(err);
    mcoll_config config = team_config(MCOLL_TRISTATE_AUTO);
    mcoll_comm *comm = NULL;
    mcoll_comm_info_t info;
    char name[256];

    snprintf(name, sizeof name, "POSIX descriptors: %s fails with %s on rank %d", s->label, error, fail_rank);
    case_begin();
    use_fabric(1);
    MPI_Barrier(MPI_COMM_WORLD);
    mcoll_contract_reset();
    if (world_rank == fail_rank) CHECK(mcoll_contract_fail(s->call, nth_of[1][site], err) == 0);
    mcoll_result rc = mcoll_comm_create(MPI_COMM_WORLD, &config, &comm);
    mcoll_contract_fail_clear();

    long injected = -1;
    CHECK(log_injected(0, &injected) == (world_rank == fail_rank));
    if (world_rank == fail_rank) CHECK(log_is(injected, s->call) && injected < log_find("cuMemMap", 0));
    CHECK(rc == MCOLL_SUCCESS && comm);
    CHECK(all_ranks(rc == MCOLL_SUCCESS));
    if (rc == MCOLL_SUCCESS && comm) {
        CHECK(mcoll_comm_info(comm, &info) == MCOLL_SUCCESS);
        CHECK(strcmp(info.handle_type, "posix-fd") == 0);  /* on every rank, not only the failing one */
        CHECK(info.engine == MCOLL_ENGINE_NVLS);
        /* The team's memory and multicast object use descriptors; the probe left nothing. */
        long own = log_find("cuMemMap", 0), created = -1;
        for (long i = log_find("cuMemCreate", 0); i >= 0 && i < own; i = log_find("cuMemCreate", i + 1)) created = i;
        CHECK(log_arg(created, "handleTypes", 0) == CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
        CHECK(log_arg(log_find("cuMulticastCreate", 0), "handleTypes", CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) ==
              CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
        CHECK(mcoll_contract_live("allocation") == 1);
        CHECK(mcoll_comm_destroy(comm) == MCOLL_SUCCESS);
    }
    CHECK(mcoll_contract_live_objects() == 0);
    CHECK(mcoll_contract_live("context") == 0);
    CHECK(mcoll_contract_violations() == 0);
    case_end(name);
}

static void symmetric_fault(int site, int fabric, int fail_rank, CUresult err)
{
    const fault_site *s = &sites[site];
    const char *error = mcoll_contract_error_name(err);
    mcoll_config config = team_config(MCOLL_TRISTATE_AUTO);
    mcoll_comm *comm = NULL;
    char name[256];

    snprintf(name, sizeof name, "error: %s fails with %s on rank %d (%s)", s->label, error, fail_rank,
             fabric ? "fabric" : "POSIX fd");
    case_begin();
    use_fabric(fabric);
    MPI_Barrier(MPI_COMM_WORLD);
    mcoll_contract_reset();
    if (world_rank == fail_rank) CHECK(mcoll_contract_fail(s->call, nth_of[fabric][site], err) == 0);
    mcoll_result rc = mcoll_comm_create(MPI_COMM_WORLD, &config, &comm);
    mcoll_contract_fail_clear();

    long injected = -1;
    CHECK(log_injected(0, &injected) == (world_rank == fail_rank));
    if (world_rank == fail_rank) CHECK(log_is(injected, s->call));
    CHECK(rc != MCOLL_SUCCESS && comm == NULL);
    CHECK(all_ranks(rc != MCOLL_SUCCESS));
    CHECK(same_on_all_ranks(rc));
    CHECK(log_count("cuMulticastCreate", 0, -1) == 0);
    if (comm) mcoll_comm_destroy(comm);
    CHECK(mcoll_contract_live_objects() == 0);
    CHECK(mcoll_contract_live("context") == 0);
    CHECK(mcoll_contract_violations() == 0);
    case_end(name);
}

/* Multicast not attempted at all: a device without support, or the configuration. */
static void no_multicast(const char *name, int unsupported_rank, mcoll_tristate nvls, mcoll_engine engine,
                         const char *reason)
{
    mcoll_config config = team_config(nvls);
    mcoll_comm *comm = NULL;
    mcoll_comm_info_t info;

    config.engine = engine;
    case_begin();
    use_fabric(1);
    if (unsupported_rank >= 0)
        CHECK(mcoll_contract_set_attribute(devices[unsupported_rank], CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED, 0) == 0);
    MPI_Barrier(MPI_COMM_WORLD);
    mcoll_contract_reset();
    mcoll_result rc = mcoll_comm_create(MPI_COMM_WORLD, &config, &comm);
    CHECK(rc == MCOLL_SUCCESS && comm);
    if (rc == MCOLL_SUCCESS && comm) {
        CHECK(mcoll_comm_info(comm, &info) == MCOLL_SUCCESS);
        CHECK(all_ranks(info.engine == MCOLL_ENGINE_UNICAST));
        CHECK(contains(info.nvls_reason, "off:"));
        if (unsupported_rank < 0 || world_rank == unsupported_rank) CHECK(contains(info.nvls_reason, reason));
        if (check_failures) fprintf(stderr, "rank %d: nvls_reason \"%s\"\n", world_rank, info.nvls_reason);
        CHECK(mcoll_comm_destroy(comm) == MCOLL_SUCCESS);
    }
    CHECK(all_ranks(mcoll_contract_calls("cuMulticast") == 0));
    CHECK(mcoll_contract_live_objects() == 0 && mcoll_contract_live("context") == 0);
    CHECK(mcoll_contract_violations() == 0);
    CHECK(mcoll_contract_set_attribute(-1, CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED, 1) == 0);
    case_end(name);
}

int main(int argc, char **argv)
{
    int skip = team_test_start(&argc, &argv, "mpi_team_faults");
    if (skip) return skip;
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    int ranks[3], nranks = fault_ranks(ranks), case_index = 0;

    clean_team(0, 1, "probe: clean team with POSIX descriptors");
    clean_team(1, 1, "probe: clean team with fabric handles");

    for (int site = 0; site < SITE_COUNT; site++) {
        const fault_site *s = &sites[site];
        for (int e = 0; s->errors[e]; e++) {
            for (int r = 0; r < (s->rank0_only ? 1 : nranks); r++) {
                if (s->kind == PROBE_STEP) {
                    probe_fault(site, ranks[r], s->errors[e]);
                    continue;
                }
                for (int fabric = 1; fabric >= 0; fabric--) {
                    if (s->kind == MULTICAST_STEP) {
                        /* Configurations asking for multicast (on) and leaving it to mcoll (auto). */
                        mcoll_tristate nvls = case_index++ / 2 % 2 ? MCOLL_ON : MCOLL_TRISTATE_AUTO;
                        multicast_fault(site, fabric, ranks[r], s->errors[e], nvls);
                    } else {
                        symmetric_fault(site, fabric, ranks[r], s->errors[e]);
                        clean_team(fabric, 0, "  next creation without faults: multicast team, nothing leaked");
                    }
                }
            }
        }
    }
    clean_team(1, 0, "clean team after the faults");

    for (int r = 0; r < nranks; r++) {
        char name[128];
        snprintf(name, sizeof name, "no multicast: the device of rank %d does not support it", ranks[r]);
        no_multicast(name, ranks[r], MCOLL_TRISTATE_AUTO, MCOLL_ENGINE_AUTO, "not every GPU supports multicast");
    }
    no_multicast("no multicast: configuration nvls = off", -1, MCOLL_OFF, MCOLL_ENGINE_AUTO, "MCOLL_NVLS=0");
    no_multicast("no multicast: configuration engine = unicast", -1, MCOLL_TRISTATE_AUTO, MCOLL_ENGINE_UNICAST,
                 "unicast engine requested");
    clean_team(1, 0, "clean team at the end");

    clock_gettime(CLOCK_MONOTONIC, &now);
    if (world_rank == 0)
        printf("mpi_team_faults: %.1f s\n", (double)(now.tv_sec - start.tv_sec) + (now.tv_nsec - start.tv_nsec) / 1e9);
    int status = team_test_exit("mpi_team_faults");
    MPI_Finalize();
    return status;
}
