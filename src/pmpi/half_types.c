/* MCOLL_FLOAT16 and MCOLL_BFLOAT16 as MPI datatypes, and their reductions on the host. */
#include <string.h>
#include "half.h"
#include "dtype.h"
#include "typeinfo.h"
#include "log.h"
#include "mcoll.h"

/* Indexed by MCOLL_OPI_MAX, _MIN, _SUM, _PROD (the first four built-in op indices). */
#define HALF_OPS 4
static MPI_Op half_ops[HALF_OPS] = {MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL};

static uint32_t float_bits(float f) { uint32_t u; memcpy(&u, &f, sizeof u); return u; }
static float bits_float(uint32_t u) { float f; memcpy(&f, &u, sizeof f); return f; }

float mcoll_half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu;
    if (exp == 0x1f) return bits_float(sign | 0x7f800000u | mant << 13); /* inf, NaN (payload kept) */
    if (exp == 0) {
        float f = (float)mant * 5.9604644775390625e-8f; /* subnormal: mant * 2^-24, exact */
        return sign ? -f : f;
    }
    return bits_float(sign | (exp + 112) << 23 | mant << 13);
}

uint16_t mcoll_float_to_half(float f)
{
    uint32_t x = float_bits(f), sign = (x >> 16) & 0x8000u, a = x & 0x7fffffffu;
    if (a > 0x7f800000u) return (uint16_t)(sign | 0x7e00u | ((a >> 13) & 0x3ffu)); /* quiet NaN */
    if (a >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u); /* >= 65520 rounds to inf; inf */
    if (a < 0x38800000u) {
        /* Below the smallest normal (2^-14): subnormal, value = m * 2^-24 with m the float's
         * 24-bit significand shifted right by 126 - exponent, rounded to nearest-even. */
        uint32_t e = a >> 23, m = (a & 0x7fffffu) | 0x800000u, shift, q, rem, half;
        if (e < 102) return (uint16_t)sign; /* below 2^-25: rounds to zero */
        shift = 126 - e;
        q = m >> shift;
        rem = m & ((1u << shift) - 1);
        half = 1u << (shift - 1);
        if (rem > half || (rem == half && (q & 1u))) q++;
        return (uint16_t)(sign | q); /* q may carry into the smallest normal: still right */
    }
    a -= 0x38000000u; /* rebias the exponent from 127 to 15 */
    a += 0xfffu + ((a >> 13) & 1u);
    return (uint16_t)(sign | (a >> 13));
}

float mcoll_bf16_to_float(uint16_t h) { return bits_float((uint32_t)h << 16); }

uint16_t mcoll_float_to_bf16(float f)
{
    uint32_t x = float_bits(f);
    if ((x & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((x >> 16) | 0x40u); /* quiet NaN */
    x += 0x7fffu + ((x >> 16) & 1u);
    return (uint16_t)(x >> 16);
}

static int is_nan16(uint16_t h, int bf16)
{
    return bf16 ? (h & 0x7fffu) > 0x7f80u : (h & 0x7fffu) > 0x7c00u;
}

/* minNum/maxNum on the encodings: numbers compare as floats, -0 < +0, a NaN loses. */
static uint16_t pick(uint16_t a, uint16_t b, float fa, float fb, int bf16, int want_max)
{
    if (is_nan16(a, bf16)) return b;
    if (is_nan16(b, bf16)) return a;
    if (fa == fb) return want_max ? (uint16_t)(a & b) : (uint16_t)(a | b); /* differ only in sign of 0 */
    return (fa > fb) == (want_max != 0) ? a : b;
}

void mcoll_half_reduce(int op, int is_bf16, const uint16_t *in, uint16_t *inout, int n)
{
    int i;
    for (i = 0; i < n; i++) {
        float a = is_bf16 ? mcoll_bf16_to_float(in[i]) : mcoll_half_to_float(in[i]);
        float b = is_bf16 ? mcoll_bf16_to_float(inout[i]) : mcoll_half_to_float(inout[i]);
        float r;
        switch (op) {
        case MCOLL_OPI_MAX: inout[i] = pick(in[i], inout[i], a, b, is_bf16, 1); continue;
        case MCOLL_OPI_MIN: inout[i] = pick(in[i], inout[i], a, b, is_bf16, 0); continue;
        case MCOLL_OPI_SUM: r = a + b; break;
        default: r = a * b; break;
        }
        inout[i] = is_bf16 ? mcoll_float_to_bf16(r) : mcoll_float_to_half(r);
    }
}

static void reduce_fn(int op, void *in, void *inout, const int *len, const MPI_Datatype *type)
{
    mcoll_half_reduce(op, *type == MCOLL_BFLOAT16, (const uint16_t *)in, (uint16_t *)inout, *len);
}

static void max_fn(void *in, void *inout, int *len, MPI_Datatype *type) { reduce_fn(MCOLL_OPI_MAX, in, inout, len, type); }
static void min_fn(void *in, void *inout, int *len, MPI_Datatype *type) { reduce_fn(MCOLL_OPI_MIN, in, inout, len, type); }
static void sum_fn(void *in, void *inout, int *len, MPI_Datatype *type) { reduce_fn(MCOLL_OPI_SUM, in, inout, len, type); }
static void prod_fn(void *in, void *inout, int *len, MPI_Datatype *type) { reduce_fn(MCOLL_OPI_PROD, in, inout, len, type); }

MPI_Op mcoll_half_op(MPI_Datatype type, MPI_Op op)
{
    int i;
    if (type == MPI_DATATYPE_NULL || (type != MCOLL_FLOAT16 && type != MCOLL_BFLOAT16)) return op;
    i = mcoll_op_index(op);
    return i >= 0 && i < HALF_OPS ? half_ops[i] : op;
}

static int make_type(MPI_Datatype *type, const char *name)
{
    if (PMPI_Type_contiguous(2, MPI_BYTE, type) != MPI_SUCCESS) return -1;
    PMPI_Type_set_name(*type, name);
    return PMPI_Type_commit(type) == MPI_SUCCESS ? 0 : -1;
}

int mcoll_dtype_init(void)
{
    static MPI_User_function *const fns[HALF_OPS] = {max_fn, min_fn, sum_fn, prod_fn};
    int i;
    if (make_type(&MCOLL_FLOAT16, "MCOLL_FLOAT16") || make_type(&MCOLL_BFLOAT16, "MCOLL_BFLOAT16")) {
        MCOLL_WARN("cannot create the 16-bit float datatypes");
        return MCOLL_ERR_MPI;
    }
    for (i = 0; i < HALF_OPS; i++)
        if (PMPI_Op_create(fns[i], 1, &half_ops[i]) != MPI_SUCCESS) {
            MCOLL_WARN("cannot create the 16-bit float reductions");
            return MCOLL_ERR_MPI;
        }
    return MCOLL_SUCCESS;
}

void mcoll_dtype_finalize(void)
{
    int i;
    for (i = 0; i < HALF_OPS; i++)
        if (half_ops[i] != MPI_OP_NULL) PMPI_Op_free(&half_ops[i]);
    if (MCOLL_FLOAT16 != MPI_DATATYPE_NULL) PMPI_Type_free(&MCOLL_FLOAT16);
    if (MCOLL_BFLOAT16 != MPI_DATATYPE_NULL) PMPI_Type_free(&MCOLL_BFLOAT16);
}
