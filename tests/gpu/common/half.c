/* 16-bit float conversions; see half.h. */
#include <math.h>
#include <string.h>
#include "half.h"

static uint32_t bits_of(float f)
{
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    return x;
}

static float float_of(uint32_t x)
{
    float f;
    memcpy(&f, &x, sizeof f);
    return f;
}

uint16_t half_from_float(float f)
{
    uint32_t x = bits_of(f);
    uint32_t sign = (x >> 16) & 0x8000u, exponent = (x >> 23) & 0xffu, mantissa = x & 0x7fffffu;
    int e = (int)exponent - 127 + 15;
    uint32_t h, rest, half_way;
    int shift;

    if (exponent == 0xffu) return (uint16_t)(sign | 0x7c00u | (mantissa ? 0x200u | (mantissa >> 13) : 0));
    if (e >= 0x1f) return (uint16_t)(sign | 0x7c00u); /* overflow: infinity */
    if (e <= 0) {                                    /* subnormal or zero */
        if (e < -10) return (uint16_t)sign;
        mantissa |= 0x800000u;
        shift = 14 - e;
        h = mantissa >> shift;
        rest = mantissa & ((1u << shift) - 1);
        half_way = 1u << (shift - 1);
        if (rest > half_way || (rest == half_way && (h & 1u))) h++;
        return (uint16_t)(sign | h);
    }
    h = sign | ((uint32_t)e << 10) | (mantissa >> 13);
    rest = mantissa & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) h++; /* a carry into the exponent is right */
    return (uint16_t)h;
}

float half_to_float(uint16_t h)
{
    uint32_t sign = ((uint32_t)h & 0x8000u) << 16, exponent = (h >> 10) & 0x1fu, mantissa = h & 0x3ffu;
    float magnitude;
    if (exponent == 0x1f) return float_of(sign | 0x7f800000u | (mantissa << 13));
    if (exponent == 0) {
        magnitude = ldexpf((float)mantissa, -24);
        return sign ? -magnitude : magnitude;
    }
    return float_of(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

uint16_t bf16_from_float(float f)
{
    uint32_t x = bits_of(f);
    if ((x & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((x >> 16) | 0x40u); /* keep NaN a NaN */
    x += 0x7fffu + ((x >> 16) & 1u);
    return (uint16_t)(x >> 16);
}

float bf16_to_float(uint16_t b) { return float_of((uint32_t)b << 16); }
