/* Bad arguments to the native API return the documented error codes, enqueue nothing and break
 * nothing: NULL communicator, bad roots, NULL buffers, unsupported or invalid datatypes and ops,
 * missing count arrays.
 * After all of them the communicator still runs correct collectives.
 *   mpirun -np N gpu_errors [-f FILTER]                          (NCCL_NVLS_ENABLE=0 required)
 * Where the header leaves the choice open (an op or datatype MPI itself rejects: invalid
 * argument or unsupported?) either code passes and the one returned is printed. */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <cuda_runtime_api.h>
#include <mpi.h>
#include "common/api.h"
#include "common/devbuf.h"
#include "common/harness.h"
#include "common/prep.h"
#include "common/report.h"
#include "mcoll.h"

#define N 64 /* elements in the scratch buffers */

static mcoll_comm *mc;
static cudaStream_t stream;
static void *dev_a, *dev_b; /* device scratch, N doubles each */

static const char *code_name(mcoll_result rc)
{
    switch (rc) {
    case MCOLL_SUCCESS: return "MCOLL_SUCCESS";
    case MCOLL_ERR_INVALID_ARG: return "MCOLL_ERR_INVALID_ARG";
    case MCOLL_ERR_UNSUPPORTED: return "MCOLL_ERR_UNSUPPORTED";
    case MCOLL_ERR_NO_DEVICE: return "MCOLL_ERR_NO_DEVICE";
    case MCOLL_ERR_CUDA: return "MCOLL_ERR_CUDA";
    case MCOLL_ERR_MPI: return "MCOLL_ERR_MPI";
    case MCOLL_ERR_NO_MEMORY: return "MCOLL_ERR_NO_MEMORY";
    case MCOLL_ERR_SYSTEM: return "MCOLL_ERR_SYSTEM";
    case MCOLL_ERR_INTERNAL: return "MCOLL_ERR_INTERNAL";
    case MCOLL_ERR_ABORTED: return "MCOLL_ERR_ABORTED";
    }
    return "an unknown code";
}

/* The call returned `want` (or `also`; -1: no second choice), and a failed call left the stream
 * idle: an error must enqueue nothing. */
static void expect_code(const char *call, mcoll_result got, int want, int also)
{
    cudaError_t pending;
    if ((int)got != want && (int)got != also) {
        if (also >= 0)
            case_fail("%s returned %s, want %s or %s", call, code_name(got), code_name((mcoll_result)want),
                      code_name((mcoll_result)also));
        else
            case_fail("%s returned %s, want %s", call, code_name(got), code_name((mcoll_result)want));
        return;
    }
    if (also >= 0) say("%s -> %s", call, code_name(got));
    if (got != MCOLL_SUCCESS && (pending = cudaStreamQuery(stream)) != cudaSuccess)
        case_fail("%s failed but left work on the stream (cudaStreamQuery: %s)", call, cudaGetErrorName(pending));
}

#define EXPECT(call, want) expect_code(#call, (call), (want), -1)
#define EXPECT2(call, want, also) expect_code(#call, (call), (want), (also))

static void strerror_and_version(void)
{
    int code, other;
    const char *text[MCOLL_ERR_INTERNAL + 1];
    if (!case_begin("errors/strerror-version")) return;
    for (code = MCOLL_SUCCESS; code <= MCOLL_ERR_INTERNAL; code++) {
        text[code] = mcoll_strerror((mcoll_result)code);
        if (!text[code] || !text[code][0]) {
            case_fail("mcoll_strerror(%d) is empty", code);
            text[code] = "";
            continue;
        }
        for (other = 0; other < code; other++)
            if (!strcmp(text[code], text[other])) case_fail("mcoll_strerror gives \"%s\" for %d and %d", text[code], other, code);
    }
    if (!mcoll_strerror((mcoll_result)999)) case_fail("mcoll_strerror(999) is NULL");
    if (!mcoll_last_warning()) case_fail("mcoll_last_warning() is NULL");
    if (mcoll_version() / 1000 != MCOLL_API_VERSION_MAJOR || mcoll_version() < MCOLL_API_VERSION)
        case_fail("mcoll_version() %d does not match the header's API version %d", mcoll_version(), MCOLL_API_VERSION);
    case_end();
}

static void null_communicator(void)
{
    mcoll_comm *out = NULL;
    mcoll_comm_info_t info;
    char line[64];
    if (!case_begin("errors/null-communicator")) return;
    EXPECT(mcoll_comm_create(MPI_COMM_NULL, NULL, &out), MCOLL_ERR_INVALID_ARG);
    EXPECT(mcoll_comm_create(MPI_COMM_WORLD, NULL, NULL), MCOLL_ERR_INVALID_ARG);
    EXPECT(mcoll_comm_destroy(NULL), MCOLL_ERR_INVALID_ARG);
    EXPECT(mcoll_comm_info(NULL, &info), MCOLL_ERR_INVALID_ARG);
    EXPECT(mcoll_comm_info(mc, NULL), MCOLL_ERR_INVALID_ARG);
    EXPECT(mcoll_comm_describe(NULL, line, sizeof line), MCOLL_ERR_INVALID_ARG);
    EXPECT(mcoll_comm_describe(mc, NULL, 64), MCOLL_ERR_INVALID_ARG);
    EXPECT(mcoll_allreduce(dev_a, dev_b, N, MPI_FLOAT, MPI_SUM, NULL, stream), MCOLL_ERR_INVALID_ARG);
    EXPECT(mcoll_bcast(dev_a, N, MPI_FLOAT, 0, NULL, stream), MCOLL_ERR_INVALID_ARG);
    EXPECT(mcoll_reduce(dev_a, dev_b, N, MPI_FLOAT, MPI_SUM, 0, NULL, stream), MCOLL_ERR_INVALID_ARG);
    EXPECT(mcoll_reduce_scatter(dev_a, dev_b, 1, MPI_FLOAT, MPI_SUM, NULL, stream), MCOLL_ERR_INVALID_ARG);
    EXPECT(mcoll_allgather(dev_a, dev_b, 1, MPI_FLOAT, NULL, stream), MCOLL_ERR_INVALID_ARG);
    EXPECT(mcoll_barrier(NULL, stream), MCOLL_ERR_INVALID_ARG);
    case_end();
}

static void bad_roots(int size)
{
    if (!case_begin("errors/bad-root")) return;
    EXPECT(mcoll_bcast(dev_a, N, MPI_FLOAT, -1, mc, stream), MCOLL_ERR_INVALID_ARG);
    EXPECT(mcoll_bcast(dev_a, N, MPI_FLOAT, size, mc, stream), MCOLL_ERR_INVALID_ARG);
    EXPECT(mcoll_bcast(dev_a, N, MPI_FLOAT, INT_MAX, mc, stream), MCOLL_ERR_INVALID_ARG);
    EXPECT(mcoll_reduce(dev_a, dev_b, N, MPI_FLOAT, MPI_SUM, -1, mc, stream), MCOLL_ERR_INVALID_ARG);
    EXPECT(mcoll_reduce(dev_a, dev_b, N, MPI_FLOAT, MPI_SUM, size, mc, stream), MCOLL_ERR_INVALID_ARG);
    EXPECT(mcoll_reduce(dev_a, dev_b, N, MPI_FLOAT, MPI_SUM, INT_MIN, mc, stream), MCOLL_ERR_INVALID_ARG);
    case_end();
}

static void null_buffers(void)
{
    if (!case_begin("errors/null-buffers")) return;
    EXPECT(mcoll_allreduce(dev_a, NULL, N, MPI_FLOAT, MPI_SUM, mc, stream), MCOLL_ERR_INVALID_ARG);
    EXPECT(mcoll_allreduce(NULL, dev_b, N, MPI_FLOAT, MPI_SUM, mc, stream), MCOLL_ERR_INVALID_ARG);
    EXPECT(mcoll_allreduce(MPI_IN_PLACE, NULL, N, MPI_FLOAT, MPI_SUM, mc, stream), MCOLL_ERR_INVALID_ARG);
    EXPECT(mcoll_bcast(NULL, N, MPI_FLOAT, 0, mc, stream), MCOLL_ERR_INVALID_ARG);
    EXPECT(mcoll_reduce(NULL, dev_b, N, MPI_FLOAT, MPI_SUM, 0, mc, stream), MCOLL_ERR_INVALID_ARG);
    EXPECT(mcoll_reduce_scatter(NULL, dev_b, 1, MPI_FLOAT, MPI_SUM, mc, stream), MCOLL_ERR_INVALID_ARG);
    EXPECT(mcoll_reduce_scatter(dev_a, NULL, 1, MPI_FLOAT, MPI_SUM, mc, stream), MCOLL_ERR_INVALID_ARG);
    EXPECT(mcoll_allgather(NULL, dev_b, 1, MPI_FLOAT, mc, stream), MCOLL_ERR_INVALID_ARG);
    EXPECT(mcoll_allgather(dev_a, NULL, 1, MPI_FLOAT, mc, stream), MCOLL_ERR_INVALID_ARG);
    case_end();
}

/* Count 0 is a valid call that does nothing, whatever the buffers. */
static void zero_counts(void)
{
    if (!case_begin("errors/zero-count")) return;
    EXPECT(mcoll_allreduce(NULL, NULL, 0, MPI_FLOAT, MPI_SUM, mc, stream), MCOLL_SUCCESS);
    EXPECT(mcoll_bcast(NULL, 0, MPI_FLOAT, 0, mc, stream), MCOLL_SUCCESS);
    EXPECT(mcoll_reduce(NULL, NULL, 0, MPI_FLOAT, MPI_SUM, 0, mc, stream), MCOLL_SUCCESS);
    EXPECT(mcoll_reduce_scatter(NULL, NULL, 0, MPI_FLOAT, MPI_SUM, mc, stream), MCOLL_SUCCESS);
    EXPECT(mcoll_allgather(NULL, NULL, 0, MPI_FLOAT, mc, stream), MCOLL_SUCCESS);
    cuda_check(cudaStreamSynchronize(stream), "cudaStreamSynchronize after count-0 calls");
    case_end();
}

/* The calls of API 0.3. Each error here is the same on every rank: a rank that got one while
 * another launched would leave that one waiting. */
static void api_0_3(int size)
{
    size_t counts[64], zeros[64], displs[64];
    MPI_Datatype vector;
    int q;
    if (!case_begin("errors/api-0.3")) return;
    if (size > 64) {
        case_skip("more than 64 ranks");
        case_end();
        return;
    }
    for (q = 0; q < 64; q++) {
        counts[q] = 1;
        zeros[q] = 0;
        displs[q] = (size_t)q;
    }
    MPI_Type_vector(2, 1, 2, MPI_FLOAT, &vector);
    MPI_Type_commit(&vector);
    EXPECT(mcoll_allgatherv(dev_a, 1, dev_b, counts, displs, MPI_FLOAT, NULL, stream), MCOLL_ERR_INVALID_ARG);
    EXPECT(mcoll_allgatherv(dev_a, 1, dev_b, NULL, displs, MPI_FLOAT, mc, stream), MCOLL_ERR_INVALID_ARG);
    EXPECT(mcoll_allgatherv(dev_a, 1, dev_b, counts, NULL, MPI_FLOAT, mc, stream), MCOLL_ERR_INVALID_ARG);
    EXPECT(mcoll_allgatherv(dev_a, 1, NULL, counts, displs, MPI_FLOAT, mc, stream), MCOLL_ERR_INVALID_ARG);
    EXPECT(mcoll_allgatherv(dev_a, 2, dev_b, counts, displs, MPI_FLOAT, mc, stream), MCOLL_ERR_INVALID_ARG);
    EXPECT(mcoll_alltoall(dev_a, NULL, 1, MPI_FLOAT, mc, stream), MCOLL_ERR_INVALID_ARG);
    EXPECT(mcoll_alltoall(NULL, dev_b, 1, MPI_FLOAT, NULL, stream), MCOLL_ERR_INVALID_ARG);
    EXPECT(mcoll_alltoallv(dev_a, NULL, displs, dev_b, counts, displs, MPI_FLOAT, mc, stream), MCOLL_ERR_INVALID_ARG);
    EXPECT(mcoll_alltoallv(dev_a, counts, displs, dev_b, counts, NULL, MPI_FLOAT, mc, stream), MCOLL_ERR_INVALID_ARG);
    EXPECT(mcoll_alltoallv(MPI_IN_PLACE, NULL, NULL, dev_b, NULL, displs, MPI_FLOAT, mc, stream), MCOLL_ERR_INVALID_ARG);
    EXPECT(mcoll_gather(dev_a, dev_b, 1, MPI_FLOAT, -1, mc, stream), MCOLL_ERR_INVALID_ARG);
    EXPECT(mcoll_gather(dev_a, dev_b, 1, MPI_FLOAT, size, mc, stream), MCOLL_ERR_INVALID_ARG);
    EXPECT(mcoll_gatherv(dev_a, 1, dev_b, counts, displs, MPI_FLOAT, size, mc, stream), MCOLL_ERR_INVALID_ARG);
    EXPECT(mcoll_scatter(dev_a, dev_b, 1, MPI_FLOAT, INT_MIN, mc, stream), MCOLL_ERR_INVALID_ARG);
    EXPECT(mcoll_scatterv(dev_a, counts, displs, dev_b, 1, MPI_FLOAT, -1, mc, stream), MCOLL_ERR_INVALID_ARG);
    EXPECT(mcoll_scan(dev_a, dev_b, N, MPI_FLOAT, MPI_SUM, NULL, stream), MCOLL_ERR_INVALID_ARG);
    EXPECT(mcoll_exscan(NULL, dev_b, N, MPI_FLOAT, MPI_SUM, mc, stream), MCOLL_ERR_INVALID_ARG);
    EXPECT(mcoll_exscan(dev_a, dev_b, N, MPI_FLOAT, MPI_OP_NULL, mc, stream), MCOLL_ERR_INVALID_ARG);
    EXPECT(mcoll_scan(dev_a, dev_b, N / 2, MPI_LONG_DOUBLE, MPI_SUM, mc, stream), MCOLL_ERR_UNSUPPORTED);
    EXPECT(mcoll_alltoall(dev_a, dev_b, 1, vector, mc, stream), MCOLL_ERR_UNSUPPORTED);
    EXPECT(mcoll_gatherv(dev_a, 1, dev_b, counts, displs, vector, 0, mc, stream), MCOLL_ERR_UNSUPPORTED);
    EXPECT(mcoll_scatter(dev_a, dev_b, 1, MPI_DATATYPE_NULL, 0, mc, stream), MCOLL_ERR_INVALID_ARG);
    /* Nothing to move, and every rank knows it: nothing is launched, whatever the buffers. */
    EXPECT(mcoll_allgatherv(NULL, 0, NULL, zeros, displs, MPI_FLOAT, mc, stream), MCOLL_SUCCESS);
    EXPECT(mcoll_alltoall(NULL, NULL, 0, MPI_FLOAT, mc, stream), MCOLL_SUCCESS);
    EXPECT(mcoll_gather(NULL, NULL, 0, MPI_FLOAT, 0, mc, stream), MCOLL_SUCCESS);
    EXPECT(mcoll_scatter(NULL, NULL, 0, MPI_FLOAT, 0, mc, stream), MCOLL_SUCCESS);
    EXPECT(mcoll_scan(NULL, NULL, 0, MPI_FLOAT, MPI_SUM, mc, stream), MCOLL_SUCCESS);
    EXPECT(mcoll_exscan(NULL, NULL, 0, MPI_FLOAT, MPI_SUM, mc, stream), MCOLL_SUCCESS);
    cuda_check(cudaStreamSynchronize(stream), "cudaStreamSynchronize after the calls of API 0.3");
    MPI_Type_free(&vector);
    case_end();
}

static void user_sum(void *in, void *inout, int *len, MPI_Datatype *type)
{
    int i;
    (void)type;
    for (i = 0; i < *len; i++) ((float *)inout)[i] += ((float *)in)[i];
}

static void datatypes_and_ops(void)
{
    MPI_Datatype vector, floats4;
    MPI_Op user;
    if (!case_begin("errors/datatypes-ops")) return;
    MPI_Type_vector(4, 1, 2, MPI_FLOAT, &vector);
    MPI_Type_commit(&vector);
    MPI_Type_contiguous(4, MPI_FLOAT, &floats4);
    MPI_Type_commit(&floats4);
    MPI_Op_create(user_sum, 1, &user);

    /* Handles that are not datatypes or ops at all. */
    EXPECT(mcoll_allreduce(dev_a, dev_b, N, MPI_DATATYPE_NULL, MPI_SUM, mc, stream), MCOLL_ERR_INVALID_ARG);
    EXPECT(mcoll_allreduce(dev_a, dev_b, N, MPI_FLOAT, MPI_OP_NULL, mc, stream), MCOLL_ERR_INVALID_ARG);
    EXPECT(mcoll_bcast(dev_a, N, MPI_DATATYPE_NULL, 0, mc, stream), MCOLL_ERR_INVALID_ARG);
    EXPECT(mcoll_allgather(dev_a, dev_b, 1, MPI_DATATYPE_NULL, mc, stream), MCOLL_ERR_INVALID_ARG);
    /* Valid MPI that the kernels do not implement. */
    EXPECT(mcoll_allreduce(dev_a, dev_b, N / 2, MPI_LONG_DOUBLE, MPI_SUM, mc, stream), MCOLL_ERR_UNSUPPORTED);
    EXPECT(mcoll_allreduce(dev_a, dev_b, N / 4, MPI_LONG_DOUBLE_INT, MPI_MAXLOC, mc, stream), MCOLL_ERR_UNSUPPORTED);
    EXPECT(mcoll_allreduce(dev_a, dev_b, N / 4, MPI_C_LONG_DOUBLE_COMPLEX, MPI_PROD, mc, stream), MCOLL_ERR_UNSUPPORTED);
    EXPECT(mcoll_allreduce(dev_a, dev_b, N, MPI_FLOAT, user, mc, stream), MCOLL_ERR_UNSUPPORTED);
    EXPECT(mcoll_reduce_scatter(dev_a, dev_b, 1, MPI_LONG_DOUBLE, MPI_SUM, mc, stream), MCOLL_ERR_UNSUPPORTED);
    EXPECT(mcoll_allreduce(dev_a, dev_b, 4, floats4, MPI_SUM, mc, stream), MCOLL_ERR_UNSUPPORTED);
    EXPECT(mcoll_bcast(dev_a, 2, vector, 0, mc, stream), MCOLL_ERR_UNSUPPORTED);
    EXPECT(mcoll_allgather(dev_a, dev_b, 1, vector, mc, stream), MCOLL_ERR_UNSUPPORTED);
    /* Combinations MPI itself does not define: either code is an honest answer. */
    EXPECT2(mcoll_allreduce(dev_a, dev_b, N, MPI_BYTE, MPI_SUM, mc, stream), MCOLL_ERR_UNSUPPORTED, MCOLL_ERR_INVALID_ARG);
    EXPECT2(mcoll_allreduce(dev_a, dev_b, N, MPI_C_BOOL, MPI_MAX, mc, stream), MCOLL_ERR_UNSUPPORTED, MCOLL_ERR_INVALID_ARG);
    EXPECT2(mcoll_allreduce(dev_a, dev_b, N, MPI_INT, MPI_MINLOC, mc, stream), MCOLL_ERR_UNSUPPORTED, MCOLL_ERR_INVALID_ARG);
    EXPECT2(mcoll_allreduce(dev_a, dev_b, N / 2, MPI_2INT, MPI_SUM, mc, stream), MCOLL_ERR_UNSUPPORTED, MCOLL_ERR_INVALID_ARG);
    EXPECT2(mcoll_allreduce(dev_a, dev_b, N / 2, MPI_C_FLOAT_COMPLEX, MPI_MAX, mc, stream), MCOLL_ERR_UNSUPPORTED,
            MCOLL_ERR_INVALID_ARG);
    EXPECT2(mcoll_allreduce(dev_a, dev_b, N, MPI_DOUBLE, MPI_LAND, mc, stream), MCOLL_ERR_UNSUPPORTED, MCOLL_ERR_INVALID_ARG);
    EXPECT2(mcoll_allreduce(dev_a, dev_b, N, MPI_FLOAT, MPI_BAND, mc, stream), MCOLL_ERR_INVALID_ARG, MCOLL_ERR_UNSUPPORTED);
    EXPECT2(mcoll_allreduce(dev_a, dev_b, N, MCOLL_BFLOAT16, MPI_BXOR, mc, stream), MCOLL_ERR_INVALID_ARG,
            MCOLL_ERR_UNSUPPORTED);
    EXPECT2(mcoll_allreduce(dev_a, dev_b, N, MPI_FLOAT, MPI_MAXLOC, mc, stream), MCOLL_ERR_INVALID_ARG, MCOLL_ERR_UNSUPPORTED);

    MPI_Op_free(&user);
    MPI_Type_free(&floats4);
    MPI_Type_free(&vector);
    case_end();
}

int main(int argc, char **argv)
{
    gpu_opts opts;
    mcoll_result rc;
    coll_api api;
    coll_case c = {COLL_ALLREDUCE, NULL, NULL, 1023, 0, 0, 0, 0, MEM_DEVICE, 0};
    int status = harness_start(&argc, &argv, "gpu_errors", "native mcoll API: bad arguments", &opts), size;
    if (status >= 0) return status;
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    if (setup_begin("errors/setup")) {
        if (!cuda_check(cudaStreamCreate(&stream), "cudaStreamCreate") &&
            !cuda_check(cudaMalloc(&dev_a, N * sizeof(double)), "cudaMalloc") &&
            !cuda_check(cudaMalloc(&dev_b, N * sizeof(double)), "cudaMalloc")) {
            rc = mcoll_comm_create(MPI_COMM_WORLD, NULL, &mc);
            if (rc != MCOLL_SUCCESS) {
                case_fail("mcoll_comm_create returned %s", code_name(rc));
                mc = NULL;
            }
        }
        if (!case_end() && mc) {
            mcoll_comm_destroy(mc);
            mc = NULL;
        }
    }
    if (mc) {
        strerror_and_version();
        null_communicator();
        bad_roots(size);
        null_buffers();
        zero_counts();
        datatypes_and_ops();
        api_0_3(size);
        /* Nothing above may have disturbed the communicator. */
        api_native(&api, "errors/afterwards", MPI_COMM_WORLD, mc, stream);
        c.type = type_get(TT_FLOAT);
        c.op = op_get(OP_SUM);
        case_run(&api, &c);
        c.kind = COLL_BCAST;
        c.root = size - 1;
        c.type = type_get(TT_BYTE);
        case_run(&api, &c);
        if (setup_begin("errors/comm_destroy")) {
            rc = mcoll_comm_destroy(mc);
            if (rc != MCOLL_SUCCESS) case_fail("mcoll_comm_destroy returned %s", code_name(rc));
            case_end();
        }
    }
    if (dev_a) cudaFree(dev_a);
    if (dev_b) cudaFree(dev_b);
    if (stream) cudaStreamDestroy(stream);
    return harness_finish();
}
