// Bit-level fp16 / bf16 / e4m3 conversions. Written out rather than taken from cuda_fp16.h so the
// host pieces stay plain C++ and the rounding is tested here against known values.
#include "src/gpu/float_conversion.hpp"

#include <bit>
#include <cmath>
#include <limits>

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

std::uint8_t float_to_e4m3(float f) {
  if (std::isnan(f)) return 0x7f;
  std::uint8_t const sign = std::signbit(f) ? 0x80 : 0x00;
  double const a = std::fabs(static_cast<double>(f));
  constexpr std::uint8_t kMaxFinite = 0x7e;  // 1.75 · 2^8 = 448
  if (a >= 448.0) return sign | kMaxFinite;
  int e = 0;
  double const frac = std::frexp(a, &e);  // a = frac · 2^e, frac in [0.5, 1)
  // nearbyint rounds half to even in the default rounding mode.
  if (a == 0.0 || e - 1 < -6) {
    // Subnormal (or zero): m · 2^-9, m = 0 … 8; m = 8 is the smallest normal, whose bits are
    // 0x08 as well.
    auto const m = static_cast<std::uint8_t>(std::nearbyint(std::ldexp(a, 9)));
    return sign | m;
  }
  int exponent = e - 1;  // a = 1.f · 2^exponent
  auto q = static_cast<int>(std::nearbyint((frac * 2.0 - 1.0) * 8.0));
  if (q == 8) {
    q = 0;
    ++exponent;
  }
  int const field = exponent + 7;
  if (field > 15 || (field == 15 && q == 7)) return sign | kMaxFinite;
  return static_cast<std::uint8_t>(sign | (field << 3) | q);
}

float e4m3_to_float(std::uint8_t b) {
  float const sign = (b & 0x80) ? -1.0f : 1.0f;
  int const field = (b >> 3) & 0xf, mantissa = b & 0x7;
  if (field == 15 && mantissa == 7) return std::numeric_limits<float>::quiet_NaN();
  if (field == 0) return sign * std::ldexp(static_cast<float>(mantissa), -9);
  return sign * std::ldexp(1.0f + static_cast<float>(mantissa) / 8.0f, field - 7);
}

}  // namespace gemmtune
