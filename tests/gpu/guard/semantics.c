/*
 * dlsym semantics with and without the multicast guard: tests/gpu/test_guard.sh builds this
 * file as a program and as libraries, runs the program with and without the guard preloaded,
 * and requires the same output. Every line names the object a lookup resolved into, so a
 * lookup the guard answered relative to itself instead of its caller shows up.
 *   -DSEM_LIB=A   libsemA.so: defines sem_shared and interposes puts (forwarding through
 *                 dlsym(RTLD_NEXT), the usual interposer pattern)
 *   -DSEM_LIB=B   libsemB.so: defines sem_shared and interposes strlen (an IFUNC in glibc)
 *   -DSEM_LIB=Q   libsemQ.so: defines sem_shared and sem_q
 *   -DSEM_LIB=P   libsemP.so, linked to libsemQ.so, dlopen()ed RTLD_LOCAL by the program
 *   -DSEM_LIB=G   libsemG.so, defines sem_shared, dlopen()ed RTLD_GLOBAL by the program
 *   (none)        the program, linked to libsemA.so then libsemB.so
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#define SEM_A 1
#define SEM_B 2
#define SEM_Q 3
#define SEM_P 4
#define SEM_G 5
#define SEM_CAT(x) SEM_##x
#define SEM_ID(x) SEM_CAT(x)
#define SEM_STR2(x) #x
#define SEM_STR(x) SEM_STR2(x)

typedef void (*any_fn)(void);

static void *to_ptr(any_fn f)
{
    union { any_fn f; void *p; } u;
    u.f = f;
    return u.p;
}

static any_fn to_fn(void *p)
{
    union { any_fn f; void *p; } u;
    u.p = p;
    return u.f;
}

/* The object holding p and the symbol there (which version of a libc function, too). */
static const char *where(void *p, char *buf, size_t size)
{
    Dl_info info;
    if (!p)
        return "NULL";
    if (!dladdr(p, &info) || !info.dli_fname)
        return "(no object)";
    const char *slash = strrchr(info.dli_fname, '/');
    snprintf(buf, size, "%s:%s", slash ? slash + 1 : info.dli_fname,
             info.dli_sname ? info.dli_sname : "?");
    return buf;
}

static void show(const char *who, const char *what, void *p)
{
    const char *err = p ? NULL : dlerror();
    char line[768], place[256];
    snprintf(line, sizeof line, "%s: %s -> %s%s%s", who, what, where(p, place, sizeof place),
             err ? "; " : "", err ? err : "");
    fputs(line, stdout);
    fputc('\n', stdout);
}

/* glibc's base symbol versions differ between targets; a version that does not exist here
 * just gives NULL, the same with and without the guard. */
static const char *const libc_versions[] = {"GLIBC_2.2.5", "GLIBC_2.14", "GLIBC_2.17", "GLIBC_2.0"};

static void show_versions(const char *who, void *handle, const char *handle_name,
                          const char *name)
{
    for (size_t i = 0; i < sizeof libc_versions / sizeof libc_versions[0]; i++) {
        char what[128];
        snprintf(what, sizeof what, "dlvsym %s %s@%s", handle_name, name, libc_versions[i]);
        show(who, what, dlvsym(handle, name, libc_versions[i]));
    }
}

static void probe(const char *who)
{
    show(who, "RTLD_NEXT sem_shared", dlsym(RTLD_NEXT, "sem_shared"));
    show(who, "RTLD_NEXT puts", dlsym(RTLD_NEXT, "puts"));
    show(who, "RTLD_NEXT malloc", dlsym(RTLD_NEXT, "malloc"));
    show(who, "RTLD_NEXT memcpy", dlsym(RTLD_NEXT, "memcpy"));
    show(who, "RTLD_NEXT sem_missing", dlsym(RTLD_NEXT, "sem_missing"));
    show(who, "RTLD_DEFAULT sem_q", dlsym(RTLD_DEFAULT, "sem_q"));
    show(who, "RTLD_DEFAULT sem_shared", dlsym(RTLD_DEFAULT, "sem_shared"));
    show(who, "RTLD_DEFAULT printf", dlsym(RTLD_DEFAULT, "printf"));
    show(who, "RTLD_DEFAULT sem_missing", dlsym(RTLD_DEFAULT, "sem_missing"));
    show(who, "dlvsym RTLD_NEXT sem_shared", dlvsym(RTLD_NEXT, "sem_shared", "SEM_1"));
    show(who, "dlvsym RTLD_DEFAULT sem_missing", dlvsym(RTLD_DEFAULT, "sem_missing", "SEM_1"));
    show_versions(who, RTLD_NEXT, "RTLD_NEXT", "puts");
    show_versions(who, RTLD_DEFAULT, "RTLD_DEFAULT", "memcpy");
}

#ifdef SEM_LIB
const char *sem_shared(void);
const char *sem_shared(void)
{
    return SEM_STR(SEM_LIB);
}

#if SEM_ID(SEM_LIB) == SEM_Q
const char *sem_q(void);
const char *sem_q(void)
{
    return "Q";
}
#endif

#if SEM_ID(SEM_LIB) == SEM_A
int puts(const char *s)
{
    static int (*next)(const char *);
    if (!next)
        next = (int (*)(const char *))to_fn(dlsym(RTLD_NEXT, "puts"));
    return next ? next(s) : -1;
}
#endif

#if SEM_ID(SEM_LIB) == SEM_B
size_t strlen(const char *s)
{
    static size_t (*next)(const char *);
    if (!next)
        next = (size_t (*)(const char *))to_fn(dlsym(RTLD_NEXT, "strlen"));
    return next(s);
}
#endif

#define SEM_PROBE2(x) sem_probe_##x
#define SEM_PROBE(x) SEM_PROBE2(x)
void SEM_PROBE(SEM_LIB)(void);
void SEM_PROBE(SEM_LIB)(void)
{
    probe("lib" SEM_STR(SEM_LIB));
}

#else /* the program */

void sem_probe_A(void);
void sem_probe_B(void);

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : ".";
    char path[4096];
    (void)to_ptr;

    show("program", "RTLD_NEXT sem_shared", dlsym(RTLD_NEXT, "sem_shared"));
    show("program", "RTLD_NEXT malloc", dlsym(RTLD_NEXT, "malloc"));
    show("program", "RTLD_NEXT sem_missing", dlsym(RTLD_NEXT, "sem_missing"));
    show("program", "RTLD_DEFAULT printf", dlsym(RTLD_DEFAULT, "printf"));
    show("program", "RTLD_DEFAULT puts", dlsym(RTLD_DEFAULT, "puts"));
    show("program", "RTLD_DEFAULT sem_missing", dlsym(RTLD_DEFAULT, "sem_missing"));
    void *self = dlopen(NULL, RTLD_NOW);
    show("program", "dlopen(NULL) sem_shared", dlsym(self, "sem_shared"));
    show_versions("program", RTLD_NEXT, "RTLD_NEXT", "memcpy");
    show_versions("program", self, "dlopen(NULL)", "memcpy");
    sem_probe_A();
    sem_probe_B();

    puts("program: puts through libsemA's interposer");
    volatile char text[] = "strlen through libsemB's interposer";
    printf("program: %s: %zu\n", (const char *)text, strlen((const char *)text));

    snprintf(path, sizeof path, "%s/libsemP.so", dir);
    void *p = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    snprintf(path, sizeof path, "%s/libsemG.so", dir);
    void *g = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
    if (!p || !g) {
        printf("program: dlopen: %s\n", dlerror());
        return 1;
    }
    show("program", "handle(P) sem_q", dlsym(p, "sem_q"));
    show("program", "handle(P) sem_missing", dlsym(p, "sem_missing"));
    ((void (*)(void))to_fn(dlsym(p, "sem_probe_P")))();
    ((void (*)(void))to_fn(dlsym(g, "sem_probe_G")))();
    show("program", "RTLD_DEFAULT sem_shared after G", dlsym(RTLD_DEFAULT, "sem_shared"));
    return 0;
}
#endif
