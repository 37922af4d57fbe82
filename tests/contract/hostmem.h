/* Host buffers as a colltest_mem, beside the contract driver's "device" ones (devmem.h). */
#ifndef MCOLL_TEST_HOSTMEM_H
#define MCOLL_TEST_HOSTMEM_H

#include <stdlib.h>
#include <string.h>
#include "common/colltest.h"

static void *h_alloc(size_t n) { return malloc(n ? n : 1); }
static void h_release(void *p) { free(p); }
static void h_copy(void *d, const void *s, size_t n) { memcpy(d, s, n); }
static const colltest_mem host_mem = {h_alloc, h_release, h_copy, h_copy};

#endif /* MCOLL_TEST_HOSTMEM_H */
