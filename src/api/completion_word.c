/* The completion word (see completion_word.h). */
#define _POSIX_C_SOURCE 200809L
#include <sched.h>
#include <string.h>
#include "checks.h"
#include "clock.h"
#include "completion_word.h"
#include "config.h"

/* The word alone on a cache line: the host spins on it while the GPU writes it. */
#define WORD_BYTES 64

static int make(mcoll_word *w)
{
    void *host = NULL;
    CUdeviceptr device = 0;
    if (mcoll_cu.cuMemHostAlloc(&host, WORD_BYTES, CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE) !=
            CUDA_SUCCESS ||
        mcoll_cu.cuMemHostGetDevicePointer(&device, host, 0) != CUDA_SUCCESS) {
        if (host) CU_WARN(cuMemFreeHost(host));
        w->unusable = 1;
        MCOLL_INFO("no completion word for this communicator (pinned host memory refused): calls through MPI "
                   "synchronize the stream");
        return 0;
    }
    memset(host, 0, WORD_BYTES);
    w->host = host;
    w->device = (uint64_t *)(uintptr_t)device;
    return 1;
}

void mcoll_word_arm(mcoll_word *w, const mcoll_team *team, CUstream stream)
{
    (void)mcoll_launch_word_taken();
    w->armed = 0;
    if (stream != team->stream && stream != team->nb_stream) return;
    if (w->unusable || !mcoll_settings_get()->completion_word) return;
    if (!w->host && !make(w)) return;
    /* A copy per launch: the team's own view stays as it was made, for the launches on other
     * streams and the resident kernel, which other threads may start meanwhile (ring.c). */
    w->dev = team->dev;
    w->dev.done_word = w->device;
    w->dev.done_value = ++w->issued;
    w->armed = 1;
}

const mcoll_dev_team *mcoll_word_dev(const mcoll_word *w, const mcoll_team *team)
{
    return w->armed ? &w->dev : &team->dev;
}

int mcoll_word_check_due(uint64_t *since)
{
    const uint64_t now = mcoll_now_ns();
    if (!*since) {
        *since = now;
        return 0;
    }
    if (now - *since < MCOLL_WORD_CHECK_NS) return 0;
    *since = now;
    return 1;
}

mcoll_word_state mcoll_word_stream(mcoll_word *w, CUstream stream, uint64_t value, const char *what)
{
    const CUresult rc = mcoll_cu.cuStreamQuery(stream);
    if (rc == CUDA_ERROR_NOT_READY) return MCOLL_WORD_RUNNING;
    if (rc != CUDA_SUCCESS) {
        MCOLL_WARN("%s: the kernel's stream failed: %s", what, mcoll_cu_errname(rc));
        return MCOLL_WORD_FAILED;
    }
    /* The word may have come between the caller's look and the query. */
    if (!mcoll_word_reached(w, value) && !__atomic_exchange_n(&w->said, 1, __ATOMIC_RELAXED)) {
        MCOLL_INFO("%s: the stream finished before the completion word %llu came (word %llu): taken as done",
                   what, (unsigned long long)value, (unsigned long long)__atomic_load_n(w->host, __ATOMIC_ACQUIRE));
    }
    return MCOLL_WORD_DONE;
}

mcoll_result mcoll_word_wait(mcoll_word *w, mcoll_team *team, uint64_t value)
{
    mcoll_word_state state = MCOLL_WORD_RUNNING;
    uint64_t start, asked;
    if (mcoll_word_reached(w, value)) return mcoll_watch_aborted(&team->watch) ? MCOLL_ERR_ABORTED : MCOLL_SUCCESS;
    mcoll_watch_call_begin(&team->watch);
    start = asked = mcoll_now_ns();
    /* The kernels end on the watchdog's flag; reported below. */
    while (state == MCOLL_WORD_RUNNING && !mcoll_word_reached(w, value) && !mcoll_watch_aborted(&team->watch)) {
        if (mcoll_word_check_due(&asked)) state = mcoll_word_stream(w, team->stream, value, "completion word");
        else if (mcoll_now_ns() - start >= MCOLL_WORD_SPIN_NS) sched_yield();
    }
    mcoll_watch_call_end(&team->watch);
    if (mcoll_watch_aborted(&team->watch)) return MCOLL_ERR_ABORTED;
    return state == MCOLL_WORD_FAILED ? MCOLL_ERR_CUDA : MCOLL_SUCCESS;
}

void mcoll_word_free(mcoll_word *w)
{
    if (w->host) CU_WARN(cuMemFreeHost((void *)(uintptr_t)w->host));
    w->host = NULL;
    w->device = NULL;
    w->armed = 0;
}
