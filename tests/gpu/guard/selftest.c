/*
 * Self-test of the multicast guard (guard.c), run by tests/gpu/test_guard.sh:
 *   selftest ROUTE [FUNCTION]
 * A calling route finds FUNCTION (a cuMulticast* name, default per route) that way and calls
 * it; under the guard the process must die by SIGABRT with the guard's message:
 *   dlsym                         dlsym on a handle of the driver library (RTLD_LOCAL)
 *   dlsym-default, dlsym-next     dlsym(RTLD_DEFAULT / RTLD_NEXT), driver opened RTLD_GLOBAL
 *   dlvsym                        dlvsym on the handle
 *   getprocaddress-via-dlsym      cuGetProcAddress_v2 found with dlsym, then asked
 *   getprocaddress-v1-via-dlsym   the same with the CUDA 11 cuGetProcAddress
 *   getprocaddress-nested         the driver's cuGetProcAddress fetched through itself
 *   direct, getprocaddress, getprocaddress-v1
 *                                 plain calls, in the build linked to a libcuda
 *                                 (-DSELFTEST_LINKED)
 * Other routes: lookup-only (looks up through dlsym, RTLD_DEFAULT and cuGetProcAddress, calls
 * nothing: exits 0, or aborts under MCOLL_GUARD_STRICT=1), clean (never touches multicast:
 * RTLD_NEXT/RTLD_DEFAULT lookups of libc functions, failed lookups, cuInit and forwarding
 * through cuGetProcAddress; must exit 0), probe (names the driver library), mpi (in the
 * -DSELFTEST_MPI build: MPI_Init, an allreduce, MPI_Finalize).
 *
 * The driver library is $MCOLL_GUARD_SELFTEST_LIBCUDA, else libcuda.so.1, else the toolkit's
 * stub ($CUDA_HOME or /usr/local/cuda, lib64/stubs/libcuda.so). A calling route runs only with
 * MCOLL_GUARD_EXPECTED=1 and the guard loaded (else exit 3), and calls a pointer only if it
 * lies inside the guard library (else exit 4), so a real driver's multicast function is never
 * called, even by a broken guard on a GPU machine.
 * Exit codes: 0 done, 2 usage, 3 refused, 4 route not intercepted, 5 a stub returned,
 * 6 the driver library cannot serve this route, 7 a clean check failed, 77 no driver library.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef SELFTEST_MPI
#include <mpi.h>
#endif

typedef int CUresult;
typedef uint64_t cuuint64_t;
typedef void (*any_fn)(void);
typedef CUresult (*create_fn)(unsigned long long *, const void *);
typedef CUresult (*add_device_fn)(unsigned long long, int);
typedef CUresult (*bind_mem_fn)(unsigned long long, size_t, unsigned long long, size_t, size_t,
                                unsigned long long);
typedef CUresult (*bind_addr_fn)(unsigned long long, size_t, unsigned long long, size_t,
                                 unsigned long long);
typedef CUresult (*unbind_fn)(unsigned long long, int, size_t, size_t);
typedef CUresult (*granularity_fn)(size_t *, const void *, int);
typedef CUresult (*unlisted_fn)(void);
typedef CUresult (*gpa_fn)(const char *, void **, int, cuuint64_t);
typedef CUresult (*gpa2_fn)(const char *, void **, int, cuuint64_t, int *);
typedef CUresult (*init_fn)(unsigned int);
typedef CUresult (*version_fn)(int *);

#define CUDA_VERSION_ASKED 13000

#ifdef SELFTEST_LINKED
/* Resolved at run time by the dynamic linker: the guard's when it is preloaded. */
CUresult cuMulticastCreate(unsigned long long *, const void *);
CUresult cuMulticastAddDevice(unsigned long long, int);
CUresult cuMulticastBindMem(unsigned long long, size_t, unsigned long long, size_t, size_t,
                            unsigned long long);
CUresult cuMulticastBindAddr(unsigned long long, size_t, unsigned long long, size_t,
                             unsigned long long);
CUresult cuMulticastUnbind(unsigned long long, int, size_t, size_t);
CUresult cuMulticastGetGranularity(size_t *, const void *, int);
CUresult cuGetProcAddress(const char *, void **, int, cuuint64_t);
CUresult cuGetProcAddress_v2(const char *, void **, int, cuuint64_t, int *);
#endif

static any_fn to_fn(void *p)
{
    union { any_fn f; void *p; } u;
    u.p = p;
    return u.f;
}

static void *to_ptr(any_fn f)
{
    union { any_fn f; void *p; } u;
    u.f = f;
    return u.p;
}

static void *guard_base(void)
{
    void *active = dlsym(RTLD_DEFAULT, "mcoll_guard_active");
    Dl_info info;
    return active && dladdr(active, &info) ? info.dli_fbase : NULL;
}

static int inside_guard(void *p)
{
    Dl_info info;
    void *base = guard_base();
    return p && base && dladdr(p, &info) && info.dli_fbase == base;
}

static const char *object_name(void *p)
{
    Dl_info info;
    return p && dladdr(p, &info) && info.dli_fname ? info.dli_fname : "(no object)";
}

static void *open_driver(int flags)
{
    const char *env = getenv("MCOLL_GUARD_SELFTEST_LIBCUDA");
    const char *home = getenv("CUDA_HOME");
    char stub[4096];
    void *h;
    if (env && *env) {
        h = dlopen(env, flags);
        if (!h)
            fprintf(stderr, "selftest: cannot open %s: %s\n", env, dlerror());
        return h;
    }
    if ((h = dlopen("libcuda.so.1", flags)))
        return h;
    if (home && *home) {
        snprintf(stub, sizeof stub, "%s/lib64/stubs/libcuda.so", home);
        if ((h = dlopen(stub, flags)))
            return h;
    }
    return dlopen("/usr/local/cuda/lib64/stubs/libcuda.so", flags);
}

static void *need_driver(int flags)
{
    void *h = open_driver(flags);
    if (!h) {
        printf("selftest: skip: no libcuda.so.1 and no toolkit stub library\n");
        exit(77);
    }
    return h;
}

static int is_fake(void *h)
{
    return dlsym(h, "mcoll_guard_fake_driver") != NULL;
}

static void *must(void *p, const char *what)
{
    if (!p) {
        printf("selftest: %s: not found\n", what);
        exit(6);
    }
    return p;
}

/* A cuGetProcAddress that came from the guard (calling the driver's one is harmless, but
 * then the route was not intercepted). */
static void *guarded(void *p, const char *what)
{
    must(p, what);
    if (!inside_guard(p)) {
        printf("selftest: %s resolves into %s, not the guard\n", what, object_name(p));
        exit(4);
    }
    return p;
}

static void *via_gpa2(gpa2_fn gpa2, const char *fn)
{
    void *p = NULL;
    int status = -1;
    CUresult r = gpa2(fn, &p, CUDA_VERSION_ASKED, 0, &status);
    if (r != 0 || status != 0)
        printf("selftest: cuGetProcAddress_v2(%s) = %d, status %d\n", fn, r, status);
    return p;
}

static void *via_gpa(gpa_fn gpa, const char *fn)
{
    void *p = NULL;
    CUresult r = gpa(fn, &p, CUDA_VERSION_ASKED, 0);
    if (r != 0)
        printf("selftest: cuGetProcAddress(%s) = %d\n", fn, r);
    return p;
}

#ifdef SELFTEST_LINKED
static void *linked_function(const char *fn)
{
    static const struct { const char *name; any_fn f; } linked[] = {
        {"cuMulticastCreate", (any_fn)cuMulticastCreate},
        {"cuMulticastAddDevice", (any_fn)cuMulticastAddDevice},
        {"cuMulticastBindMem", (any_fn)cuMulticastBindMem},
        {"cuMulticastBindAddr", (any_fn)cuMulticastBindAddr},
        {"cuMulticastUnbind", (any_fn)cuMulticastUnbind},
        {"cuMulticastGetGranularity", (any_fn)cuMulticastGetGranularity},
    };
    for (size_t i = 0; i < sizeof linked / sizeof linked[0]; i++)
        if (strcmp(fn, linked[i].name) == 0)
            return to_ptr(linked[i].f);
    return NULL;
}
#endif

/* Calls fn through pointer p with its own parameter list; returns only if the stub did. */
static CUresult call(const char *fn, void *p)
{
    unsigned long long handle = 0;
    size_t granularity = 0;
    unsigned char prop[256] = {0}; /* never read: the call must not get that far */
    any_fn f = to_fn(p);
    if (strcmp(fn, "cuMulticastCreate") == 0)
        return ((create_fn)f)(&handle, prop);
    if (strcmp(fn, "cuMulticastAddDevice") == 0)
        return ((add_device_fn)f)(handle, 0);
    if (strcmp(fn, "cuMulticastBindMem") == 0)
        return ((bind_mem_fn)f)(handle, 0, 0, 0, 2u << 20, 0);
    if (strcmp(fn, "cuMulticastBindAddr") == 0)
        return ((bind_addr_fn)f)(handle, 0, 0, 2u << 20, 0);
    if (strcmp(fn, "cuMulticastUnbind") == 0)
        return ((unbind_fn)f)(handle, 0, 0, 2u << 20);
    if (strcmp(fn, "cuMulticastGetGranularity") == 0)
        return ((granularity_fn)f)(&granularity, prop, 0);
    return ((unlisted_fn)f)(); /* a name the guard does not list: its stub takes nothing */
}

static int calling_route(const char *route, const char *fn)
{
    const char *expected = getenv("MCOLL_GUARD_EXPECTED");
    if (!expected || strcmp(expected, "1") != 0) {
        printf("selftest: refusing to call %s: MCOLL_GUARD_EXPECTED=1 is not set\n", fn);
        return 3;
    }
    if (!guard_base()) {
        printf("selftest: refusing to call %s: the guard library is not loaded\n", fn);
        return 3;
    }
    void *p = NULL;
    if (strcmp(route, "dlsym") == 0) {
        p = dlsym(need_driver(RTLD_NOW | RTLD_LOCAL), fn);
    } else if (strcmp(route, "dlsym-default") == 0) {
        need_driver(RTLD_NOW | RTLD_GLOBAL);
        p = dlsym(RTLD_DEFAULT, fn);
    } else if (strcmp(route, "dlsym-next") == 0) {
        need_driver(RTLD_NOW | RTLD_GLOBAL);
        p = dlsym(RTLD_NEXT, fn);
    } else if (strcmp(route, "dlvsym") == 0) {
        /* The test's fake driver versions its symbols MCOLL_FAKE_CUDA; in an object without
         * a version table (the toolkit stub) glibc accepts any version asked for. */
        p = dlvsym(need_driver(RTLD_NOW | RTLD_LOCAL), fn, "MCOLL_FAKE_CUDA");
    } else if (strcmp(route, "getprocaddress-via-dlsym") == 0) {
        void *h = need_driver(RTLD_NOW | RTLD_LOCAL);
        gpa2_fn gpa2 = (gpa2_fn)to_fn(guarded(dlsym(h, "cuGetProcAddress_v2"), "cuGetProcAddress_v2"));
        p = via_gpa2(gpa2, fn);
    } else if (strcmp(route, "getprocaddress-v1-via-dlsym") == 0) {
        void *h = need_driver(RTLD_NOW | RTLD_LOCAL);
        gpa_fn gpa = (gpa_fn)to_fn(guarded(dlsym(h, "cuGetProcAddress"), "cuGetProcAddress"));
        p = via_gpa(gpa, fn);
    } else if (strcmp(route, "getprocaddress-nested") == 0) {
        void *h = need_driver(RTLD_NOW | RTLD_LOCAL);
        gpa2_fn gpa2 = (gpa2_fn)to_fn(guarded(dlsym(h, "cuGetProcAddress_v2"), "cuGetProcAddress_v2"));
        void *inner = via_gpa2(gpa2, "cuGetProcAddress");
        if (!inner) {
            printf("selftest: the driver library does not hand out cuGetProcAddress\n");
            return 6;
        }
        p = via_gpa2((gpa2_fn)to_fn(guarded(inner, "the driver's own cuGetProcAddress")), fn);
#ifdef SELFTEST_LINKED
    } else if (strcmp(route, "direct") == 0) {
        p = linked_function(fn);
    } else if (strcmp(route, "getprocaddress") == 0) {
        p = via_gpa2(cuGetProcAddress_v2, fn);
    } else if (strcmp(route, "getprocaddress-v1") == 0) {
        p = via_gpa(cuGetProcAddress, fn);
#endif
    } else {
        printf("selftest: unknown route %s\n", route);
        return 2;
    }
    if (!p) {
        printf("selftest: %s through %s: not found\n", fn, route);
        return 6;
    }
    if (!inside_guard(p)) {
        printf("selftest: %s through %s resolves into %s, not the guard; not calling it\n", fn,
               route, object_name(p));
        return 4;
    }
    fflush(stdout);
    CUresult r = call(fn, p);
    printf("selftest: %s through %s returned %d: the guard did not stop it\n", fn, route, r);
    return 5;
}

static int lookup_only(void)
{
    void *h = need_driver(RTLD_NOW | RTLD_GLOBAL);
    int found = 0;
    found += dlsym(h, "cuMulticastCreate") != NULL;
    found += dlsym(RTLD_DEFAULT, "cuMulticastGetGranularity") != NULL;
    found += dlvsym(h, "cuMulticastBindMem", "MCOLL_FAKE_CUDA") != NULL;
    void *gpa2 = dlsym(h, "cuGetProcAddress_v2");
    if (gpa2)
        found += via_gpa2((gpa2_fn)to_fn(gpa2), "cuMulticastUnbind") != NULL;
    unsigned long (*lookups)(void) =
        (unsigned long (*)(void))to_fn(dlsym(RTLD_DEFAULT, "mcoll_guard_lookups"));
    printf("selftest: lookup-only: %d of 4 lookups answered; guard %s", found,
           lookups ? "loaded" : "not loaded");
    if (lookups)
        printf(", %lu multicast lookups counted", lookups());
    printf("\n");
    return 0;
}

#define CHECK(cond)                                                                          \
    do {                                                                                     \
        if (!(cond)) {                                                                       \
            printf("selftest: clean: check failed: %s\n", #cond);                           \
            return 7;                                                                        \
        }                                                                                    \
    } while (0)

static int clean(void)
{
    /* libc through the caller-relative handles */
    void *(*next_malloc)(size_t) = (void *(*)(size_t))to_fn(dlsym(RTLD_NEXT, "malloc"));
    void (*any_free)(void *) = (void (*)(void *))to_fn(dlsym(RTLD_DEFAULT, "free"));
    int (*any_printf)(const char *, ...) =
        (int (*)(const char *, ...))to_fn(dlsym(RTLD_DEFAULT, "printf"));
    CHECK(next_malloc && any_free && any_printf);
    CHECK(strstr(object_name(to_ptr((any_fn)next_malloc)), "libc") != NULL);
    char *buf = next_malloc(64);
    CHECK(buf != NULL);
    strcpy(buf, "clean");
    any_printf("selftest: %s: malloc through RTLD_NEXT, printf through RTLD_DEFAULT\n", buf);
    any_free(buf);

    /* failed lookups still fail, with a message */
    dlerror();
    CHECK(dlsym(RTLD_DEFAULT, "mcoll_guard_selftest_no_such_symbol") == NULL);
    CHECK(dlerror() != NULL);
    CHECK(dlsym(RTLD_NEXT, "mcoll_guard_selftest_no_such_symbol") == NULL);
    CHECK(dlerror() != NULL);
    CHECK(dlerror() == NULL);

    /* the driver: looked up, and where it is the fake one, used through cuGetProcAddress */
    void *h = need_driver(RTLD_NOW | RTLD_LOCAL);
    void *init = dlsym(h, "cuInit");
    CHECK(init != NULL);
    CHECK(!inside_guard(init));
    if (!is_fake(h)) {
        printf("selftest: clean: ok (driver %s looked up, not called)\n", object_name(init));
        return 0;
    }
    CHECK(((init_fn)to_fn(init))(0) == 0);
    /* v1 before v2 is looked up: the fake's v1 calls its v2, which binds to the guard's */
    void *p = NULL;
    void *inner = NULL;
    gpa_fn gpa = (gpa_fn)to_fn(dlsym(h, "cuGetProcAddress"));
    CHECK(gpa != NULL && gpa("cuInit", &p, 11030, 0) == 0 && p == init);
    CHECK(gpa("cuGetProcAddress", &inner, 11030, 0) == 0 && inner);
    CHECK(((gpa_fn)to_fn(inner))("cuDriverGetVersion", &p, 11030, 0) == 0 && p);
    gpa2_fn gpa2 = (gpa2_fn)to_fn(dlsym(h, "cuGetProcAddress_v2"));
    CHECK(gpa2 != NULL);
    int status = -1, version = 0;
    CHECK(gpa2("cuDriverGetVersion", &p, CUDA_VERSION_ASKED, 0, &status) == 0 && status == 0);
    CHECK(((version_fn)to_fn(p))(&version) == 0 && version == 13000);
    CHECK(gpa2("cuNoSuchFunction", &p, CUDA_VERSION_ASKED, 0, &status) == 500 && status == 1);
    CHECK(gpa2("cuGetProcAddress", &inner, CUDA_VERSION_ASKED, 0, &status) == 0 && inner);
    CHECK(((gpa2_fn)to_fn(inner))("cuInit", &p, CUDA_VERSION_ASKED, 0, &status) == 0);
    CHECK(p == init);
    printf("selftest: clean: ok (fake driver used through cuGetProcAddress)\n");
    return 0;
}

#ifdef SELFTEST_MPI
static int mpi(int *argc, char ***argv)
{
    int rank = 0, size = 0, sum = 0;
    if (MPI_Init(argc, argv) != MPI_SUCCESS)
        return 7;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    if (sum != size * (size - 1) / 2)
        return 7;
    if (rank == 0)
        printf("selftest: mpi: ok on %d ranks\n", size);
    return 0;
}
#endif

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s ROUTE [FUNCTION]\n", argv[0]);
        return 2;
    }
    const char *route = argv[1];
    if (strcmp(route, "lookup-only") == 0)
        return lookup_only();
    if (strcmp(route, "clean") == 0)
        return clean();
    if (strcmp(route, "probe") == 0) {
        void *h = need_driver(RTLD_NOW | RTLD_LOCAL);
        void *init = dlsym(h, "cuInit");
        printf("selftest: driver library %s%s\n", object_name(init),
               is_fake(h) ? " (the test's fake)" : "");
        return 0;
    }
#ifdef SELFTEST_MPI
    if (strcmp(route, "mpi") == 0)
        return mpi(&argc, &argv);
#endif
    const char *fn = argc > 2 ? argv[2]
                     : strstr(route, "getprocaddress") ? "cuMulticastGetGranularity"
                                                        : "cuMulticastCreate";
    return calling_route(route, fn);
}
