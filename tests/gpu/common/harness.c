/* Start and end of every GPU test program; see harness.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>
#include <mpi.h>
#include "env.h"
#include "harness.h"
#include "mcoll.h"
#include "report.h"

/* Rank 0 prints where everything runs; all ranks must share one node for the GPU engines. */
static void header(const char *program, const gpu_opts *opts, int device)
{
    char node[MPI_MAX_PROCESSOR_NAME] = "", *nodes = NULL, devices_line[256] = "";
    struct cudaDeviceProp prop;
    int rank, size, len = 0, guard = env_guard_loaded(), all_guard = 0, runtime = 0, driver = 0, r, same = 1;
    int *devices;
    size_t used = 0;

    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Get_processor_name(node, &len);
    devices = malloc((size_t)size * sizeof *devices);
    nodes = malloc((size_t)size * MPI_MAX_PROCESSOR_NAME);
    if (!devices || !nodes) {
        free(devices);
        free(nodes);
        return;
    }
    MPI_Gather(&device, 1, MPI_INT, devices, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Gather(node, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, nodes, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0, MPI_COMM_WORLD);
    MPI_Allreduce(&guard, &all_guard, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (rank == 0) {
        for (r = 0; r < size; r++) {
            if (strcmp(nodes + (size_t)r * MPI_MAX_PROCESSOR_NAME, node)) same = 0;
            if (used < sizeof devices_line)
                used += (size_t)snprintf(devices_line + used, sizeof devices_line - used, " %d->%d", r, devices[r]);
        }
        cudaRuntimeGetVersion(&runtime);
        cudaDriverGetVersion(&driver);
        memset(&prop, 0, sizeof prop);
        cudaGetDeviceProperties(&prop, device);
        say("%s: %d ranks on %s%s; seed %lu%s%s%s", program, size, node, same ? "" : " AND OTHER NODES", opts->seed,
            opts->quick ? "; quick" : "", opts->filter ? "; filter " : "", opts->filter ? opts->filter : "");
        say("GPU: %s (sm_%d%d); rank -> GPU:%s", prop.name, prop.major, prop.minor, devices_line);
        say("CUDA runtime %d, driver %d; mcoll %d (API %d); NCCL_NVLS_ENABLE=%s; guard %s", runtime, driver,
            mcoll_version(), MCOLL_API_VERSION, getenv("NCCL_NVLS_ENABLE"),
            all_guard ? "loaded on every rank" : "NOT loaded on every rank");
    }
    free(devices);
    free(nodes);
}

/* need_gpu 0: host buffers only; no device is picked and none is needed. */
static int start(int *argc, char ***argv, const char *program, const char *about, gpu_opts *opts, int need_gpu)
{
    char why[256];
    const char *hazard;
    int rc, device = -1;

    rc = opts_parse(*argc, *argv, program, about, env_is_printer(), opts);
    if (rc >= 0) return rc;
    /* Before anything touches the GPU or mcoll: these programs never create a multicast object. */
    if ((hazard = env_multicast_hazard()) != NULL) {
        fprintf(stderr, "%s: refusing to run: %s\n", program, hazard);
        return 2;
    }
    if (env_guard_required() && !env_guard_loaded()) {
        fprintf(stderr, "%s: refusing to run: MCOLL_TEST_REQUIRE_GUARD=1 but libmcoll_guard.so is not loaded "
                        "(pass it with mpirun -x LD_PRELOAD=...)\n", program);
        return 2;
    }
    if (need_gpu && (device = env_select_device(why, sizeof why)) < 0) {
        if (env_is_printer()) printf("skip: %s\n", why);
        return 77;
    }
    if (MPI_Init(argc, argv) != MPI_SUCCESS) {
        fprintf(stderr, "%s: MPI_Init failed\n", program);
        return 1;
    }
    report_init(program, opts);
    if (need_gpu) header(program, opts, device);
    else say("%s: %d ranks, host buffers only (no GPU used); seed %lu", program, report_size(), opts->seed);
    return -1;
}

int harness_start(int *argc, char ***argv, const char *program, const char *about, gpu_opts *opts)
{
    return start(argc, argv, program, about, opts, 1);
}

int harness_start_host(int *argc, char ***argv, const char *program, const char *about, gpu_opts *opts)
{
    return start(argc, argv, program, about, opts, 0);
}

int harness_finish(void)
{
    int rc = report_finish();
    MPI_Finalize();
    return rc;
}
