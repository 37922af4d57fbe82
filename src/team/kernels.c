/* Every kernel of the library loaded into the context before a team's first call. With lazy
 * loading (CUDA_MODULE_LOADING=LAZY, the default since CUDA 12.2) a kernel's first launch loads
 * its module then, and loading may wait for the kernels already running in the context. One of
 * them may be waiting for a peer (the resident kernel with calls in its ring, a nonblocking
 * call's kernel) whose rank waits in turn for something this rank does after the launch: a
 * legal MPI program would hang. So the team loads every function of every module up front, once
 * per context (a fraction of a second), as NCCL does with its own kernels. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdlib.h>
#include "clock.h"
#include "driver.h"
#include "kernels.h"
#include "launch.h"
#include "log.h"

#define MAX_CONTEXTS 64

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static CUcontext done[MAX_CONTEXTS];
static int ndone;

static int seen(CUcontext ctx)
{
    for (int i = 0; i < ndone; i++)
        if (done[i] == ctx) return 1;
    return 0;
}

/* Every function of the module `anchor` belongs to, loaded: how many (the anchor alone where the
 * driver cannot list a module's functions: its module is loaded then, the functions as used). */
static unsigned load_module(const void *anchor)
{
    void *anchor_fn = NULL;
    CUmodule module;
    CUfunction *fns;
    unsigned n = 0, loaded = 0;
    if (!mcoll_kernel_function(anchor, &anchor_fn)) return 0;
    if (!mcoll_cu.cuFuncGetModule || !mcoll_cu.cuModuleGetFunctionCount || !mcoll_cu.cuModuleEnumerateFunctions ||
        !mcoll_cu.cuFuncLoad)
        return 1;
    if (mcoll_cu.cuFuncGetModule(&module, (CUfunction)anchor_fn) != CUDA_SUCCESS ||
        mcoll_cu.cuModuleGetFunctionCount(&n, module) != CUDA_SUCCESS || n == 0)
        return 1;
    fns = calloc(n, sizeof *fns);
    if (fns && mcoll_cu.cuModuleEnumerateFunctions(fns, n, module) == CUDA_SUCCESS)
        for (unsigned i = 0; i < n; i++) loaded += mcoll_cu.cuFuncLoad(fns[i]) == CUDA_SUCCESS;
    free(fns);
    return loaded ? loaded : 1;
}

void mcoll_kernels_load(void)
{
    CUcontext ctx = NULL;
    const void *const *anchors;
    const uint64_t t0 = mcoll_now_ns();
    unsigned functions = 0;
    int modules, loaded = 0;
    if (mcoll_cu.cuCtxGetCurrent(&ctx) != CUDA_SUCCESS || !ctx) return;
    pthread_mutex_lock(&lock);
    if (seen(ctx)) {
        pthread_mutex_unlock(&lock);
        return;
    }
    modules = mcoll_kernel_modules(&anchors);
    for (int i = 0; i < modules; i++) {
        const unsigned n = load_module(anchors[i]);
        functions += n;
        loaded += n > 0;
    }
    if (ndone < MAX_CONTEXTS) done[ndone++] = ctx;
    pthread_mutex_unlock(&lock);
    MCOLL_INFO("kernels: %u functions of %d of %d modules loaded in %.1f ms (none is loaded later, while a kernel waits)",
               functions, loaded, modules, (double)(mcoll_now_ns() - t0) * 1e-6);
}
