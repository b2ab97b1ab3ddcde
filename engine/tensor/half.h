// The 16-bit floats' storage formats: float32 <-> bfloat16 / float16 bit patterns.
// PyTorch's CPU kernels load a 16-bit value as float32, compute in float32 and round the result
// back to nearest-even on store; Kiln's eager kernels do the same through these conversions.
#pragma once

#include <cstdint>
#include <cstring>

namespace kiln::tensor {

inline uint32_t floatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

inline float floatFromBits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// bfloat16 is float32's upper half: widening is exact.
inline float bf16ToFloat(uint16_t h) { return floatFromBits(static_cast<uint32_t>(h) << 16); }

// Round to nearest, ties to even; NaN becomes the canonical quiet NaN (c10's
// round_to_nearest_even does both).
inline uint16_t floatToBf16(float f) {
  if (f != f) return 0x7FC0;
  uint32_t u = floatBits(f);
  u += 0x7FFF + ((u >> 16) & 1);
  return static_cast<uint16_t>(u >> 16);
}

// IEEE binary16: 1 sign, 5 exponent (bias 15), 10 mantissa bits. Widening is exact.
inline float f16ToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
  const uint32_t exp = (h >> 10) & 0x1F, man = h & 0x3FF;
  if (exp == 0x1F) return floatFromBits(sign | 0x7F800000 | (man << 13));  // inf, NaN
  if (exp == 0) {
    // zero or subnormal: man * 2^-24, exact in float32
    float v = static_cast<float>(man) * 5.9604644775390625e-08f;
    return sign ? -v : v;
  }
  return floatFromBits(sign | ((exp + 112) << 23) | (man << 13));
}

// Round to nearest, ties to even; overflow gives infinity, NaN stays NaN (quiet).
inline uint16_t floatToF16(float f) {
  const uint32_t u = floatBits(f);
  const uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000);
  const uint32_t a = u & 0x7FFFFFFF;
  if (a > 0x7F800000) return sign | 0x7E00 | static_cast<uint16_t>((a >> 13) & 0x3FF);  // NaN
  if (a >= 0x477FF000) return sign | 0x7C00;                                            // >= 65520 rounds to infinity (inf included)
  if (a < 0x38800000) {
    // Below 2^-14: a subnormal half. Scale to units of 2^-24 and round to nearest even; the
    // float32 addition of 0.5 (2^-1) performs exactly that rounding on the integer part.
    const float scaled = floatFromBits(a) * 16777216.0f;  // exact: a power-of-two scale
    const float r = scaled + 8388608.0f;                  // 2^23: rounds to an integer, ties even
    return sign | static_cast<uint16_t>(floatBits(r) - floatBits(8388608.0f));
  }
  // Normal: rebias the exponent (127 -> 15) and round the 13 dropped mantissa bits.
  uint32_t v = a - (112u << 23);
  v += 0xFFF + ((v >> 13) & 1);
  return sign | static_cast<uint16_t>(v >> 13);
}

}  // namespace kiln::tensor
