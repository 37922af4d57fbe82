/* What a long run holds: the process's resident memory (VmRSS of /proc/self/status), its open
 * descriptors (entries of /proc/self/fd) and the device memory in use on its GPU
 * (cudaMemGetInfo, the runtime's cuMemGetInfo: every process on the GPU counts). Taken at
 * points where the test holds no buffers, after returning freed heap memory to the system, so
 * that what remains is what the libraries keep. */
#ifndef GPU_USAGE_H
#define GPU_USAGE_H

typedef struct {
    long rss_kib;      /* -1: unknown */
    long fds;          /* -1: unknown */
    long device_mib;   /* -1: not measured (no GPU) */
} usage_sample;

/* Open descriptors of this process now; -1 if /proc cannot tell. */
long usage_open_fds(void);
/* Those whose target starts with `prefix` ("socket:", "/dev/nvidia"). */
long usage_open_fds_to(const char *prefix);
/* 1 when a thread of this process is named `name` (/proc/self/task/<tid>/comm). */
int usage_has_thread(const char *name);

/* with_device 0: no CUDA call is made. */
void usage_take(usage_sample *s, int with_device);

/* Collective over `comm`: every rank's sample, gathered; rank 0 prints one line per rank
 * ("# usage <label> after <calls> calls: rank R: rss ... KiB, fds ..., device ... MiB"). */
void usage_print(const usage_sample *mine, const char *label, long calls);

/* The largest growth over the ranks between two samples of this rank (collective). */
usage_sample usage_growth(const usage_sample *from, const usage_sample *to);

#endif /* GPU_USAGE_H */
