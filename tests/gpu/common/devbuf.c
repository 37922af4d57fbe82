/* Test buffers with guard zones; see devbuf.h. */
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>
#include "devbuf.h"
#include "reference.h"
#include "report.h"

int cuda_check(cudaError_t err, const char *what)
{
    if (err == cudaSuccess) return 0;
    case_fatal("%s: %s (%s)", what, cudaGetErrorString(err), cudaGetErrorName(err));
    return -1;
}

static const devbuf_source *source;

void devbuf_use(const devbuf_source *s) { source = s; }

int devbuf_alloc(devbuf *b, mem_kind kind, size_t bytes, size_t offset)
{
    memset(b, 0, sizeof *b);
    b->kind = kind;
    b->lead = DEVBUF_GUARD + offset;
    b->bytes = bytes;
    b->total = b->lead + bytes + DEVBUF_GUARD;
    if (kind == MEM_HOST) {
        b->base = malloc(b->total);
        if (!b->base) {
            case_fail("out of host memory for a %zu-byte buffer", b->total);
            return -1;
        }
        memset(b->base, DEVBUF_CANARY, b->total);
    } else {
        void *p = NULL;
        if (source) {
            if (!(p = source->get(b->total))) return -1;
        } else if (cuda_check(cudaMalloc(&p, b->total), "cudaMalloc")) {
            return -1;
        }
        b->base = p;
        if (cuda_check(cudaMemset(b->base, DEVBUF_CANARY, b->total), "cudaMemset (guards)")) {
            devbuf_free(b);
            return -1;
        }
    }
    b->data = b->base + b->lead;
    return 0;
}

void devbuf_free(devbuf *b)
{
    if (!b->base) return;
    if (b->kind == MEM_HOST) free(b->base);
    else if (source) source->put(b->base);
    else cudaFree(b->base);
    b->base = NULL;
    b->data = NULL;
}

int devbuf_put(devbuf *b, size_t at, const void *src, size_t n)
{
    if (!n) return 0;
    if (b->kind == MEM_HOST) {
        memcpy(b->base + b->lead + at, src, n);
        return 0;
    }
    return cuda_check(cudaMemcpy(b->base + b->lead + at, src, n, cudaMemcpyHostToDevice), "cudaMemcpy to the GPU");
}

int devbuf_get(const devbuf *b, size_t at, void *dst, size_t n)
{
    if (!n) return 0;
    if (b->kind == MEM_HOST) {
        memcpy(dst, b->base + b->lead + at, n);
        return 0;
    }
    return cuda_check(cudaMemcpy(dst, b->base + b->lead + at, n, cudaMemcpyDeviceToHost), "cudaMemcpy from the GPU");
}

int devbuf_poison(devbuf *b, size_t at, size_t n)
{
    if (!n) return 0;
    if (b->kind == MEM_HOST) {
        memset(b->base + b->lead + at, DEVBUF_POISON, n);
        return 0;
    }
    return cuda_check(cudaMemset(b->base + b->lead + at, DEVBUF_POISON, n), "cudaMemset (poison)");
}

static int check_zone(const devbuf *b, size_t at, size_t n, const char *what, const char *where)
{
    unsigned char *copy = malloc(n);
    char why[160];
    int rc = 0;
    if (!copy) return 0;
    if (b->kind == MEM_HOST) memcpy(copy, b->base + at, n);
    else if (cuda_check(cudaMemcpy(copy, b->base + at, n, cudaMemcpyDeviceToHost), "cudaMemcpy (guard)")) rc = -1;
    if (!rc && ref_check_fill(copy, DEVBUF_CANARY, n, why, sizeof why)) {
        case_fail("%s was written %s its data: %s", what, where, why);
        rc = -1;
    }
    free(copy);
    return rc;
}

int devbuf_check_guards(const devbuf *b, const char *what)
{
    if (!b->base) return 0;
    if (check_zone(b, 0, b->lead, what, "before")) return -1;
    return check_zone(b, b->lead + b->bytes, DEVBUF_GUARD, what, "after");
}
