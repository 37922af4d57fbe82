/* mcoll-probe: the engines' broadcast kernels (push: the staged form through the data area;
 * direct: zero-copy between the users' buffers) on every GPU of one process, on teams built
 * by hand (peer access instead of the library's mappings), timed per call and traced per block
 * barrier (collectives/barrier.cuh, MCOLL_TRACE_BARRIERS). It answers what the full benchmark
 * cannot: where a slow call's time goes, moving data or waiting, and for which peer, by grid
 * and message size, without MPI. Unicast layer only; no multicast object is ever created.
 *
 *   mcoll-probe [-g GPUS] [-b BLOCKS,...] [-s BYTES,...] [-n CALLS] [-k push|direct|both] [-p NS,...]
 *
 * BYTES take K, M or G; -p lists the barrier waits' pauses before each poll (MCOLL_POLL_PAUSE_NS;
 * default 100, the library's; 0: back-to-back polls). For each kind, pause, grid and size: the
 * time per call (the slowest GPU's, by events) as median, least and most of CALLS calls, then
 * the last call's barriers on every GPU (GPU 0 is the root): per barrier, the work before it (from leaving the previous one) and the wait in it, median
 * and most over the blocks, and the rank whose arrival came last to most blocks.
 * Exit 0; 2 on bad usage; 77 with fewer than two GPUs that reach each other. */
#define MCOLL_TRACE_BARRIERS 1
#include "launch_common.cu"
#include "push_run.cu"
#include "bcast.cu"
#include "direct_run.cu"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#include <unistd.h>

#define CHECK(call)                                                                              \
    do {                                                                                         \
        cudaError_t e_ = (call);                                                                 \
        if (e_ != cudaSuccess) {                                                                 \
            fprintf(stderr, "mcoll-probe: %s: %s\n", #call, cudaGetErrorString(e_));           \
            exit(1);                                                                             \
        }                                                                                        \
    } while (0)

namespace {

constexpr size_t kDataBytes = ((size_t)64 << 20) - MCOLL_DATA_OFFSET; /* the default 64 MiB buffer */
constexpr int kWarmup = 3;
using Trace = uint64_t[MCOLL_MAX_BLOCKS][mcoll::kTraceDepth][mcoll::kTraceSeen + mcoll::kTracePeers];

struct Gpu {
    char *symm = nullptr; /* signal pad, then the data area */
    char *user = nullptr;
    uint64_t *epochs = nullptr;
    cudaStream_t stream{};
    mcoll_dev_team team{}, direct{};
    std::vector<cudaEvent_t> start, stop;
};

size_t parse_size(const char *s) {
    char *end = nullptr;
    double v = strtod(s, &end);
    switch (*end) {
    case 'k': case 'K': v *= 1024; break;
    case 'm': case 'M': v *= 1024 * 1024; break;
    case 'g': case 'G': v *= 1024.0 * 1024 * 1024; break;
    case '\0': break;
    default: return 0;
    }
    return (size_t)v;
}

std::vector<size_t> parse_list(const char *s, bool sizes, bool zero_ok = false) {
    std::vector<size_t> out;
    std::string all(s);
    size_t at = 0;
    while (at <= all.size()) {
        const size_t comma = all.find(',', at);
        const std::string item = all.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
        char *end = nullptr;
        const size_t v = sizes ? parse_size(item.c_str()) : (size_t)strtoul(item.c_str(), &end, 10);
        if ((v == 0 && !zero_ok) || item.empty() || (end && *end)) return {};
        out.push_back(v);
        if (comma == std::string::npos) break;
        at = comma + 1;
    }
    return out;
}

double median(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

int launch_one(Gpu &g, bool direct, size_t bytes) {
    return direct ? mcoll_launch_bcast_direct(&g.direct, bytes, 0, g.stream)
                  : mcoll_launch_bcast(&g.team, MCOLL_ACCESS_UNICAST, g.user, bytes, 0, g.stream);
}

/* The last call's barriers on GPU `gi`: work before each and wait in each, over the blocks. */
void report_barriers(int gi, const Trace &tr, const std::vector<uint64_t> &before, const std::vector<uint64_t> &after,
                     int size) {
    int nbar = 0;
    for (int b = 0; b < MCOLL_MAX_BLOCKS; b++) nbar = std::max(nbar, (int)(after[b] - before[b]));
    if (nbar > mcoll::kTraceDepth) nbar = mcoll::kTraceDepth;
    uint64_t t0 = ~0ull;
    for (int b = 0; b < MCOLL_MAX_BLOCKS; b++)
        if (after[b] > before[b]) t0 = std::min(t0, tr[b][(before[b] + 1) % mcoll::kTraceDepth][mcoll::kTraceArrive]);
    printf("    gpu %d, %d barriers per block (us from the first arrival):\n", gi, nbar);
    for (int k = 1; k <= nbar; k++) {
        std::vector<double> work, wait;
        int last_count[mcoll::kTracePeers] = {0};
        double arrive_lo = 1e30, arrive_hi = 0;
        for (int b = 0; b < MCOLL_MAX_BLOCKS; b++) {
            if ((int)(after[b] - before[b]) < k) continue;
            const uint64_t *e = tr[b][(before[b] + k) % mcoll::kTraceDepth];
            const double arrive = (double)(e[mcoll::kTraceArrive] - t0) * 1e-3;
            arrive_lo = std::min(arrive_lo, arrive);
            arrive_hi = std::max(arrive_hi, arrive);
            wait.push_back((double)(e[mcoll::kTraceLeave] - e[mcoll::kTraceArrive]) * 1e-3);
            if (k > 1) {
                const uint64_t *p = tr[b][(before[b] + k - 1) % mcoll::kTraceDepth];
                work.push_back((double)(e[mcoll::kTraceArrive] - p[mcoll::kTraceLeave]) * 1e-3);
            }
            int last = 0;
            for (int q = 1; q < size && q < mcoll::kTracePeers; q++)
                if (e[mcoll::kTraceSeen + q] > e[mcoll::kTraceSeen + last]) last = q;
            last_count[last]++;
        }
        const int *most = std::max_element(last_count, last_count + mcoll::kTracePeers);
        printf("      barrier %2d: %3zu blocks arrive %8.2f..%8.2f; work median %7.2f most %7.2f; "
               "wait median %7.2f most %7.2f; last seen: rank %d (%d blocks)\n",
               k, wait.size(), arrive_lo, arrive_hi, median(work),
               work.empty() ? 0.0 : *std::max_element(work.begin(), work.end()), median(wait),
               wait.empty() ? 0.0 : *std::max_element(wait.begin(), wait.end()), (int)(most - last_count), *most);
    }
}

} // namespace

int main(int argc, char **argv) {
    int want_gpus = 0, calls = 20;
    std::vector<size_t> grids = {32, 64}, sizes = {(size_t)2 << 20, (size_t)8 << 20, (size_t)32 << 20};
    std::vector<size_t> pauses = {100};
    bool do_push = true, do_direct = true;
    for (int c; (c = getopt(argc, argv, "g:b:s:n:k:p:h")) != -1;) {
        switch (c) {
        case 'g': want_gpus = atoi(optarg); break;
        case 'b': grids = parse_list(optarg, false); break;
        case 's': sizes = parse_list(optarg, true); break;
        case 'n': calls = atoi(optarg); break;
        case 'p': pauses = parse_list(optarg, false, true); break;
        case 'k':
            do_push = !strcmp(optarg, "push") || !strcmp(optarg, "both");
            do_direct = !strcmp(optarg, "direct") || !strcmp(optarg, "both");
            if (!do_push && !do_direct) grids.clear();
            break;
        default:
            fprintf(stderr, "usage: mcoll-probe [-g GPUS] [-b BLOCKS,...] [-s BYTES,...] [-n CALLS] [-k push|direct|both] [-p NS,...]\n");
            return c == 'h' ? 0 : 2;
        }
    }
    for (size_t b : grids)
        if (b > MCOLL_MAX_BLOCKS) grids.clear();
    for (size_t p : pauses)
        if (p > 10000) pauses.clear();
    if (grids.empty() || sizes.empty() || pauses.empty() || calls < 1) {
        fprintf(stderr, "mcoll-probe: bad -b, -s, -n, -k or -p (grids of 1 to %d blocks, pauses of 0 to 10000 ns)\n",
                MCOLL_MAX_BLOCKS);
        return 2;
    }
    int ngpus = 0;
    if (cudaGetDeviceCount(&ngpus) != cudaSuccess) ngpus = 0;
    if (want_gpus > 0 && want_gpus < ngpus) ngpus = want_gpus;
    if (ngpus > mcoll::kTracePeers) ngpus = mcoll::kTracePeers;
    if (ngpus < 2) {
        printf("mcoll-probe: skip: needs two GPUs\n");
        return 77;
    }
    for (int a = 0; a < ngpus; a++)
        for (int b = 0; b < ngpus; b++) {
            int ok = 1;
            if (a != b && (cudaDeviceCanAccessPeer(&ok, a, b) != cudaSuccess || !ok)) {
                printf("mcoll-probe: skip: GPU %d cannot reach GPU %d\n", a, b);
                return 77;
            }
        }
    const size_t most = *std::max_element(sizes.begin(), sizes.end());
    uint32_t *abort_host = nullptr, *abort_dev = nullptr;
    CHECK(cudaHostAlloc((void **)&abort_host, sizeof *abort_host, cudaHostAllocMapped | cudaHostAllocPortable));
    *abort_host = 0;
    CHECK(cudaHostGetDevicePointer((void **)&abort_dev, abort_host, 0));
    std::vector<Gpu> gpus(ngpus);
    for (int g = 0; g < ngpus; g++) {
        Gpu &x = gpus[g];
        CHECK(cudaSetDevice(g));
        for (int q = 0; q < ngpus; q++)
            if (q != g) CHECK(cudaDeviceEnablePeerAccess(q, 0));
        CHECK(cudaMalloc(&x.symm, MCOLL_DATA_OFFSET + kDataBytes));
        CHECK(cudaMemset(x.symm, 0, MCOLL_DATA_OFFSET + kDataBytes));
        CHECK(cudaMalloc(&x.user, most + 16));
        CHECK(cudaMemset(x.user, g == 0 ? 7 : 0, most + 16));
        CHECK(cudaMalloc(&x.epochs, MCOLL_MAX_BLOCKS * sizeof(uint64_t)));
        CHECK(cudaMemset(x.epochs, 0, MCOLL_MAX_BLOCKS * sizeof(uint64_t)));
        CHECK(cudaStreamCreateWithFlags(&x.stream, cudaStreamNonBlocking));
        x.start.resize(calls);
        x.stop.resize(calls);
        for (int i = 0; i < calls; i++) {
            CHECK(cudaEventCreate(&x.start[i]));
            CHECK(cudaEventCreate(&x.stop[i]));
        }
    }
    int sms = 0;
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    for (int g = 0; g < ngpus; g++) {
        mcoll_dev_team &t = gpus[g].team;
        t.rank = g;
        t.size = ngpus;
        t.data_bytes = kDataBytes;
        for (int q = 0; q < ngpus; q++) {
            t.peer_data[q] = gpus[q].symm + MCOLL_DATA_OFFSET;
            t.peer_signal[q] = (uint64_t *)gpus[q].symm;
        }
        t.epochs = gpus[g].epochs;
        t.num_sms = sms;
        t.direct_blocks = MCOLL_MAX_BLOCKS;
        t.store_inputs = 1;
        t.oneshot_max = (size_t)256 << 10;
        t.abort_flag = abort_dev;
        t.ll_max = 2048;
        gpus[g].direct = t;
        for (int q = 0; q < ngpus; q++) gpus[g].direct.peer_data[q] = gpus[q].user;
    }
    printf("# mcoll-probe: %d GPUs in one process, peer access, unicast layer; %d calls per row after %d untimed\n",
           ngpus, calls, kWarmup);
    for (int kind = 0; kind < 2; kind++) {
        const bool direct = kind == 1;
        if ((direct && !do_direct) || (!direct && !do_push)) continue;
        for (size_t pause : pauses)
        for (size_t blocks : grids)
            for (size_t bytes : sizes) {
                for (Gpu &x : gpus) {
                    x.team.poll_pause_ns = x.direct.poll_pause_ns = (unsigned)pause;
                    x.team.max_blocks = x.direct.max_blocks = (int)blocks;
                    /* The direct kernel's grid follows direct_blocks for slots of 16 MiB and up. */
                    x.direct.direct_blocks = (int)blocks;
                }
                std::vector<double> per_call(calls, 0);
                std::vector<std::vector<uint64_t>> before(ngpus, std::vector<uint64_t>(MCOLL_MAX_BLOCKS)),
                    after = before;
                for (int g = 0; g < ngpus; g++) {
                    CHECK(cudaSetDevice(g));
                    CHECK(cudaStreamSynchronize(gpus[g].stream));
                    CHECK(cudaMemcpy(before[g].data(), gpus[g].epochs, MCOLL_MAX_BLOCKS * sizeof(uint64_t),
                                     cudaMemcpyDeviceToHost));
                }
                /* Back to back, as a benchmark's calls: the traced call is the last of a stream. */
                for (int i = -kWarmup; i < calls; i++) {
                    for (int g = 0; g < ngpus; g++) {
                        CHECK(cudaSetDevice(g));
                        if (i >= 0) CHECK(cudaEventRecord(gpus[g].start[i], gpus[g].stream));
                        if (launch_one(gpus[g], direct, bytes) != MCOLL_LAUNCH_OK) {
                            fprintf(stderr, "mcoll-probe: launch failed: %s\n", mcoll_launch_error());
                            return 1;
                        }
                        if (i >= 0) CHECK(cudaEventRecord(gpus[g].stop[i], gpus[g].stream));
                    }
                }
                static Trace trace[mcoll::kTracePeers];
                for (int g = 0; g < ngpus; g++) {
                    CHECK(cudaSetDevice(g));
                    CHECK(cudaStreamSynchronize(gpus[g].stream));
                    CHECK(cudaMemcpy(after[g].data(), gpus[g].epochs, MCOLL_MAX_BLOCKS * sizeof(uint64_t),
                                     cudaMemcpyDeviceToHost));
                    /* Every call of a row passes the same barriers: the last one's are its share. */
                    for (int b = 0; b < MCOLL_MAX_BLOCKS; b++)
                        before[g][b] = after[g][b] - (after[g][b] - before[g][b]) / (uint64_t)(calls + kWarmup);
                    for (int i = 0; i < calls; i++) {
                        float ms = 0;
                        CHECK(cudaEventElapsedTime(&ms, gpus[g].start[i], gpus[g].stop[i]));
                        per_call[i] = std::max(per_call[i], (double)ms * 1e3);
                    }
                }
                for (int g = 0; g < ngpus; g++) {
                    CHECK(cudaSetDevice(g));
                    CHECK(cudaMemcpyFromSymbol(&trace[g], mcoll::barrier_trace, sizeof trace[g]));
                }
                printf("%-6s %3zu blocks %10zu B: median %9.2f us, least %9.2f, most %9.2f; last call %9.2f; pause %zu ns\n",
                       direct ? "direct" : "push", blocks, bytes, median(per_call),
                       *std::min_element(per_call.begin(), per_call.end()),
                       *std::max_element(per_call.begin(), per_call.end()), per_call[calls - 1], pause);
                for (int g = 0; g < ngpus; g++) report_barriers(g, trace[g], before[g], after[g], ngpus);
                fflush(stdout);
            }
    }
    return 0;
}
