/* The settings table: every MCOLL_* variable, read once. */
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>
#include "config.h"
#include "log.h"

typedef enum { KIND_LOGLEVEL, KIND_SUBSYS, KIND_TEXT, KIND_BOOL, KIND_TRISTATE, KIND_ENGINE, KIND_HIER, KIND_SIZE, KIND_SIZE_OR_OFF, KIND_SIZE_OR_AUTO, KIND_INT } setting_kind;

typedef struct {
    const char *name;
    const char *default_text;
    setting_kind kind;
    size_t offset;        /* field in mcoll_settings */
    long long min, max;   /* range for sizes and integers; for text, max is the field's size */
    const char *help;
} setting;

#define FIELD(f) offsetof(mcoll_settings, f)
#define MiB (1LL << 20)
#define GiB (1LL << 30)

static const setting settings_table[] = {
    {"MCOLL_DEBUG", "WARN", KIND_LOGLEVEL, FIELD(debug), 0, 0,
     "log level: NONE, WARN, INFO (each distinct path and why, once per communicator) or TRACE (every call)"},
    {"MCOLL_DEBUG_SUBSYS", "ALL", KIND_SUBSYS, FIELD(debug_subsys), 0, 0,
     "subsystems whose INFO and TRACE lines are printed: INIT, PMPI, STAGE, TEAM, ENGINE or ALL, comma separated; ^ first: all but those (warnings are always printed)"},
    {"MCOLL_DEBUG_FILE", "stderr", KIND_TEXT, FIELD(debug_file), 0, sizeof(((mcoll_settings *)0)->debug_file),
     "where log lines go: stderr, or a file (appended to) whose name may hold %h (host name) and %p (process id); stderr, after one warning, if it cannot be opened"},
    {"MCOLL_DISABLE", "0", KIND_BOOL, FIELD(disable), 0, 0,
     "1: forward every MPI call to the MPI library untouched"},
    {"MCOLL_NVLS", "auto", KIND_TRISTATE, FIELD(nvls), 0, 0,
     "NVLink SHARP multicast: auto (when every GPU of the team supports it), 0 or 1; NCCL_NVLS_ENABLE=0 forces 0"},
    {"MCOLL_ENGINE", "auto", KIND_ENGINE, FIELD(engine), 0, 0,
     "auto, unicast (peer loads/stores), nvls (multicast, falls back to unicast), staged (host staging only)"},
    {"MCOLL_BUFFER_SIZE", "64M", KIND_SIZE, FIELD(buffer_size), 1 * MiB, 1 * GiB,
     "symmetric memory per GPU for each communicator (signals and data; larger messages are chunked)"},
    {"MCOLL_MEMORY_LIMIT", "1G", KIND_SIZE, FIELD(memory_limit), 2 * MiB, 64 * GiB,
     "symmetric memory per GPU for all communicators together (ranks sharing a GPU split it); a communicator that does not fit is staged"},
    {"MCOLL_CUDA_AWARE", "auto", KIND_TRISTATE, FIELD(cuda_aware), 0, 0,
     "whether the MPI below takes device buffers: auto (MPIX_Query_cuda_support), 0 (stage through host) or 1"},
    {"MCOLL_STAGE_CHUNK", "4M", KIND_SIZE, FIELD(stage_chunk), 64 << 10, 1 * GiB,
     "chunk size for pipelining device buffers through pinned host memory"},
    {"MCOLL_MAX_BLOCKS", "32", KIND_INT, FIELD(max_blocks), 1, 64,
     "largest number of thread blocks a collective kernel uses"},
    {"MCOLL_ZERO_COPY_BLOCKS", "64", KIND_INT, FIELD(zero_copy_blocks), 1, 64,
     "largest number of thread blocks a zero-copy kernel uses on slots of 16 MiB and more (mcoll_mem_* buffers, the plug-in's mapped ones; smaller slots take MCOLL_MAX_BLOCKS)"},
    {"MCOLL_POLL_PAUSE_NS", "100", KIND_INT, FIELD(poll_pause_ns), 0, 10000,
     "nanoseconds a kernel waiting at a block barrier pauses before each look at its peers' arrival counters after the first (0: look back to back; hard polling of 64 blocks slows the GPUs' NVLink traffic)"},
    {"MCOLL_PDL", "1", KIND_BOOL, FIELD(pdl), 0, 0,
     "1: launch the low-latency kernels with programmatic dependent launch where the GPU has it (compute capability 9.0 and up), so that a kernel's launch overlaps the end of the kernel before it on the stream (in a CUDA graph too); 0: plain launches"},
    {"MCOLL_STORE_INPUTS", "1", KIND_BOOL, FIELD(store_inputs), 0, 0,
     "1: allreduce (two-shot) and reduce_scatter on the unicast engine send each rank's part of a slice to the rank that reduces it by NVLink stores into that rank's memory, which then reduces from its own memory; 0: that rank loads the parts from the others (agreed: 1 only when every rank asks)"},
    {"MCOLL_ONESHOT_MAX", "256K", KIND_SIZE, FIELD(oneshot_max), 0, 1 * GiB,
     "largest allreduce (bytes) done one-shot; larger ones are two-shot"},
    {"MCOLL_LL_MAX", "auto", KIND_SIZE_OR_AUTO, FIELD(ll_max), 0, 1 * GiB,
     "largest call (bytes of payload) taking the low-latency protocol: one block, flags carried with the data (auto: as measured for the team's shape, 8K for two ranks on two GPUs, 4K for four on four, 2K otherwise; 0: never; at most what the team's LL slots hold; agreed: the smallest value of any rank)"},
    {"MCOLL_RESIDENT", "1", KIND_BOOL, FIELD(resident), 0, 0,
     "1: blocking calls through MPI that take the low-latency protocol (and nonblocking and persistent ones, with MCOLL_RESIDENT_NONBLOCKING=1) run in a kernel that stays resident between calls (no launch per call); 0: a launch per call"},
    {"MCOLL_RESIDENT_NONBLOCKING", "1", KIND_BOOL, FIELD(resident_nonblocking), 0, 0,
     "1, with MCOLL_RESIDENT=1: nonblocking and persistent calls that take the low-latency protocol are posted to the resident kernel's ring too (no launch per call; a start never waits: with the ring full the call is launched, and a launch behind ring calls waits for them on the GPU); 0: they are launched"},
    {"MCOLL_LEGACY_STREAM_ORDER", "1", KIND_BOOL, FIELD(legacy_stream_order), 0, 0,
     "1: calls through MPI see what the application queued on the legacy default stream before them, without synchronizing: a call the resident kernel would run first asks whether that stream has work queued and, if so, is launched behind it, and a nonblocking or persistent call's launch waits on the GPU for that work (an event recorded there); 0: neither (for programs that synchronize before MPI calls, as CUDA-aware MPIs require; saves a stream query per small blocking call and an event per nonblocking start). Launched blocking calls are ordered after it either way"},
    {"MCOLL_RESIDENT_IDLE_US", "100", KIND_INT, FIELD(resident_idle_us), 1, 1000000,
     "microseconds without a call after which the resident kernel ends (the application's own device synchronizations wait at most this long for it)"},
    {"MCOLL_ASYNC_START", "0", KIND_BOOL, FIELD(async_start), 0, 0,
     "1: nonblocking and persistent calls on the GPU engines queue their kernel launch to a launcher thread (which polls for MCOLL_ASYNC_SPIN_US after its last launch, then sleeps) and return, except in a rank bound to one core, which the thread would share; 0: they launch in the calling thread"},
    {"MCOLL_ASYNC_SPIN_US", "100", KIND_INT, FIELD(async_spin_us), 0, 1000000,
     "microseconds the launcher thread stays awake (polling its queue) after its last launch before it sleeps, so calls in a steady loop find it awake and cost no wake-up (0: sleep at once)"},
    {"MCOLL_COMPLETION_WORD", "1", KIND_BOOL, FIELD(completion_word), 0, 0,
     "1: kernels launched for calls through MPI end by writing a word in pinned host memory, which the blocking calls poll and the nonblocking ones test (the stream is asked only every 100 us of waiting, so a failed kernel still ends the call); 0: the calls synchronize the stream or query an event"},
    {"MCOLL_MIN_RANKS", "2", KIND_INT, FIELD(min_ranks), 1, 1024,
     "smallest communicator the GPU engines take (smaller ones are staged)"},
    {"MCOLL_TIMEOUT", "0", KIND_INT, FIELD(timeout_s), 0, 86400,
     "seconds a call made through MPI may wait for its peers before it fails with a message (0: no limit)"},
    {"MCOLL_DOMAIN_SIZE", "0", KIND_INT, FIELD(domain_size), 0, 1024,
     "testing aid: split each node into simulated NVLink domains of this many consecutive local ranks (0: domains are nodes or NVLink cliques)"},
    {"MCOLL_HIER", "auto", KIND_HIER, FIELD(hier), 0, 0,
     "communicators spanning NVLink domains: auto (GPU engine inside each domain, MPI between), 0 (stage whole calls), mpi (testing aid: MPI inside the domains too)"},
    {"MCOLL_HIER_NONBLOCKING", "0", KIND_BOOL, FIELD(hier_nonblocking), 0, 0,
     "nonblocking and persistent calls on communicators spanning NVLink domains on the hierarchical path too (1; agreed by all ranks); their steps advance only inside MPI completion calls, so a rank blocked in another MPI call for a peer that waits for such a call would hang (0: staged, which the MPI progresses in any call)"},
    {"MCOLL_HIER_OVERLAP_COPIES", "1", KIND_BOOL, FIELD(hier_overlap_copies), 0, 0,
     "1: in the hierarchical pipelines, device data crossing between domains through pinned host memory (an MPI that is not CUDA-aware) is copied on the domain engine's stream, each copy overlapping the neighbouring chunk's MPI step; 0: every MPI step waits for its own copies"},
    {"MCOLL_HIER_GPU_REDUCE", "1", KIND_BOOL, FIELD(hier_gpu_reduce), 0, 0,
     "1: reductions between equal NVLink domains (allreduce, reduce, reduce-scatter) are reduced on the GPU, the MPI only moving bytes (blocking calls over two domains: a swap; 3 to 16 domains, and nonblocking and persistent calls: an exchange of parts); 0: the MPI reduces (agreed: on where every rank has it on)"},
    {"MCOLL_REG_CACHE", "64", KIND_INT, FIELD(reg_cache), 0, 65536,
     "peers' registered buffers kept mapped after deregistration, for reuse (0: unmap at once); buffers in use are never unmapped"},
    {"MCOLL_ZERO_COPY_MIN", "4M", KIND_SIZE_OR_OFF, FIELD(zero_copy_min), 0, 1024 * GiB,
     "smallest blocking or persistent allreduce, reduce, bcast, reduce-scatter or allgather (bytes of its largest buffer) through MPI that maps the peers' device buffers to run zero-copy (a persistent one once, at its initialization; 0 or off: never)"},
    {"MCOLL_TEST_NODE_SIZE", "0", KIND_INT, FIELD(test_node_size), 0, 1024,
     "testing aid: take the ranks of each node whose MPI_COMM_WORLD rank / k is the same as a node of their own (fake nodes of k ranks), so one machine plays a job spanning nodes (0: real nodes)"},
};
#define NUM_SETTINGS (sizeof settings_table / sizeof settings_table[0])

static mcoll_settings values;
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

int mcoll_parse_size(const char *text, size_t *out)
{
    char *end;
    unsigned long long v;
    unsigned shift = 0;
    if (!text || !isdigit((unsigned char)*text)) return -1;
    errno = 0;
    v = strtoull(text, &end, 10);
    if (errno) return -1;
    switch (toupper((unsigned char)*end)) {
    case 'K': shift = 10; end++; break;
    case 'M': shift = 20; end++; break;
    case 'G': shift = 30; end++; break;
    default: break;
    }
    /* A value whose scaled size does not fit is invalid, not silently wrapped. */
    if (shift && v > (SIZE_MAX >> shift)) return -1;
    v <<= shift;
    if (v > SIZE_MAX) return -1;
    if (toupper((unsigned char)*end) == 'B' || toupper((unsigned char)*end) == 'I') {
        if (toupper((unsigned char)*end) == 'I') end++;
        if (toupper((unsigned char)*end) == 'B') end++;
    }
    if (*end) return -1;
    *out = (size_t)v;
    return 0;
}

int mcoll_parse_tristate(const char *text, mcoll_tristate *out)
{
    static const char *const on[] = {"1", "on", "yes", "true", "enable"};
    static const char *const off[] = {"0", "off", "no", "false", "disable"};
    size_t i;
    if (!text) return -1;
    if (!strcasecmp(text, "auto") || !strcasecmp(text, "-1")) { *out = MCOLL_TRISTATE_AUTO; return 0; }
    for (i = 0; i < 5; i++) {
        if (!strcasecmp(text, on[i])) { *out = MCOLL_ON; return 0; }
        if (!strcasecmp(text, off[i])) { *out = MCOLL_OFF; return 0; }
    }
    return -1;
}

int mcoll_parse_loglevel(const char *text, int *out)
{
    static const char *const names[] = {"NONE", "WARN", "INFO", "TRACE"};
    int i;
    if (!text) return -1;
    for (i = 0; i < 4; i++)
        if (!strcasecmp(text, names[i])) { *out = i; return 0; }
    return -1;
}

static int parse_engine(const char *text, mcoll_engine *out)
{
    static const char *const names[] = {"auto", "unicast", "nvls", "staged"};
    int i;
    for (i = 0; i < 4; i++)
        if (!strcasecmp(text, names[i])) { *out = (mcoll_engine)i; return 0; }
    return -1;
}

static int parse_hier(const char *text, mcoll_hier_mode *out)
{
    if (!strcasecmp(text, "auto")) *out = MCOLL_HIER_AUTO;
    else if (!strcmp(text, "0") || !strcasecmp(text, "off")) *out = MCOLL_HIER_OFF;
    else if (!strcasecmp(text, "mpi")) *out = MCOLL_HIER_MPI;
    else return -1;
    return 0;
}

/* Parse one setting into `values`; -1 when the text is invalid or out of range. */
static int apply(const setting *s, const char *text)
{
    char *field = (char *)&values + s->offset;
    size_t size;
    mcoll_tristate tri;
    long long v;
    char *end;

    switch (s->kind) {
    case KIND_LOGLEVEL: return mcoll_parse_loglevel(text, (int *)field);
    case KIND_SUBSYS: return mcoll_log_parse_subsys(text, (unsigned *)field);
    case KIND_TEXT:
        if (strlen(text) >= (size_t)s->max) return -1;
        memcpy(field, text, strlen(text) + 1);
        return 0;
    case KIND_ENGINE: return parse_engine(text, (mcoll_engine *)field);
    case KIND_HIER: return parse_hier(text, (mcoll_hier_mode *)field);
    case KIND_TRISTATE:
        if (mcoll_parse_tristate(text, &tri)) return -1;
        *(mcoll_tristate *)field = tri;
        return 0;
    case KIND_BOOL:
        if (mcoll_parse_tristate(text, &tri) || tri == MCOLL_TRISTATE_AUTO) return -1;
        *(int *)field = tri == MCOLL_ON;
        return 0;
    case KIND_SIZE_OR_AUTO:
        if (!strcasecmp(text, "auto")) {
            *(size_t *)field = MCOLL_SIZE_AUTO;
            return 0;
        }
        /* fall through */
    case KIND_SIZE_OR_OFF:
        if (s->kind == KIND_SIZE_OR_OFF && !strcasecmp(text, "off")) text = "0";
        /* fall through */
    case KIND_SIZE:
        if (mcoll_parse_size(text, &size) || (long long)size < s->min || (long long)size > s->max) return -1;
        *(size_t *)field = size;
        return 0;
    case KIND_INT:
        errno = 0;
        v = strtoll(text, &end, 10);
        if (errno || *end || end == text || v < s->min || v > s->max) return -1;
        *(int *)field = (int)v;
        return 0;
    }
    return -1;
}

static void load(void)
{
    size_t i;
    const char *rejected[NUM_SETTINGS] = {NULL};
    const char *nccl_nvls;

    memset(&values, 0, sizeof values);
    for (i = 0; i < NUM_SETTINGS; i++) apply(&settings_table[i], settings_table[i].default_text);
    for (i = 0; i < NUM_SETTINGS; i++) {
        const char *text = getenv(settings_table[i].name);
        if (!text || !*text) continue;
        if (apply(&settings_table[i], text)) {
            apply(&settings_table[i], settings_table[i].default_text);
            rejected[i] = text;
        }
    }
    /* The logger first, so the warnings about bad values respect its level and destination. */
    mcoll_log_configure(values.debug, values.debug_subsys, values.debug_file);
    for (i = 0; i < NUM_SETTINGS; i++)
        if (rejected[i])
            MCOLL_WARN("%s=%s is not valid (%s); using %s", settings_table[i].name, rejected[i],
                       settings_table[i].help, settings_table[i].default_text);

    /* Sites that switched NVLS off for NCCL get the same from mcoll, whatever MCOLL_NVLS says. */
    nccl_nvls = getenv("NCCL_NVLS_ENABLE");
    if (nccl_nvls && !strcmp(nccl_nvls, "0")) {
        values.nvls_killed = 1;
        values.nvls = MCOLL_OFF;
    }
}

const mcoll_settings *mcoll_settings_get(void)
{
    pthread_once(&load_once, load);
    return &values;
}

void mcoll_settings_reload(void)
{
    pthread_once(&load_once, load);
    load();
}

void mcoll_config_print(void)
{
    const mcoll_settings *v = mcoll_settings_get();
    size_t i;
    (void)v;
    printf("%-20s %-10s %-10s %s\n", "variable", "value", "default", "meaning");
    for (i = 0; i < NUM_SETTINGS; i++) {
        const char *set = getenv(settings_table[i].name);
        printf("%-20s %-10s %-10s %s\n", settings_table[i].name, set && *set ? set : "(unset)",
               settings_table[i].default_text, settings_table[i].help);
    }
    printf("%-20s %-10s %-10s %s\n", "NCCL_NVLS_ENABLE", getenv("NCCL_NVLS_ENABLE") ? getenv("NCCL_NVLS_ENABLE") : "(unset)",
           "-", "0 turns mcoll's multicast off too and wins over MCOLL_NVLS");
}

void mcoll_config_init(mcoll_config *config)
{
    const mcoll_settings *v = mcoll_settings_get();
    if (!config) return;
    config->engine = v->engine;
    config->nvls = v->nvls;
    config->buffer_size = v->buffer_size;
    config->max_blocks = v->max_blocks;
}
