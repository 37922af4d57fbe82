/* Datatype table and value sequence; see bench_dtype.h. */
#include "bench_dtype.h"

#include <stdint.h>
#include <string.h>
#include <strings.h>

static const bench_dtype table[] = {
    { BENCH_T_CHAR, "char", "MPI_CHAR", "int8", 1 },
    { BENCH_T_INT8, "int8", "MPI_INT8_T", "int8", 1 },
    { BENCH_T_UINT8, "uint8", "MPI_UINT8_T", "uint8", 1 },
    { BENCH_T_INT, "int", "MPI_INT", "int32", sizeof(int) },
    { BENCH_T_UNSIGNED, "unsigned", "MPI_UNSIGNED", "uint32", sizeof(unsigned) },
    { BENCH_T_LONG, "long", "MPI_LONG", sizeof(long) == 8 ? "int64" : "int32", sizeof(long) },
    { BENCH_T_INT64, "int64", "MPI_INT64_T", "int64", 8 },
    { BENCH_T_UINT64, "uint64", "MPI_UINT64_T", "uint64", 8 },
    { BENCH_T_FLOAT, "float", "MPI_FLOAT", "float", sizeof(float) },
    { BENCH_T_DOUBLE, "double", "MPI_DOUBLE", "double", sizeof(double) },
};
#define NTYPES (sizeof table / sizeof table[0])

const bench_dtype *bench_dtype_find(const char *name)
{
    if (!name)
        return NULL;
    if (strncasecmp(name, "mpi_", 4) == 0) {
        for (size_t i = 0; i < NTYPES; i++)
            if (strcasecmp(name, table[i].mpi_name) == 0)
                return &table[i];
        return NULL;
    }
    for (size_t i = 0; i < NTYPES; i++)
        if (strcasecmp(name, table[i].name) == 0)
            return &table[i];
    if (strcasecmp(name, "int32") == 0)
        return bench_dtype_find("int");
    if (strcasecmp(name, "uint32") == 0)
        return bench_dtype_find("unsigned");
    return NULL;
}

const char *bench_dtype_names(void)
{
    return "char int8 uint8 int unsigned long int64 uint64 float double";
}

MPI_Datatype bench_dtype_mpi(const bench_dtype *t)
{
    switch (t->type) {
    case BENCH_T_CHAR: return MPI_CHAR;
    case BENCH_T_INT8: return MPI_INT8_T;
    case BENCH_T_UINT8: return MPI_UINT8_T;
    case BENCH_T_INT: return MPI_INT;
    case BENCH_T_UNSIGNED: return MPI_UNSIGNED;
    case BENCH_T_LONG: return MPI_LONG;
    case BENCH_T_INT64: return MPI_INT64_T;
    case BENCH_T_UINT64: return MPI_UINT64_T;
    case BENCH_T_FLOAT: return MPI_FLOAT;
    case BENCH_T_DOUBLE: return MPI_DOUBLE;
    }
    return MPI_DATATYPE_NULL;
}

/* b(first) - 1: where the period-13 sequence starts. */
static unsigned phase(size_t first, int seed)
{
    return (unsigned)((first % 13 + 7u * (unsigned)seed % 13) % 13);
}

/* One loop per type keeps the per-element work to an add and a compare. The 8-bit type is kept
 * as unsigned char and its values reduced modulo 256, which is what a wrapping sum produces. */
#define FILL_LOOP(T, CONV)                                      \
    do {                                                        \
        T *p = buf;                                             \
        for (size_t j = 0; j < n; j++) {                        \
            p[j] = CONV(mul * (long long)(k + 1) + add);        \
            if (++k == 13)                                      \
                k = 0;                                          \
        }                                                       \
    } while (0)

#define WRONG_LOOP(T, CONV)                                     \
    do {                                                        \
        const T *p = buf;                                       \
        for (size_t j = 0; j < n; j++) {                        \
            T want = CONV(mul * (long long)(k + 1) + add);      \
            bad += (p[j] != want);                              \
            if (++k == 13)                                      \
                k = 0;                                          \
        }                                                       \
    } while (0)

#define AS_BYTE(x) ((unsigned char)((unsigned long long)(x) & 0xffu))
#define AS_INT(x) ((int)(x))
#define AS_UNSIGNED(x) ((unsigned)(x))
#define AS_LONG(x) ((long)(x))
#define AS_INT64(x) ((int64_t)(x))
#define AS_UINT64(x) ((uint64_t)(x))
#define AS_FLOAT(x) ((float)(x))
#define AS_DOUBLE(x) ((double)(x))

void bench_dtype_fill(const bench_dtype *t, void *buf, size_t n, size_t first, long long mul,
                      long long add, int seed)
{
    unsigned k = phase(first, seed);
    switch (t->type) {
    case BENCH_T_CHAR:
    case BENCH_T_INT8:
    case BENCH_T_UINT8: FILL_LOOP(unsigned char, AS_BYTE); break;
    case BENCH_T_INT: FILL_LOOP(int, AS_INT); break;
    case BENCH_T_UNSIGNED: FILL_LOOP(unsigned, AS_UNSIGNED); break;
    case BENCH_T_LONG: FILL_LOOP(long, AS_LONG); break;
    case BENCH_T_INT64: FILL_LOOP(int64_t, AS_INT64); break;
    case BENCH_T_UINT64: FILL_LOOP(uint64_t, AS_UINT64); break;
    case BENCH_T_FLOAT: FILL_LOOP(float, AS_FLOAT); break;
    case BENCH_T_DOUBLE: FILL_LOOP(double, AS_DOUBLE); break;
    }
}

size_t bench_dtype_wrong(const bench_dtype *t, const void *buf, size_t n, size_t first, long long mul,
                         long long add, int seed)
{
    unsigned k = phase(first, seed);
    size_t bad = 0;
    switch (t->type) {
    case BENCH_T_CHAR:
    case BENCH_T_INT8:
    case BENCH_T_UINT8: WRONG_LOOP(unsigned char, AS_BYTE); break;
    case BENCH_T_INT: WRONG_LOOP(int, AS_INT); break;
    case BENCH_T_UNSIGNED: WRONG_LOOP(unsigned, AS_UNSIGNED); break;
    case BENCH_T_LONG: WRONG_LOOP(long, AS_LONG); break;
    case BENCH_T_INT64: WRONG_LOOP(int64_t, AS_INT64); break;
    case BENCH_T_UINT64: WRONG_LOOP(uint64_t, AS_UINT64); break;
    case BENCH_T_FLOAT: WRONG_LOOP(float, AS_FLOAT); break;
    case BENCH_T_DOUBLE: WRONG_LOOP(double, AS_DOUBLE); break;
    }
    return bad;
}
