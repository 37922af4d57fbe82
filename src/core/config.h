/* One place for settings. Every MCOLL_* variable is read once, at the first call that needs
 * configuration, from the table in config.c (name, default, range, one line of help). A bad
 * value logs one warning and keeps the default. mcoll_config_print() shows the table. */
#ifndef MCOLL_CONFIG_H
#define MCOLL_CONFIG_H

#include <stddef.h>
#include "mcoll.h"

/* MCOLL_HIER: auto (engine inside each domain, MPI between), off (stage the whole call), mpi
 * (testing aid: the steps inside each domain go through MPI too, so CPU-only runs exercise the
 * decomposition). */
typedef enum { MCOLL_HIER_AUTO = 0, MCOLL_HIER_OFF, MCOLL_HIER_MPI } mcoll_hier_mode;

/* A size setting left to "auto": its consumer picks by what it knows (KIND_SIZE_OR_AUTO). */
#define MCOLL_SIZE_AUTO ((size_t)-1)

typedef struct {
    int debug;                 /* MCOLL_DEBUG: log level */
    unsigned debug_subsys;     /* MCOLL_DEBUG_SUBSYS: mask of MCOLL_SUBSYS_* (log.h) */
    char debug_file[512];      /* MCOLL_DEBUG_FILE: "stderr" or a file name with %h, %p */
    int disable;               /* MCOLL_DISABLE: forward every call to MPI untouched */
    mcoll_tristate nvls;       /* MCOLL_NVLS after the NCCL_NVLS_ENABLE kill switch */
    int nvls_killed;           /* 1 when NCCL_NVLS_ENABLE=0 turned multicast off */
    mcoll_engine engine;       /* MCOLL_ENGINE */
    size_t buffer_size;        /* MCOLL_BUFFER_SIZE: symmetric bytes per GPU per communicator */
    size_t memory_limit;       /* MCOLL_MEMORY_LIMIT: symmetric bytes per GPU for all communicators */
    mcoll_tristate cuda_aware; /* MCOLL_CUDA_AWARE: trust the MPI below with device buffers */
    size_t stage_chunk;        /* MCOLL_STAGE_CHUNK: pipelining chunk of the staged path */
    int max_blocks;            /* MCOLL_MAX_BLOCKS: kernel grid limit */
    int zero_copy_blocks;      /* MCOLL_ZERO_COPY_BLOCKS: the zero-copy kernels' grid limit */
    int pdl;                   /* MCOLL_PDL: LL kernels by programmatic dependent launch */
    int poll_pause_ns;         /* MCOLL_POLL_PAUSE_NS: pause before each barrier poll after the first */
    int store_inputs;          /* MCOLL_STORE_INPUTS: two-shot allreduce and reduce_scatter send inputs by stores */
    size_t oneshot_max;        /* MCOLL_ONESHOT_MAX: largest allreduce (bytes) run one-shot */
    size_t ll_max;             /* MCOLL_LL_MAX: largest payload (bytes) taking the LL protocol;
                                  MCOLL_SIZE_AUTO: the team's measured value (team.c) */
    int resident;              /* MCOLL_RESIDENT: blocking LL calls through MPI in a resident kernel */
    int resident_nonblocking;  /* MCOLL_RESIDENT_NONBLOCKING: nonblocking and persistent LL calls through its ring too */
    int legacy_stream_order;   /* MCOLL_LEGACY_STREAM_ORDER: resident and nonblocking calls wait for the legacy default stream */
    int resident_idle_us;      /* MCOLL_RESIDENT_IDLE_US: idle time after which the resident kernel ends */
    int async_start;           /* MCOLL_ASYNC_START: nonblocking engine launches in the launcher thread */
    int async_spin_us;         /* MCOLL_ASYNC_SPIN_US: the launcher thread's awake time after a launch */
    int completion_word;       /* MCOLL_COMPLETION_WORD: calls through MPI wait on their kernel's word */
    int min_ranks;             /* MCOLL_MIN_RANKS: smallest communicator the engines take */
    int timeout_s;             /* MCOLL_TIMEOUT: seconds a call through MPI may wait for its peers (0: no limit) */
    int domain_size;           /* MCOLL_DOMAIN_SIZE: testing aid, simulated NVLink domains of k local ranks (0: off) */
    mcoll_hier_mode hier;      /* MCOLL_HIER: hierarchical collectives on communicators spanning domains */
    int hier_nonblocking;      /* MCOLL_HIER_NONBLOCKING: nonblocking and persistent calls on that path too */
    int hier_overlap_copies;   /* MCOLL_HIER_OVERLAP_COPIES: the pipelines' staging copies on the engine's stream */
    int hier_gpu_reduce;       /* MCOLL_HIER_GPU_REDUCE: reductions between domains on the GPU, the MPI moving bytes */
    int reg_cache;             /* MCOLL_REG_CACHE: unused peer mappings of registered buffers kept for reuse */
    size_t zero_copy_min;      /* MCOLL_ZERO_COPY_MIN: smallest call (bytes) the plug-in maps the peers'
                                  buffers for, to run it zero-copy (0: never) */
    int test_node_size;        /* MCOLL_TEST_NODE_SIZE: testing aid, fake nodes of k world ranks (0: off) */
} mcoll_settings;

/* Read the environment once (thread-safe) and return the values. */
const mcoll_settings *mcoll_settings_get(void);

/* Test hook: forget the values read so the next mcoll_settings_get reads the environment again. */
void mcoll_settings_reload(void);

/* Parse helpers, exposed for unit tests. Return 0 on success, -1 if `text` is not valid. */
int mcoll_parse_size(const char *text, size_t *out);      /* "64M", "1G", "4096", "512k" */
int mcoll_parse_tristate(const char *text, mcoll_tristate *out); /* auto|0|1|on|off|yes|no */
int mcoll_parse_loglevel(const char *text, int *out);      /* NONE|WARN|INFO|TRACE */

#endif /* MCOLL_CONFIG_H */
