/* The library's kernels loaded into a context before a team's first call (kernels.c). */
#ifndef MCOLL_KERNELS_H
#define MCOLL_KERNELS_H

/* Once per context (the current one): every function of every kernel module of the library. */
void mcoll_kernels_load(void);

#endif /* MCOLL_KERNELS_H */
