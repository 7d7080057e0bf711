// Bit-level fp16 / bf16 / FP8 (e4m3, e5m2) conversions. Written out rather than taken from
// cuda_fp16.h so the host pieces stay plain C++ and the rounding is tested here against known
// values.
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

namespace {

/// The shape of an FP8 format: mantissa bits, exponent bias, and the largest finite value and
/// its bits (every larger magnitude saturates to it).
struct Fp8Format {
  int mantissa_bits;
  int bias;
  double max_finite;
  std::uint8_t max_code;
};

constexpr Fp8Format kE4m3{3, 7, 448.0, 0x7e};     // 1.75 · 2^8; S.1111.111 is NaN
constexpr Fp8Format kE5m2{2, 15, 57344.0, 0x7b};  // 1.75 · 2^15; exponent 31 is inf and NaN

std::uint8_t float_to_fp8(float f, Fp8Format const& fmt) {
  if (std::isnan(f)) return 0x7f;
  std::uint8_t const sign = std::signbit(f) ? 0x80 : 0x00;
  double const a = std::fabs(static_cast<double>(f));
  if (a >= fmt.max_finite) return sign | fmt.max_code;
  int const min_exponent = 1 - fmt.bias;  // of the smallest normal
  int const steps = 1 << fmt.mantissa_bits;
  int e = 0;
  double const frac = std::frexp(a, &e);  // a = frac · 2^e, frac in [0.5, 1)
  // nearbyint rounds half to even in the default rounding mode.
  if (a == 0.0 || e - 1 < min_exponent) {
    // Subnormal (or zero): m · 2^(min_exponent - mantissa_bits), m = 0 … steps; m = steps is
    // the smallest normal, whose bits are the same.
    auto const m = static_cast<std::uint8_t>(
        std::nearbyint(std::ldexp(a, fmt.mantissa_bits - min_exponent)));
    return sign | m;
  }
  int exponent = e - 1;  // a = 1.f · 2^exponent
  auto q = static_cast<int>(std::nearbyint((frac * 2.0 - 1.0) * steps));
  if (q == steps) {
    q = 0;
    ++exponent;
  }
  int const code = ((exponent + fmt.bias) << fmt.mantissa_bits) | q;
  return sign | static_cast<std::uint8_t>(code > fmt.max_code ? fmt.max_code : code);
}

}  // namespace

std::uint8_t float_to_e4m3(float f) { return float_to_fp8(f, kE4m3); }

float e4m3_to_float(std::uint8_t b) {
  float const sign = (b & 0x80) ? -1.0f : 1.0f;
  int const field = (b >> 3) & 0xf, mantissa = b & 0x7;
  if (field == 15 && mantissa == 7) return std::numeric_limits<float>::quiet_NaN();
  if (field == 0) return sign * std::ldexp(static_cast<float>(mantissa), -9);
  return sign * std::ldexp(1.0f + static_cast<float>(mantissa) / 8.0f, field - 7);
}

std::uint8_t float_to_e5m2(float f) { return float_to_fp8(f, kE5m2); }

float e5m2_to_float(std::uint8_t b) {
  float const sign = (b & 0x80) ? -1.0f : 1.0f;
  int const field = (b >> 2) & 0x1f, mantissa = b & 0x3;
  if (field == 31) {
    return mantissa == 0 ? sign * std::numeric_limits<float>::infinity()
                         : std::numeric_limits<float>::quiet_NaN();
  }
  if (field == 0) return sign * std::ldexp(static_cast<float>(mantissa), -16);
  return sign * std::ldexp(1.0f + static_cast<float>(mantissa) / 4.0f, field - 15);
}

}  // namespace gemmtune
