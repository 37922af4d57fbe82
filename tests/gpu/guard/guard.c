/*
 * The multicast guard: an LD_PRELOAD library that aborts a process before any cuMulticast*
 * driver entry point runs. On a shared machine one multicast object can take the host's GPUs
 * out of service, so with the kill switch set (NCCL_NVLS_ENABLE=0 or MCOLL_NVLS=0) mcoll must
 * never call one; tests/gpu/run.sh runs every GPU test under this library to prove it.
 *
 *   LD_PRELOAD=$BUILD/tests/gpu/libmcoll_guard.so NCCL_NVLS_ENABLE=0 ./program
 *
 * Every route to a cuMulticast* function ends in a stub that prints one line naming the
 * function and the route, then calls abort():
 *   - a direct call: this library defines every cuMulticast* function cuda.h 13.0 declares,
 *     and LD_PRELOAD puts it ahead of libcuda;
 *   - dlsym/dlvsym (how mcoll, the CUDA runtime and NCCL find the driver): both are
 *     interposed; a lookup of a cuMulticast* name that would have found something returns a
 *     stub, and a lookup of cuGetProcAddress[_v2], dlsym, dlvsym or dlerror returns this
 *     library's version;
 *   - cuGetProcAddress/_v2: a cuMulticast* request gets a stub without asking the driver;
 *     anything else is forwarded, and a request for cuGetProcAddress itself gets this
 *     library's wrapper back so that the driver's own cannot be fetched around it.
 * A lookup alone only counts (programs look every driver symbol up eagerly). Environment:
 *   MCOLL_GUARD_VERBOSE=1  print the load, every multicast lookup and a count at exit;
 *   MCOLL_GUARD_STRICT=1   abort on a multicast lookup as well as on a call.
 * Exports mcoll_guard_active (an int, 1) and mcoll_guard_lookups() for tests.
 *
 * dlsym(RTLD_NEXT) and dlsym(RTLD_DEFAULT) answer relative to the object that calls them,
 * which glibc finds from its return address; forwarded from here they would answer for this
 * library. So the interposers take the caller's return address themselves, find its object
 * with dladdr1, and rebuild glibc's answer from lookups that do not depend on the caller:
 *   - RTLD_NEXT from an object loaded at start-up: the first definition after it in the
 *     global search order, which is link-map order for those objects. The real
 *     dlsym(RTLD_NEXT) made from here (first definition after this library) is the answer
 *     when it lies after the caller; otherwise the objects after the caller are asked one by
 *     one through dlopen(RTLD_NOLOAD) handles, keeping only a definition inside that object;
 *   - RTLD_NEXT from an object dlopen()ed later: glibc searches that object's own search
 *     list, so its handle answers unless the object defines the name itself; then its
 *     dependencies are asked breadth first (DT_NEEDED), as glibc orders that list;
 *   - RTLD_DEFAULT: the global lookup; when it misses and the caller was dlopen()ed, the
 *     caller's handle (glibc searches the caller's local scope after the global one).
 * A failed caller-relative lookup leaves glibc's message for dlerror, which is interposed
 * for that. The real dlsym, dlvsym and dlerror are read from the C library's dynamic symbol
 * table (default versions) instead of being asked of dlvsym, which is interposed here too;
 * without them the library says why and aborts at load.
 * Known limits: the one-by-one walk after a start-up object also asks objects dlopen()ed
 * RTLD_LOCAL (glibc would not); for a dependency of a dlopen()ed object its own dependencies
 * stand in for the full search list; a library dlclose()d and unloaded while such a walk
 * passes it; dlmopen namespaces (not preloaded into, so not guarded); drivers reached
 * without dlsym/dlvsym/cuGetProcAddress (own ELF parsing, cuGetExportTable); static programs.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#ifdef MCOLL_GUARD_CHECK_CUDA_H
/* Test build: cuda.h's declarations, without its _v2 renaming, must match the definitions. */
#define __CUDA_API_VERSION_INTERNAL 1
#include <cuda.h>
#else
/* ABI-identical stand-ins, so the guard builds where no toolkit is installed. */
typedef int CUresult;
typedef int CUdevice;
#if defined(__LP64__) || defined(_WIN64)
typedef unsigned long long CUdeviceptr;
#else
typedef unsigned int CUdeviceptr;
#endif
typedef unsigned long long CUmemGenericAllocationHandle;
typedef uint64_t cuuint64_t;
typedef struct CUmulticastObjectProp_st CUmulticastObjectProp;
typedef int CUmulticastGranularity_flags;
typedef int CUdriverProcAddressQueryResult;
#endif

#define GUARD_SUCCESS 0          /* CUDA_SUCCESS */
#define GUARD_INVALID_VALUE 1    /* CUDA_ERROR_INVALID_VALUE */
#define GUARD_NOT_FOUND 500      /* CUDA_ERROR_NOT_FOUND */
#define GUARD_PROC_FOUND 0       /* CU_GET_PROC_ADDRESS_SUCCESS */
#define GUARD_PROC_NOT_FOUND 1   /* CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND */
#ifdef MCOLL_GUARD_CHECK_CUDA_H
_Static_assert(CUDA_SUCCESS == GUARD_SUCCESS && CUDA_ERROR_INVALID_VALUE == GUARD_INVALID_VALUE &&
                   CUDA_ERROR_NOT_FOUND == GUARD_NOT_FOUND &&
                   CU_GET_PROC_ADDRESS_SUCCESS == GUARD_PROC_FOUND &&
                   CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND == GUARD_PROC_NOT_FOUND,
               "driver constants differ from cuda.h");
#endif

/* Every cuMulticast* function cuda.h 13.0 declares: name, parameters, casts for -Wextra.
 * test_guard.sh fails when cuda.h declares one that is missing here. */
#define GUARD_MULTICAST(X)                                                                   \
    X(cuMulticastCreate,                                                                     \
      (CUmemGenericAllocationHandle *mcHandle, const CUmulticastObjectProp *prop),          \
      (void)mcHandle; (void)prop;)                                                           \
    X(cuMulticastAddDevice, (CUmemGenericAllocationHandle mcHandle, CUdevice dev),           \
      (void)mcHandle; (void)dev;)                                                            \
    X(cuMulticastBindMem,                                                                    \
      (CUmemGenericAllocationHandle mcHandle, size_t mcOffset,                               \
       CUmemGenericAllocationHandle memHandle, size_t memOffset, size_t size,                \
       unsigned long long flags),                                                            \
      (void)mcHandle; (void)mcOffset; (void)memHandle; (void)memOffset; (void)size;          \
      (void)flags;)                                                                          \
    X(cuMulticastBindAddr,                                                                   \
      (CUmemGenericAllocationHandle mcHandle, size_t mcOffset, CUdeviceptr memptr,           \
       size_t size, unsigned long long flags),                                               \
      (void)mcHandle; (void)mcOffset; (void)memptr; (void)size; (void)flags;)                \
    X(cuMulticastUnbind,                                                                     \
      (CUmemGenericAllocationHandle mcHandle, CUdevice dev, size_t mcOffset, size_t size),   \
      (void)mcHandle; (void)dev; (void)mcOffset; (void)size;)                                \
    X(cuMulticastGetGranularity,                                                             \
      (size_t *granularity, const CUmulticastObjectProp *prop,                              \
       CUmulticastGranularity_flags option),                                                 \
      (void)granularity; (void)prop; (void)option;)

enum {
#define GUARD_ID(name, params, unused) ID_##name,
    GUARD_MULTICAST(GUARD_ID)
#undef GUARD_ID
    N_KNOWN
};

static const char *const known_name[N_KNOWN] = {
#define GUARD_NAME(name, params, unused) #name,
    GUARD_MULTICAST(GUARD_NAME)
#undef GUARD_NAME
};

enum route { VIA_CALL, VIA_DLSYM, VIA_DLVSYM, VIA_GPA, VIA_GPA2, VIA_LOOKUP, N_ROUTES };
static const char *const route_text[N_ROUTES] = {
    "a direct call", "dlsym", "dlvsym", "cuGetProcAddress", "cuGetProcAddress_v2", "a lookup"};

typedef void (*any_fn)(void);
typedef void *(*dlsym_fn)(void *, const char *);
typedef void *(*dlvsym_fn)(void *, const char *, const char *);
typedef char *(*dlerror_fn)(void);
typedef CUresult (*gpa_fn)(const char *, void **, int, cuuint64_t);
typedef CUresult (*gpa2_fn)(const char *, void **, int, cuuint64_t,
                            CUdriverProcAddressQueryResult *);

/* POSIX lets function and object pointers convert (dlsym depends on it); ISO C does not
 * say so, hence the union rather than a cast. */
static void *fn_ptr(any_fn f)
{
    union { any_fn f; void *p; } u;
    _Static_assert(sizeof u.f == sizeof u.p, "function and object pointers differ in size");
    u.f = f;
    return u.p;
}

static any_fn ptr_fn(void *p)
{
    union { any_fn f; void *p; } u;
    u.p = p;
    return u.f;
}

/* No libc string functions on the lookup path: a library that interposes one of them may
 * be resolving its own forwarding pointer through this dlsym at that moment. */
static int str_eq(const char *a, const char *b)
{
    while (*a && *a == *b)
        a++, b++;
    return *a == *b;
}

static int has_prefix(const char *s, const char *prefix)
{
    while (*prefix)
        if (*s++ != *prefix++)
            return 0;
    return 1;
}

static int has_slash(const char *s)
{
    for (; s && *s; s++)
        if (*s == '/')
            return 1;
    return 0;
}

/* ---- settings, messages ---------------------------------------------------------------- */

static int opt_verbose, opt_strict;
static atomic_ulong lookup_count;

static int env_is(const char *name, const char *value)
{
    const char *v = getenv(name);
    return v && str_eq(v, value);
}

static int kill_switch_set(void)
{
    return env_is("NCCL_NVLS_ENABLE", "0") || env_is("MCOLL_NVLS", "0");
}

/* One write per line, so lines from several processes do not interleave. */
static void say(const char *fmt, ...)
{
    char line[768];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n >= sizeof line)
        n = (int)sizeof line - 1, line[n - 1] = '\n';
    for (int off = 0; off < n;) {
        ssize_t w = write(STDERR_FILENO, line + off, (size_t)(n - off));
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return;
        off += (int)w;
    }
}

static const char *switch_text(void)
{
    return kill_switch_set() ? "with the multicast kill switch set"
                             : "with the guard loaded (kill switch NCCL_NVLS_ENABLE=0 / "
                               "MCOLL_NVLS=0 not set)";
}

_Noreturn static void guard_die(const char *name, enum route route)
{
    say("mcoll guard: %s reached through %s %s; aborting before the driver is touched\n",
        name, route_text[route], switch_text());
    abort();
}

static void note_lookup(const char *name, enum route route)
{
    unsigned long n = atomic_fetch_add(&lookup_count, 1) + 1;
    if (opt_strict) {
        say("mcoll guard: %s looked up through %s with MCOLL_GUARD_STRICT=1 %s; aborting "
            "before the driver is touched\n", name, route_text[route], switch_text());
        abort();
    }
    if (opt_verbose)
        say("mcoll guard: lookup %lu: %s through %s; the answer aborts if called\n", n, name,
            route_text[route]);
}

/* ---- the stubs ------------------------------------------------------------------------- */

/* One function per name and route, so the message says which function was reached and
 * how. The exported ones are the direct-call route. */
#define GUARD_STUBS(name, params, unused)                                                    \
    CUresult name params { unused guard_die(#name, VIA_CALL); }                              \
    static CUresult name##_via_dlsym params { unused guard_die(#name, VIA_DLSYM); }          \
    static CUresult name##_via_dlvsym params { unused guard_die(#name, VIA_DLVSYM); }        \
    static CUresult name##_via_gpa params { unused guard_die(#name, VIA_GPA); }              \
    static CUresult name##_via_gpa2 params { unused guard_die(#name, VIA_GPA2); }
GUARD_MULTICAST(GUARD_STUBS)
#undef GUARD_STUBS

static const any_fn known_stub[N_KNOWN][VIA_LOOKUP] = {
#define GUARD_ROW(name, params, unused)                                                      \
    {(any_fn)name, (any_fn)name##_via_dlsym, (any_fn)name##_via_dlvsym,                      \
     (any_fn)name##_via_gpa, (any_fn)name##_via_gpa2},
    GUARD_MULTICAST(GUARD_ROW)
#undef GUARD_ROW
};

/* cuMulticast* names this file does not list (a newer driver's) get a slot each, claimed
 * on first lookup, so that their message names them too. */
#define N_SPARE 16
static struct {
    atomic_int state; /* 0 free, 1 being filled, 2 ready */
    enum route route;
    char name[96];
} spare[N_SPARE];

#define GUARD_SPARE(i)                                                                       \
    static CUresult spare_##i(void) { guard_die(spare[i].name, spare[i].route); }
GUARD_SPARE(0) GUARD_SPARE(1) GUARD_SPARE(2) GUARD_SPARE(3) GUARD_SPARE(4) GUARD_SPARE(5)
GUARD_SPARE(6) GUARD_SPARE(7) GUARD_SPARE(8) GUARD_SPARE(9) GUARD_SPARE(10) GUARD_SPARE(11)
GUARD_SPARE(12) GUARD_SPARE(13) GUARD_SPARE(14) GUARD_SPARE(15)
#undef GUARD_SPARE

static const any_fn spare_fn[N_SPARE] = {
    (any_fn)spare_0,  (any_fn)spare_1,  (any_fn)spare_2,  (any_fn)spare_3,
    (any_fn)spare_4,  (any_fn)spare_5,  (any_fn)spare_6,  (any_fn)spare_7,
    (any_fn)spare_8,  (any_fn)spare_9,  (any_fn)spare_10, (any_fn)spare_11,
    (any_fn)spare_12, (any_fn)spare_13, (any_fn)spare_14, (any_fn)spare_15};

static CUresult spare_overflow(void)
{
    guard_die("an unlisted cuMulticast* function", VIA_LOOKUP);
}

static any_fn stub_for(const char *name, enum route route)
{
    for (int i = 0; i < N_KNOWN; i++)
        if (str_eq(name, known_name[i]))
            return known_stub[i][route];
    size_t len = 0;
    while (name[len])
        len++;
    if (len >= sizeof spare[0].name)
        return (any_fn)spare_overflow;
    for (int i = 0; i < N_SPARE; i++)
        if (atomic_load_explicit(&spare[i].state, memory_order_acquire) == 2 &&
            spare[i].route == route && str_eq(spare[i].name, name))
            return spare_fn[i];
    for (int i = 0; i < N_SPARE; i++) {
        int expected = 0;
        if (atomic_compare_exchange_strong(&spare[i].state, &expected, 1)) {
            for (size_t k = 0; k <= len; k++)
                spare[i].name[k] = name[k];
            spare[i].route = route;
            atomic_store_explicit(&spare[i].state, 2, memory_order_release);
            return spare_fn[i];
        }
    }
    return (any_fn)spare_overflow;
}

/* ---- finding the C library's dlsym, dlvsym, dlerror ------------------------------------ */

static dlsym_fn real_dlsym;
static dlvsym_fn real_dlvsym;
static dlerror_fn real_dlerror;
static struct link_map *self_map;     /* this library */
static struct link_map *chain_head;   /* the program: first in the base namespace */
static struct link_map *initial_tail; /* last object loaded at start-up */
static atomic_int init_state;         /* 0 not begun, 1 running, 2 done */
static _Thread_local int init_running_here;

static struct link_map *object_of(const void *addr)
{
    Dl_info info;
    void *extra = NULL;
    if (!addr || !dladdr1(addr, &info, &extra, RTLD_DL_LINKMAP))
        return NULL;
    return extra;
}

/* ld.so rewrites these entries to run-time addresses on most targets, not on all. */
static const void *dyn_ptr(const struct link_map *l, ElfW(Addr) v)
{
    return (const void *)(v < l->l_addr ? v + l->l_addr : v);
}

static uint32_t gnu_hash(const char *s)
{
    uint32_t h = 5381;
    for (; *s; s++)
        h = h * 33 + (unsigned char)*s;
    return h;
}

static uint32_t sysv_hash(const char *s)
{
    uint32_t h = 0;
    for (; *s; s++) {
        h = (h << 4) + (unsigned char)*s;
        uint32_t g = h & 0xf0000000u;
        if (g)
            h ^= g >> 24;
        h &= ~g;
    }
    return h;
}

/* The default-version definition of function `name` in object l, from its dynamic symbol
 * table: what glibc's own lookup would bind, found without calling a lookup function. */
static void *elf_function(const struct link_map *l, const char *name)
{
    const ElfW(Sym) *symtab = NULL;
    const char *strtab = NULL;
    const uint32_t *gnu = NULL, *sysv = NULL;
    const ElfW(Half) *versym = NULL;
    for (const ElfW(Dyn) *d = l->l_ld; d && d->d_tag != DT_NULL; d++) {
        switch (d->d_tag) {
        case DT_SYMTAB: symtab = dyn_ptr(l, d->d_un.d_ptr); break;
        case DT_STRTAB: strtab = dyn_ptr(l, d->d_un.d_ptr); break;
        case DT_GNU_HASH: gnu = dyn_ptr(l, d->d_un.d_ptr); break;
        case DT_HASH: sysv = dyn_ptr(l, d->d_un.d_ptr); break;
        case DT_VERSYM: versym = dyn_ptr(l, d->d_un.d_ptr); break;
        default: break;
        }
    }
    if (!symtab || !strtab || (!gnu && !sysv))
        return NULL;
#define GUARD_MATCH(i)                                                                       \
    (symtab[i].st_shndx != SHN_UNDEF && (symtab[i].st_info & 0xf) == STT_FUNC &&             \
     ((symtab[i].st_info >> 4) == STB_GLOBAL || (symtab[i].st_info >> 4) == STB_WEAK) &&     \
     (!versym || (versym[i] != 0 && !(versym[i] & 0x8000))) &&                              \
     str_eq(strtab + symtab[i].st_name, name))
    if (gnu) {
        uint32_t nbuckets = gnu[0], symoffset = gnu[1], bloom_words = gnu[2];
        const ElfW(Addr) *bloom = (const ElfW(Addr) *)(gnu + 4);
        const uint32_t *buckets = (const uint32_t *)(bloom + bloom_words);
        const uint32_t *chain = buckets + nbuckets;
        uint32_t h = gnu_hash(name);
        if (nbuckets == 0)
            return NULL;
        uint32_t i = buckets[h % nbuckets];
        if (i == 0 || i < symoffset)
            return NULL;
        for (;; i++) {
            uint32_t ch = chain[i - symoffset];
            if ((ch | 1) == (h | 1) && GUARD_MATCH(i))
                return (void *)(l->l_addr + symtab[i].st_value);
            if (ch & 1)
                return NULL;
        }
    }
    uint32_t nbucket = sysv[0];
    const uint32_t *bucket = sysv + 2, *chain = bucket + nbucket;
    if (nbucket == 0)
        return NULL;
    for (uint32_t i = bucket[sysv_hash(name) % nbucket]; i != STN_UNDEF; i = chain[i])
        if (GUARD_MATCH(i))
            return (void *)(l->l_addr + symtab[i].st_value);
#undef GUARD_MATCH
    return NULL;
}

/* Where dlvsym(RTLD_NEXT, name) from here would look: the objects after this library,
 * then the ones before it (for a guard that was linked rather than preloaded). The program
 * and the vDSO (no path) are skipped: neither is the C library. */
static void *find_real(const char *name)
{
    void *p;
    for (struct link_map *l = self_map->l_next; l; l = l->l_next)
        if (has_slash(l->l_name) && (p = elf_function(l, name)))
            return p;
    for (struct link_map *l = chain_head; l && l != self_map; l = l->l_next)
        if (has_slash(l->l_name) && (p = elf_function(l, name)))
            return p;
    return NULL;
}

_Noreturn static void refuse(const char *what)
{
    say("mcoll guard: %s; refusing to run with dlsym half interposed\n", what);
    abort();
}

static void do_init(void)
{
    self_map = object_of((const void *)&init_state);
    if (!self_map)
        refuse("dladdr1 cannot place the guard library itself");
    chain_head = self_map;
    while (chain_head->l_prev)
        chain_head = chain_head->l_prev;
    initial_tail = self_map;
    while (initial_tail->l_next)
        initial_tail = initial_tail->l_next;

    void *s = find_real("dlsym"), *v = find_real("dlvsym"), *e = find_real("dlerror");
    if (!s || !v || !e)
        refuse("cannot find the C library's dlsym, dlvsym and dlerror");
    struct link_map *ls = object_of(s), *lv = object_of(v), *le = object_of(e);
    if (!ls || ls == self_map || !lv || lv == self_map || !le || le == self_map)
        refuse("the dlsym, dlvsym and dlerror found do not lie in the C library");
    real_dlsym = (dlsym_fn)ptr_fn(s);
    real_dlvsym = (dlvsym_fn)ptr_fn(v);
    real_dlerror = (dlerror_fn)ptr_fn(e);

    opt_verbose = env_is("MCOLL_GUARD_VERBOSE", "1");
    opt_strict = env_is("MCOLL_GUARD_STRICT", "1");
    if (opt_verbose)
        say("mcoll guard: active in pid %d (%s)%s%s; dlsym from %s\n", (int)getpid(),
            program_invocation_name, kill_switch_set() ? ", multicast kill switch set" : "",
            opt_strict ? ", strict" : "", ls->l_name);
}

/* Lock-free once: dlsym can be called before this library's constructor (from another
 * constructor) and from any thread. */
static void ensure_init(void)
{
    if (atomic_load_explicit(&init_state, memory_order_acquire) == 2)
        return;
    int expected = 0;
    if (atomic_compare_exchange_strong(&init_state, &expected, 1)) {
        init_running_here = 1;
        do_init();
        init_running_here = 0;
        atomic_store_explicit(&init_state, 2, memory_order_release);
        return;
    }
    if (init_running_here) /* re-entered from inside do_init: nothing to wait for */
        return;
    while (atomic_load_explicit(&init_state, memory_order_acquire) != 2)
        sched_yield();
}

/* ---- lookups as if the guard were not loaded ------------------------------------------- */

static void *real_lookup(void *handle, const char *name, const char *version)
{
    return version ? real_dlvsym(handle, name, version) : real_dlsym(handle, name);
}

static int chain_index(const struct link_map *m)
{
    int i = 0;
    for (const struct link_map *l = chain_head; l; l = l->l_next, i++)
        if (l == m)
            return i;
    return -1;
}

/* Loaded at start-up: no later than the last object present when this library initialised
 * (its constructor, or an earlier dlsym from another constructor). */
static int loaded_at_start(const struct link_map *m)
{
    for (const struct link_map *l = chain_head; l; l = l->l_next) {
        if (l == m)
            return 1;
        if (l == initial_tail)
            return 0;
    }
    return 0;
}

/* `name` through object l's handle: l and its dependencies (only_l: a definition in l). */
static void *object_lookup(struct link_map *l, const char *name, const char *version,
                           int only_l)
{
    if (!has_slash(l->l_name)) /* the program or the vDSO */
        return NULL;
    void *h = dlopen(l->l_name, RTLD_LAZY | RTLD_NOLOAD);
    if (!h)
        return NULL;
    void *p = real_lookup(h, name, version);
    if (p && only_l) {
        struct link_map *where = object_of(p);
        if (where && where != l) /* no object: thread-local data, taken as l's */
            p = NULL;
    }
    dlclose(h);
    return p;
}

static void *scan_after(struct link_map *m, const char *name, const char *version)
{
    for (struct link_map *l = m->l_next; l; l = l->l_next) {
        void *p;
        if (l != self_map && (p = object_lookup(l, name, version, 1)))
            return p;
    }
    return NULL;
}

/* The first definition in m's dependencies (breadth first through DT_NEEDED, as glibc
 * orders a dlopen()ed object's search list), m itself excluded. */
static void *scan_deps(struct link_map *m, const char *name, const char *version)
{
    enum { MAX_DEPS = 512 };
    struct link_map *list[MAX_DEPS];
    int n = 1;
    list[0] = m;
    for (int i = 0; i < n; i++) {
        const char *strtab = NULL;
        for (const ElfW(Dyn) *d = list[i]->l_ld; d && d->d_tag != DT_NULL; d++)
            if (d->d_tag == DT_STRTAB)
                strtab = dyn_ptr(list[i], d->d_un.d_ptr);
        if (!strtab)
            continue;
        for (const ElfW(Dyn) *d = list[i]->l_ld; d && d->d_tag != DT_NULL; d++) {
            if (d->d_tag != DT_NEEDED)
                continue;
            void *h = dlopen(strtab + d->d_un.d_val, RTLD_LAZY | RTLD_NOLOAD);
            struct link_map *dep = NULL;
            if (!h)
                continue;
            if (dlinfo(h, RTLD_DI_LINKMAP, &dep) != 0)
                dep = NULL;
            dlclose(h);
            int seen = !dep;
            for (int k = 0; k < n && !seen; k++)
                seen = list[k] == dep;
            if (seen || n == MAX_DEPS)
                continue;
            list[n++] = dep;
            void *p = object_lookup(dep, name, version, 1);
            if (p)
                return p;
        }
    }
    return NULL;
}

static void *next_lookup(struct link_map *m, const char *name, const char *version)
{
    if (m == self_map)
        return real_lookup(RTLD_NEXT, name, version);
    if (loaded_at_start(m)) {
        void *after_guard = real_lookup(RTLD_NEXT, name, version);
        int im = chain_index(m);
        if (im < chain_index(self_map)) { /* the program, or a library preloaded before us */
            for (struct link_map *l = m->l_next; l && l != self_map; l = l->l_next) {
                void *p = object_lookup(l, name, version, 1);
                if (p)
                    return p;
            }
            return after_guard;
        }
        if (!after_guard)
            return NULL;
        int ir = chain_index(object_of(after_guard));
        if (ir < 0 || ir > im)
            return after_guard;
        return scan_after(m, name, version); /* the first one found is m's or before it */
    }
    /* Loaded later: glibc searches m's own search list, which its handle searches too. */
    void *own = object_lookup(m, name, version, 0);
    if (!own || object_of(own) != m)
        return own;
    return scan_deps(m, name, version);
}

/* Failed caller-relative lookups: glibc's message, for the interposed dlerror. */
static _Thread_local int err_pending;
static _Thread_local char err_text[512];

static void set_lookup_error(void *handle, const struct link_map *m, const char *name,
                             const char *version)
{
    const char *who = m && m->l_name && m->l_name[0] ? m->l_name : program_invocation_name;
    (void)real_dlerror(); /* drop what our inner lookups left; a later failure is newer */
    if (!m && handle == RTLD_NEXT)
        snprintf(err_text, sizeof err_text, "RTLD_NEXT used in code not dynamically loaded");
    else if (version)
        snprintf(err_text, sizeof err_text, "%s: undefined symbol: %s, version %s", who, name,
                 version);
    else
        snprintf(err_text, sizeof err_text, "%s: undefined symbol: %s", who, name);
    err_pending = 1;
}

enum kind { PLAIN, MULTICAST, GPA, GPA2, DLSYM, DLVSYM, DLERROR, GUARD_API };

static enum kind kind_of(const char *name)
{
    if (name[0] == 'c')
        return has_prefix(name, "cuMulticast")         ? MULTICAST
               : str_eq(name, "cuGetProcAddress")      ? GPA
               : str_eq(name, "cuGetProcAddress_v2")   ? GPA2
                                                       : PLAIN;
    if (name[0] == 'd')
        return str_eq(name, "dlsym")     ? DLSYM
               : str_eq(name, "dlvsym")  ? DLVSYM
               : str_eq(name, "dlerror") ? DLERROR
                                         : PLAIN;
    return has_prefix(name, "mcoll_guard_") ? GUARD_API : PLAIN;
}

/* What the lookup answers without this library in the process. */
static void *lookup_without_guard(void *handle, const char *name, const char *version,
                                  const void *caller, enum kind kind)
{
    int relative = handle == RTLD_NEXT || handle == RTLD_DEFAULT;
    struct link_map *m = NULL;
    void *p;
    if (handle == RTLD_NEXT) {
        m = object_of(caller);
        p = m ? next_lookup(m, name, version) : NULL;
    } else {
        p = real_lookup(handle, name, version);
        if (!p && handle == RTLD_DEFAULT && (m = object_of(caller)) && !loaded_at_start(m))
            p = object_lookup(m, name, version, 0);
    }
    /* Only names this library defines can resolve into it. */
    if (p && kind != PLAIN && kind != GUARD_API && object_of(p) == self_map)
        p = real_lookup(RTLD_NEXT, name, version);
    if (!p && relative)
        set_lookup_error(handle, m ? m : object_of(caller), name, version);
    return p;
}

/* ---- cuGetProcAddress ------------------------------------------------------------------ */

static _Atomic(gpa_fn) gpa_target;   /* the driver's, once known */
static _Atomic(gpa2_fn) gpa2_target;

static gpa_fn gpa_real(void)
{
    gpa_fn f = atomic_load(&gpa_target);
    if (!f) {
        void *p = real_lookup(RTLD_NEXT, "cuGetProcAddress", NULL);
        if (p)
            atomic_store(&gpa_target, f = (gpa_fn)ptr_fn(p));
    }
    return f;
}

static gpa2_fn gpa2_real(void)
{
    gpa2_fn f = atomic_load(&gpa2_target);
    if (!f) {
        void *p = real_lookup(RTLD_NEXT, "cuGetProcAddress_v2", NULL);
        if (p)
            atomic_store(&gpa2_target, f = (gpa2_fn)ptr_fn(p));
    }
    return f;
}

static CUresult gpa_impl(const char *, void **, int, cuuint64_t);
static CUresult gpa2_impl(const char *, void **, int, cuuint64_t,
                          CUdriverProcAddressQueryResult *);

/* The driver answered a request for cuGetProcAddress itself: hand back our wrapper for the
 * variant it gave, so that multicast cannot be fetched through the driver's own. */
static void *own_gpa(void *given, int cuda_version)
{
    any_fn f = ptr_fn(given);
    gpa_fn t1 = gpa_real();
    gpa2_fn t2 = gpa2_real();
    if (t2 && (any_fn)t2 == f)
        return fn_ptr((any_fn)gpa2_impl);
    if (t1 && (any_fn)t1 == f)
        return fn_ptr((any_fn)gpa_impl);
    /* A driver whose own calls to its exported functions bind to ours (they come first in
     * the global scope) hands out ours: never record that as the driver's. */
    int ours = object_of(given) == self_map;
    if (cuda_version >= 12000) { /* cuGetProcAddress_v2 came with CUDA 12.0 */
        gpa2_fn none = NULL;
        if (!ours)
            atomic_compare_exchange_strong(&gpa2_target, &none, (gpa2_fn)f);
        return fn_ptr((any_fn)gpa2_impl);
    }
    gpa_fn none = NULL;
    if (!ours)
        atomic_compare_exchange_strong(&gpa_target, &none, (gpa_fn)f);
    return fn_ptr((any_fn)gpa_impl);
}

static CUresult gpa_impl(const char *symbol, void **pfn, int cuda_version, cuuint64_t flags)
{
    ensure_init();
    if (symbol && has_prefix(symbol, "cuMulticast")) {
        note_lookup(symbol, VIA_GPA);
        if (!pfn)
            return GUARD_INVALID_VALUE;
        *pfn = fn_ptr(stub_for(symbol, VIA_GPA));
        return GUARD_SUCCESS;
    }
    gpa_fn real = gpa_real();
    if (!real) {
        if (pfn)
            *pfn = NULL;
        return GUARD_NOT_FOUND;
    }
    CUresult r = real(symbol, pfn, cuda_version, flags);
    if (r == GUARD_SUCCESS && symbol && pfn && *pfn && has_prefix(symbol, "cuGetProcAddress"))
        *pfn = own_gpa(*pfn, cuda_version);
    return r;
}

static CUresult gpa2_impl(const char *symbol, void **pfn, int cuda_version, cuuint64_t flags,
                          CUdriverProcAddressQueryResult *status)
{
    ensure_init();
    if (symbol && has_prefix(symbol, "cuMulticast")) {
        note_lookup(symbol, VIA_GPA2);
        if (!pfn)
            return GUARD_INVALID_VALUE;
        *pfn = fn_ptr(stub_for(symbol, VIA_GPA2));
        if (status)
            *status = GUARD_PROC_FOUND;
        return GUARD_SUCCESS;
    }
    gpa2_fn real = gpa2_real();
    if (!real) {
        if (pfn)
            *pfn = NULL;
        if (status)
            *status = GUARD_PROC_NOT_FOUND;
        return GUARD_NOT_FOUND;
    }
    CUresult r = real(symbol, pfn, cuda_version, flags, status);
    if (r == GUARD_SUCCESS && symbol && pfn && *pfn && has_prefix(symbol, "cuGetProcAddress"))
        *pfn = own_gpa(*pfn, cuda_version);
    return r;
}

CUresult cuGetProcAddress(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags)
{
    return gpa_impl(symbol, pfn, cudaVersion, flags);
}

CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int cudaVersion,
                             cuuint64_t flags, CUdriverProcAddressQueryResult *symbolStatus)
{
    return gpa2_impl(symbol, pfn, cudaVersion, flags, symbolStatus);
}

/* ---- dlsym, dlvsym, dlerror ------------------------------------------------------------ */

/* The driver's cuGetProcAddress[_v2] as a lookup found it. The other variant is taken from
 * the same handle too: a driver's own calls between the two may bind to ours, and a
 * driver opened RTLD_LOCAL cannot be found from here later. */
static void record_gpa(enum kind kind, void *p, void *handle)
{
    void *other = NULL;
    if (handle != RTLD_NEXT && handle != RTLD_DEFAULT) {
        other = real_lookup(handle, kind == GPA ? "cuGetProcAddress_v2" : "cuGetProcAddress",
                            NULL);
        if (other && object_of(other) == self_map)
            other = NULL;
        (void)real_dlerror(); /* the other variant may well be missing */
    }
    if (kind == GPA) {
        atomic_store(&gpa_target, (gpa_fn)ptr_fn(p));
        if (other)
            atomic_store(&gpa2_target, (gpa2_fn)ptr_fn(other));
    } else {
        atomic_store(&gpa2_target, (gpa2_fn)ptr_fn(p));
        if (other)
            atomic_store(&gpa_target, (gpa_fn)ptr_fn(other));
    }
}

static void *dlsym_twin(void *handle, const char *name);
static void *dlvsym_twin(void *handle, const char *name, const char *version);
static char *dlerror_twin(void);

static void *guard_lookup(void *handle, const char *name, const char *version,
                          const void *caller, enum route route)
{
    ensure_init();
    err_pending = 0;
    enum kind kind = kind_of(name);
    if (kind == MULTICAST)
        note_lookup(name, route);
    void *p = lookup_without_guard(handle, name, version, caller, kind);
    if (!p)
        return NULL;
    if (err_pending || handle == RTLD_NEXT || handle == RTLD_DEFAULT) {
        /* A lookup that succeeds clears the error state; our inner ones may have set it. */
        err_pending = 0;
        (void)real_dlerror();
    }
    switch (kind) {
    case MULTICAST:
        return fn_ptr(stub_for(name, route));
    case GPA:
    case GPA2:
        record_gpa(kind, p, handle);
        return fn_ptr(kind == GPA ? (any_fn)gpa_impl : (any_fn)gpa2_impl);
    case DLSYM:
        return fn_ptr((any_fn)dlsym_twin);
    case DLVSYM:
        return fn_ptr((any_fn)dlvsym_twin);
    case DLERROR:
        return fn_ptr((any_fn)dlerror_twin);
    default:
        return p;
    }
}

/* The caller's return address names the object that asked; it is taken in each entry point
 * because glibc resolves RTLD_NEXT and RTLD_DEFAULT relative to that object. The twins are
 * what lookups of these names return, so that they stay ours even when the program defines
 * a function of the same name. */
#define GUARD_CALLER() __builtin_return_address(0)

void *dlsym(void *restrict handle, const char *restrict name)
{
    return guard_lookup(handle, name, NULL, GUARD_CALLER(), VIA_DLSYM);
}

static void *dlsym_twin(void *handle, const char *name)
{
    return guard_lookup(handle, name, NULL, GUARD_CALLER(), VIA_DLSYM);
}

void *dlvsym(void *restrict handle, const char *restrict name, const char *restrict version)
{
    return guard_lookup(handle, name, version, GUARD_CALLER(), VIA_DLVSYM);
}

static void *dlvsym_twin(void *handle, const char *name, const char *version)
{
    return guard_lookup(handle, name, version, GUARD_CALLER(), VIA_DLVSYM);
}

static char *dlerror_twin(void)
{
    ensure_init();
    char *real = real_dlerror();
    if (err_pending) {
        err_pending = 0;
        if (!real)
            return err_text;
    }
    return real;
}

char *dlerror(void)
{
    return dlerror_twin();
}

/* ---- for tests ------------------------------------------------------------------------- */

const int mcoll_guard_active = 1;

unsigned long mcoll_guard_lookups(void)
{
    return atomic_load(&lookup_count);
}

__attribute__((constructor)) static void guard_load(void)
{
    ensure_init();
}

__attribute__((destructor)) static void guard_unload(void)
{
    if (opt_verbose)
        say("mcoll guard: pid %d exits after %lu multicast lookups and no multicast call\n",
            (int)getpid(), mcoll_guard_lookups());
}
