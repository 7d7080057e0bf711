// Bit-level fp16 / bf16 conversions. Written out rather than taken from cuda_fp16.h so the
// host pieces stay plain C++ and the rounding is tested here against known values.
#include "src/gpu/float_conversion.hpp"

#include <bit>
#include <cmath>

namespace gemmtune {

std::uint16_t float_to_half(float f) {
  std::uint32_t const x = std::bit_cast<std::uint32_t>(f);
  auto const sign = static_cast<std::uint16_t>((x >> 16) & 0x8000u);
  std::uint32_t const abs_bits = x & 0x7fffffffu;
  if (abs_bits >= 0x7f800000u) {  // inf or NaN; keep NaN quiet and non-zero
    if (abs_bits == 0x7f800000u) return static_cast<std::uint16_t>(sign | 0x7c00u);
    return static_cast<std::uint16_t>(sign | 0x7e00u | ((abs_bits >> 13) & 0x3ffu));
  }
  if (abs_bits >= 0x477ff000u) {  // ≥ 65520 = 65504 + half an ulp: ties to even go up to inf
    return static_cast<std::uint16_t>(sign | 0x7c00u);
  }
  if (abs_bits >= 0x38800000u) {  // normal half (≥ 2^-14): re-bias 127 → 15, round 13 bits
    std::uint32_t const rounded = abs_bits + 0xfffu + ((abs_bits >> 13) & 1u);
    return static_cast<std::uint16_t>(sign | ((rounded - 0x38000000u) >> 13));
  }
  if (abs_bits < 0x33000000u) return sign;  // below 2^-25: rounds to ±0
  // Subnormal half: value = m·2^-24. With the implicit bit, m = mantissa >> (126 − exponent).
  std::uint32_t const mantissa = (abs_bits & 0x7fffffu) | 0x800000u;
  std::uint32_t const shift = 126u - (abs_bits >> 23);  // 14 … 24
  std::uint32_t result = mantissa >> shift;
  std::uint32_t const rest = mantissa & ((1u << shift) - 1u);
  std::uint32_t const half_way = 1u << (shift - 1u);
  if (rest > half_way || (rest == half_way && (result & 1u))) ++result;  // may carry to 0x400
  return static_cast<std::uint16_t>(sign | result);
}

float half_to_float(std::uint16_t h) {
  std::uint32_t const sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  std::uint32_t const exponent = (h >> 10) & 0x1fu;
  std::uint32_t const mantissa = h & 0x3ffu;
  if (exponent == 0) {
    float const magnitude = std::ldexp(static_cast<float>(mantissa), -24);
    return sign ? -magnitude : magnitude;
  }
  if (exponent == 31) return std::bit_cast<float>(sign | 0x7f800000u | (mantissa << 13));
  return std::bit_cast<float>(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

std::uint16_t float_to_bfloat16(float f) {
  std::uint32_t const x = std::bit_cast<std::uint32_t>(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((x >> 16) | 0x40u);
  // Adding 0x7fff plus the kept lsb rounds to nearest even; overflow lands on inf as it should.
  std::uint32_t const rounded = x + 0x7fffu + ((x >> 16) & 1u);
  return static_cast<std::uint16_t>(rounded >> 16);
}

float bfloat16_to_float(std::uint16_t b) {
  return std::bit_cast<float>(static_cast<std::uint32_t>(b) << 16);
}

}  // namespace gemmtune
