/* Test buffers with guard zones.
 *
 * Each buffer is one allocation (cudaMalloc for device buffers, malloc for host ones) laid out as
 *   [ guard: DEVBUF_GUARD bytes + offset ][ data: bytes ][ guard: DEVBUF_GUARD bytes ]
 * The guards hold DEVBUF_CANARY; a collective that writes outside its buffer changes them.
 * `offset` shifts the data off the allocation's alignment (one element for unaligned cases).
 * Outputs are poisoned with DEVBUF_POISON (a NaN in every float format) before each call.
 * CUDA errors are recorded as fatal failures of the current case. */
#ifndef GPU_DEVBUF_H
#define GPU_DEVBUF_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#define DEVBUF_GUARD 256
#define DEVBUF_CANARY 0xA5
#define DEVBUF_POISON 0xFF

typedef enum { MEM_DEVICE, MEM_HOST } mem_kind;

typedef struct {
    mem_kind kind;
    unsigned char *base;
    size_t lead;    /* bytes before data: DEVBUF_GUARD + offset */
    size_t bytes;   /* data bytes */
    size_t total;
    void *data;
} devbuf;

/* Where device buffers come from: cudaMalloc, unless a program sets another source
 * (gpu_memory: windows of mcoll_mem_alloc, registered and imported memory). get returns NULL
 * (with the failure recorded) when it has no room. */
typedef struct {
    void *(*get)(size_t bytes);
    void (*put)(void *p);
} devbuf_source;
/* NULL: cudaMalloc again. */
void devbuf_use(const devbuf_source *source);

/* 0, or -1 with the failure recorded. The whole allocation is filled with the canary. */
int devbuf_alloc(devbuf *b, mem_kind kind, size_t bytes, size_t offset);
void devbuf_free(devbuf *b);

/* Copy into / out of the data area at byte offset `at`; 0 or -1 (recorded). */
int devbuf_put(devbuf *b, size_t at, const void *src, size_t n);
int devbuf_get(const devbuf *b, size_t at, void *dst, size_t n);
/* Fill n bytes of the data area at `at` with DEVBUF_POISON. */
int devbuf_poison(devbuf *b, size_t at, size_t n);
/* 0 when both guards still hold the canary; otherwise -1 with the failure recorded, `what`
 * naming the buffer. */
int devbuf_check_guards(const devbuf *b, const char *what);

/* Record a CUDA error (fatal) with what was being done; returns 0 for success, -1 otherwise. */
int cuda_check(cudaError_t err, const char *what);

#endif /* GPU_DEVBUF_H */
