/* What a long run holds; see usage.h. */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cuda_runtime_api.h>
#include <mpi.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include "report.h"
#include "usage.h"

static long rss_kib(void)
{
    char line[256];
    long kib = -1;
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) return -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "VmRSS: %ld kB", &kib) == 1) break;
    fclose(f);
    return kib;
}

/* The directory's own descriptor, open while it is read, is not counted. */
long usage_open_fds_to(const char *prefix)
{
    DIR *d = opendir("/proc/self/fd");
    struct dirent *e;
    char path[300], target[64];
    long n = 0;
    if (!d) return -1;
    while ((e = readdir(d)) != NULL) {
        ssize_t len;
        if (e->d_name[0] == '.') continue;
        if (!prefix) {
            n++;
            continue;
        }
        snprintf(path, sizeof path, "/proc/self/fd/%s", e->d_name);
        len = readlink(path, target, sizeof target - 1);
        if (len > 0 && (target[len] = '\0', strncmp(target, prefix, strlen(prefix)) == 0)) n++;
    }
    closedir(d);
    return prefix ? n : n - 1;
}

long usage_open_fds(void) { return usage_open_fds_to(NULL); }

int usage_has_thread(const char *name)
{
    DIR *d = opendir("/proc/self/task");
    struct dirent *e;
    char path[300], comm[64];
    int found = 0;
    if (!d) return 0;
    while (!found && (e = readdir(d)) != NULL) {
        FILE *f;
        if (e->d_name[0] == '.') continue;
        snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
        if (!(f = fopen(path, "r"))) continue;
        if (fgets(comm, sizeof comm, f)) {
            comm[strcspn(comm, "\n")] = '\0';
            found = strcmp(comm, name) == 0;
        }
        fclose(f);
    }
    closedir(d);
    return found;
}

void usage_take(usage_sample *s, int with_device)
{
    size_t free_b = 0, total_b = 0;
#ifdef __GLIBC__
    /* Freed heap memory the allocator keeps is not what the libraries hold. */
    malloc_trim(0);
#endif
    s->rss_kib = rss_kib();
    s->fds = usage_open_fds();
    s->device_mib = -1;
    if (with_device && cudaMemGetInfo(&free_b, &total_b) == cudaSuccess)
        s->device_mib = (long)((total_b - free_b) >> 20);
}

void usage_print(const usage_sample *mine, const char *label, long calls)
{
    long all[3 * 64], v[3] = {mine->rss_kib, mine->fds, mine->device_mib};
    int r, size = report_size();
    if (size > 64) { /* the same choice on every rank: no gather */
        say("usage %s after %ld calls: rank 0: rss %ld KiB, fds %ld, device %ld MiB", label, calls, v[0], v[1], v[2]);
        return;
    }
    MPI_Gather(v, 3, MPI_LONG, all, 3, MPI_LONG, 0, MPI_COMM_WORLD);
    for (r = 0; r < size; r++)
        say("usage %s after %ld calls: rank %d: rss %ld KiB, fds %ld, device %ld MiB", label, calls, r, all[3 * r],
            all[3 * r + 1], all[3 * r + 2]);
}

usage_sample usage_growth(const usage_sample *from, const usage_sample *to)
{
    long mine[3] = {to->rss_kib - from->rss_kib, to->fds - from->fds, to->device_mib - from->device_mib}, most[3];
    usage_sample g;
    MPI_Allreduce(mine, most, 3, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
    g.rss_kib = most[0];
    g.fds = most[1];
    g.device_mib = most[2];
    return g;
}
