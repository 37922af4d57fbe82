/*
 * A stand-in libcuda.so.1 for tests/gpu/test_guard.sh, so that every route through the
 * multicast guard can be tried on machines without a GPU and without touching a real driver.
 * Unlike the toolkit's stub library it answers cuGetProcAddress like a driver does (including
 * a request for cuGetProcAddress itself), and its cuInit and cuDriverGetVersion work, so the
 * test can tell forwarding from interception. Reaching one of its cuMulticast* functions means
 * the guard let a call through: it says so and exits 42.
 *   cc -std=c11 -fPIC -shared -Wl,-soname,libcuda.so.1 fake_libcuda.c -o libcuda.so.1
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

typedef int CUresult;
typedef uint64_t cuuint64_t;
typedef void (*any_fn)(void);

const int mcoll_guard_fake_driver = 1;

static void leaked(const char *name)
{
    fprintf(stderr, "fake driver: %s reached; the guard let a multicast call through\n", name);
    fflush(stderr);
    _exit(42);
}

/* Same parameter lists as cuda.h; only the name matters here. */
CUresult cuMulticastCreate(unsigned long long *h, const void *prop)
{
    (void)h, (void)prop;
    leaked("cuMulticastCreate");
    return 0;
}

CUresult cuMulticastAddDevice(unsigned long long h, int dev)
{
    (void)h, (void)dev;
    leaked("cuMulticastAddDevice");
    return 0;
}

CUresult cuMulticastBindMem(unsigned long long h, size_t off, unsigned long long mem,
                            size_t mem_off, size_t size, unsigned long long flags)
{
    (void)h, (void)off, (void)mem, (void)mem_off, (void)size, (void)flags;
    leaked("cuMulticastBindMem");
    return 0;
}

CUresult cuMulticastBindAddr(unsigned long long h, size_t off, unsigned long long ptr,
                             size_t size, unsigned long long flags)
{
    (void)h, (void)off, (void)ptr, (void)size, (void)flags;
    leaked("cuMulticastBindAddr");
    return 0;
}

CUresult cuMulticastUnbind(unsigned long long h, int dev, size_t off, size_t size)
{
    (void)h, (void)dev, (void)off, (void)size;
    leaked("cuMulticastUnbind");
    return 0;
}

CUresult cuMulticastGetGranularity(size_t *g, const void *prop, int option)
{
    (void)g, (void)prop, (void)option;
    leaked("cuMulticastGetGranularity");
    return 0;
}

CUresult cuInit(unsigned int flags)
{
    return flags == 0 ? 0 : 1;
}

CUresult cuDriverGetVersion(int *version)
{
    if (!version)
        return 1;
    *version = 13000;
    return 0;
}

CUresult cuGetProcAddress(const char *symbol, void **pfn, int cuda_version, cuuint64_t flags);
CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int cuda_version,
                             cuuint64_t flags, int *status);

static void *as_ptr(any_fn f)
{
    union { any_fn f; void *p; } u;
    u.f = f;
    return u.p;
}

static void *find(const char *symbol, int cuda_version)
{
    static const struct { const char *name; any_fn fn; } table[] = {
        {"cuInit", (any_fn)cuInit},
        {"cuDriverGetVersion", (any_fn)cuDriverGetVersion},
        {"cuMulticastCreate", (any_fn)cuMulticastCreate},
        {"cuMulticastAddDevice", (any_fn)cuMulticastAddDevice},
        {"cuMulticastBindMem", (any_fn)cuMulticastBindMem},
        {"cuMulticastBindAddr", (any_fn)cuMulticastBindAddr},
        {"cuMulticastUnbind", (any_fn)cuMulticastUnbind},
        {"cuMulticastGetGranularity", (any_fn)cuMulticastGetGranularity},
    };
    if (!symbol)
        return NULL;
    if (strcmp(symbol, "cuGetProcAddress") == 0) /* the _v2 ABI from CUDA 12.0 on */
        return cuda_version >= 12000 ? as_ptr((any_fn)cuGetProcAddress_v2)
                                     : as_ptr((any_fn)cuGetProcAddress);
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (strcmp(symbol, table[i].name) == 0)
            return as_ptr(table[i].fn);
    return NULL;
}

CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int cuda_version,
                             cuuint64_t flags, int *status)
{
    (void)flags;
    if (!pfn)
        return 1;
    *pfn = find(symbol, cuda_version);
    if (status)
        *status = *pfn ? 0 : 1;
    return *pfn ? 0 : 500;
}

CUresult cuGetProcAddress(const char *symbol, void **pfn, int cuda_version, cuuint64_t flags)
{
    return cuGetProcAddress_v2(symbol, pfn, cuda_version, flags, NULL);
}
