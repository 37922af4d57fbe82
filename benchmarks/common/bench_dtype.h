/* Datatypes the benchmarks run, and the values they put in buffers.
 *
 * Element i of rank r's input for check `seed` is  b(i) + r  with  b(i) = (i + 7*seed) % 13 + 1:
 * small integers, so a sum over ranks (n*b(i) + n(n-1)/2) stays exact in every type for thousands
 * of ranks and has a closed form (checking 1 GiB costs one pass). Different seeds give different
 * values at every index, so a result left over from an earlier input is caught. 8-bit types wrap
 * and are compared modulo 256, as MPI's sum on them wraps. */
#ifndef BENCH_DTYPE_H
#define BENCH_DTYPE_H

#include <stddef.h>
#include <mpi.h>

typedef enum {
    BENCH_T_CHAR, BENCH_T_INT8, BENCH_T_UINT8, BENCH_T_INT, BENCH_T_UNSIGNED, BENCH_T_LONG,
    BENCH_T_INT64, BENCH_T_UINT64, BENCH_T_FLOAT, BENCH_T_DOUBLE
} bench_type;

typedef struct {
    bench_type type;
    const char *name;      /* "float": what -T / --datatype accept (also "mpi_float", "MPI_FLOAT") */
    const char *mpi_name;  /* "MPI_FLOAT" */
    const char *nccl_name; /* "float", "int32": nccl-tests' name of the same type, for its type column */
    size_t size;           /* bytes per element */
} bench_dtype;

/* NULL when `name` is not a known type. Accepts the names above, the MPI names in any case,
 * and nccl-tests' names (int32 for int, uint32 for unsigned; int8 and uint8 are types of their
 * own: MPI_INT8_T and MPI_UINT8_T). */
const bench_dtype *bench_dtype_find(const char *name);
/* The accepted names, for usage texts: "char, int, ..." */
const char *bench_dtype_names(void);
MPI_Datatype bench_dtype_mpi(const bench_dtype *t);

/* Write elements [first, first + n) of the sequence  mul * b(i) + add  into buf (n elements). */
void bench_dtype_fill(const bench_dtype *t, void *buf, size_t n, size_t first, long long mul,
                      long long add, int seed);

/* How many of buf's n elements differ from elements [first, first + n) of that sequence. */
size_t bench_dtype_wrong(const bench_dtype *t, const void *buf, size_t n, size_t first, long long mul,
                         long long add, int seed);

#endif /* BENCH_DTYPE_H */
