/* 16-bit floats: conversions (round to nearest-even, subnormals, overflow, inf, NaN) and the
 * host reductions mcoll supplies for MCOLL_FLOAT16 and MCOLL_BFLOAT16. Where the compiler has
 * _Float16, every conversion is also compared with its. */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "half.h"
#include "typeinfo.h"
#include "unit.h"

static float f_of(uint32_t bits) { float f; memcpy(&f, &bits, 4); return f; }
static uint32_t bits_of(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static int is_nan_half(uint16_t h) { return (h & 0x7c00) == 0x7c00 && (h & 0x3ff); }
static int is_nan_bf16(uint16_t h) { return (h & 0x7f80) == 0x7f80 && (h & 0x7f); }

static uint16_t red(int op, int bf, uint16_t a, uint16_t b)
{
    mcoll_half_reduce(op, bf, &a, &b, 1);
    return b;
}

int main(void)
{
    uint32_t h, i;
    uint32_t state = 12345;

    /* float16: exact values, boundaries, rounding */
    CHECK(mcoll_float_to_half(1.0f) == 0x3c00 && mcoll_half_to_float(0x3c00) == 1.0f);
    CHECK(mcoll_float_to_half(-2.0f) == 0xc000 && mcoll_half_to_float(0xc000) == -2.0f);
    CHECK(mcoll_float_to_half(0.0f) == 0x0000 && mcoll_float_to_half(-0.0f) == 0x8000);
    CHECK(mcoll_float_to_half(65504.0f) == 0x7bff && mcoll_half_to_float(0x7bff) == 65504.0f);
    CHECK(mcoll_float_to_half(65519.0f) == 0x7bff);                 /* below the halfway point */
    CHECK(mcoll_float_to_half(65520.0f) == 0x7c00);                 /* halfway: to even, i.e. inf */
    CHECK(mcoll_float_to_half(1e10f) == 0x7c00 && mcoll_float_to_half(-1e10f) == 0xfc00);
    CHECK(mcoll_float_to_half(ldexpf(1, -14)) == 0x0400);           /* smallest normal */
    CHECK(mcoll_float_to_half(ldexpf(1, -24)) == 0x0001);           /* smallest subnormal */
    CHECK(mcoll_half_to_float(0x0001) == ldexpf(1, -24));
    CHECK(mcoll_half_to_float(0x03ff) == ldexpf(1023, -24));         /* largest subnormal */
    CHECK(mcoll_float_to_half(ldexpf(1, -25)) == 0x0000);           /* halfway to 0: even */
    CHECK(mcoll_float_to_half(ldexpf(3, -26)) == 0x0001);           /* above halfway */
    CHECK(mcoll_float_to_half(ldexpf(3, -25)) == 0x0002);           /* 1.5 ulp: to even (2) */
    CHECK(mcoll_float_to_half(ldexpf(1023.5f, -24)) == 0x0400);     /* rounds up into the normals */
    CHECK(mcoll_float_to_half(1.0f + ldexpf(1, -11)) == 0x3c00);    /* halfway: to even */
    CHECK(mcoll_float_to_half(1.0f + ldexpf(3, -11)) == 0x3c02);    /* halfway: to even */
    CHECK(mcoll_float_to_half(1.0f + ldexpf(1, -11) + ldexpf(1, -20)) == 0x3c01);
    CHECK(mcoll_float_to_half(INFINITY) == 0x7c00 && mcoll_float_to_half(-INFINITY) == 0xfc00);
    CHECK(isinf(mcoll_half_to_float(0x7c00)) && mcoll_half_to_float(0xfc00) < 0);
    CHECK(is_nan_half(mcoll_float_to_half(NAN)) && (mcoll_float_to_half(NAN) & 0x0200)); /* quiet */
    CHECK(is_nan_half(mcoll_float_to_half(f_of(0x7f800001)))); /* a signalling NaN stays a NaN */
    CHECK(isnan(mcoll_half_to_float(0x7e00)) && isnan(mcoll_half_to_float(0xfd00)));
    /* Every half value survives the trip through float; NaNs stay NaNs. */
    for (h = 0; h < 0x10000; h++) {
        uint16_t back = mcoll_float_to_half(mcoll_half_to_float((uint16_t)h));
        if (is_nan_half((uint16_t)h)) CHECK(is_nan_half(back));
        else if (back != h) { CHECK(back == h); break; }
    }
#ifdef __FLT16_MAX__
    /* Against the compiler's conversion on every half value, midpoints, and random floats */
    for (h = 0; h < 0x10000; h++) {
        _Float16 x;
        uint16_t hb = (uint16_t)h, want;
        float mid;
        if (is_nan_half(hb) || (h & 0x7fff) >= 0x7bff) continue;
        mid = mcoll_half_to_float(hb) + (mcoll_half_to_float((uint16_t)(hb + 1)) - mcoll_half_to_float(hb)) / 2;
        x = (_Float16)mid;
        memcpy(&want, &x, 2);
        if (mcoll_float_to_half(mid) != want) { CHECK(mcoll_float_to_half(mid) == want); break; }
    }
    for (i = 0; i < 2000000; i++) {
        _Float16 x;
        uint16_t want;
        float f;
        state = state * 1664525u + 1013904223u;
        f = f_of(state);
        if (isnan(f)) continue;
        x = (_Float16)f;
        memcpy(&want, &x, 2);
        if (mcoll_float_to_half(f) != want) { CHECK(mcoll_float_to_half(f) == want); break; }
    }
#endif

    /* bfloat16 */
    CHECK(mcoll_float_to_bf16(1.0f) == 0x3f80 && mcoll_bf16_to_float(0x3f80) == 1.0f);
    CHECK(mcoll_float_to_bf16(-0.0f) == 0x8000);
    CHECK(mcoll_float_to_bf16(1.0f + ldexpf(1, -8)) == 0x3f80);     /* halfway: to even */
    CHECK(mcoll_float_to_bf16(1.0f + ldexpf(3, -8)) == 0x3f82);     /* halfway: to even */
    CHECK(mcoll_float_to_bf16(1.0f + ldexpf(1, -8) + ldexpf(1, -20)) == 0x3f81);
    CHECK(mcoll_float_to_bf16(f_of(0x7f7fffff)) == 0x7f80);          /* FLT_MAX rounds to inf */
    CHECK(mcoll_float_to_bf16(INFINITY) == 0x7f80 && mcoll_float_to_bf16(-INFINITY) == 0xff80);
    CHECK(is_nan_bf16(mcoll_float_to_bf16(NAN)) && is_nan_bf16(mcoll_float_to_bf16(f_of(0x7f800001))));
    CHECK(mcoll_float_to_bf16(f_of(0x00010000)) == 0x0001);          /* subnormals kept */
    for (h = 0; h < 0x10000; h++) {
        uint16_t back = mcoll_float_to_bf16(mcoll_bf16_to_float((uint16_t)h));
        if (is_nan_bf16((uint16_t)h)) CHECK(is_nan_bf16(back));
        else if (back != h) { CHECK(back == h); break; }
        if (bits_of(mcoll_bf16_to_float((uint16_t)h)) != h << 16) { CHECK(0); break; }
    }

    /* Reductions: inout = in op inout, rounded once */
    CHECK(red(MCOLL_OPI_SUM, 0, 0x3c00, 0x4000) == 0x4200);          /* 1 + 2 = 3 */
    CHECK(red(MCOLL_OPI_SUM, 0, 0x6800, 0x3c00) == 0x6800);          /* 2048 + 1: to even */
    CHECK(red(MCOLL_OPI_SUM, 0, 0x6800, 0x4000) == 0x6801);          /* 2048 + 2 */
    CHECK(red(MCOLL_OPI_SUM, 0, 0x7bff, 0x7bff) == 0x7c00);          /* overflow to inf */
    CHECK(is_nan_half(red(MCOLL_OPI_SUM, 0, 0x7c00, 0xfc00)));       /* inf - inf */
    CHECK(is_nan_half(red(MCOLL_OPI_SUM, 0, 0x7e00, 0x3c00)));       /* NaN propagates */
    CHECK(red(MCOLL_OPI_PROD, 0, 0x4200, 0x4200) == 0x4880);         /* 3 * 3 = 9 */
    CHECK(red(MCOLL_OPI_PROD, 0, 0x5d00, 0x5d00) == 0x7c00);         /* 320 * 320: inf */
    CHECK(red(MCOLL_OPI_MAX, 0, 0x3c00, 0x4000) == 0x4000 && red(MCOLL_OPI_MIN, 0, 0x3c00, 0x4000) == 0x3c00);
    CHECK(red(MCOLL_OPI_MAX, 0, 0xc000, 0x3c00) == 0x3c00 && red(MCOLL_OPI_MIN, 0, 0xc000, 0x3c00) == 0xc000);
    CHECK(red(MCOLL_OPI_MAX, 0, 0x7e00, 0x3c00) == 0x3c00 && red(MCOLL_OPI_MAX, 0, 0x3c00, 0x7e00) == 0x3c00);
    CHECK(red(MCOLL_OPI_MIN, 0, 0x7e00, 0xc000) == 0xc000);          /* a NaN loses to a number */
    CHECK(is_nan_half(red(MCOLL_OPI_MIN, 0, 0x7e00, 0x7e00)));
    CHECK(red(MCOLL_OPI_MIN, 0, 0x8000, 0x0000) == 0x8000 && red(MCOLL_OPI_MIN, 0, 0x0000, 0x8000) == 0x8000);
    CHECK(red(MCOLL_OPI_MAX, 0, 0x8000, 0x0000) == 0x0000 && red(MCOLL_OPI_MAX, 0, 0x0000, 0x8000) == 0x0000);
    CHECK(red(MCOLL_OPI_MAX, 0, 0xfc00, 0x7c00) == 0x7c00);          /* infinities order */
    CHECK(red(MCOLL_OPI_SUM, 1, 0x3f80, 0x4000) == 0x4040);          /* bf16: 1 + 2 = 3 */
    CHECK(red(MCOLL_OPI_SUM, 1, 0x4380, 0x3f80) == 0x4380);          /* 256 + 1: to even */
    CHECK(red(MCOLL_OPI_PROD, 1, 0x4040, 0x4040) == 0x4110);         /* 3 * 3 = 9 */
    CHECK(red(MCOLL_OPI_MAX, 1, 0x7fc0, 0x3f80) == 0x3f80 && red(MCOLL_OPI_MIN, 1, 0xbf80, 0x3f80) == 0xbf80);
    CHECK(is_nan_bf16(red(MCOLL_OPI_SUM, 1, 0x7f80, 0xff80)));
    {
        uint16_t in[5] = {0x3c00, 0x4000, 0x4200, 0x4400, 0x4500}, io[5] = {0x3c00, 0x3c00, 0x3c00, 0x3c00, 0x3c00};
        mcoll_half_reduce(MCOLL_OPI_SUM, 0, in, io, 5);
        CHECK(io[0] == 0x4000 && io[1] == 0x4200 && io[2] == 0x4400 && io[3] == 0x4500 && io[4] == 0x4600);
    }
    return unit_exit("test_half");
}
