/* IEEE binary16 and bfloat16 conversions on the host (C11 has no 16-bit float type).
 * float -> 16 bits rounds to nearest, ties to even; 16 bits -> float is exact. */
#ifndef GPU_HALF_H
#define GPU_HALF_H

#include <stdint.h>

uint16_t half_from_float(float f);
float half_to_float(uint16_t h);
uint16_t bf16_from_float(float f);
float bf16_to_float(uint16_t b);

#endif /* GPU_HALF_H */
