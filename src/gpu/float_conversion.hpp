// float ↔ fp16 / bf16 / fp8 e4m3 and e5m2 bit conversions on the host, round-to-nearest-even, for
// generating 16-bit and 8-bit inputs and reading 16-bit outputs back without device code.
#pragma once

#include <cstdint>

namespace gemmtune {

/// IEEE binary16 bits of `f`, rounded to nearest even; overflow gives ±inf, NaN stays NaN.
std::uint16_t float_to_half(float f);
/// The float value of binary16 bits (exact: every half is a float).
float half_to_float(std::uint16_t h);
/// bfloat16 bits of `f`, rounded to nearest even; NaN stays a (quiet) NaN.
std::uint16_t float_to_bfloat16(float f);
/// The float value of bfloat16 bits (exact).
float bfloat16_to_float(std::uint16_t b);
/// FP8 e4m3 bits (1 sign, 4 exponent bits of bias 7, 3 mantissa bits; no infinities, S.1111.111
/// is NaN) of `f`, rounded to nearest even; magnitudes past the largest finite value (448)
/// saturate to ±448, as cvt.satfinite does; NaN gives 0x7f.
std::uint8_t float_to_e4m3(float f);
/// The float value of e4m3 bits (exact).
float e4m3_to_float(std::uint8_t b);
/// FP8 e5m2 bits (1 sign, 5 exponent bits of bias 15, 2 mantissa bits; IEEE-style infinities
/// and NaNs) of `f`, rounded to nearest even; magnitudes past the largest finite value (57344)
/// saturate to ±57344, as cvt.satfinite does; NaN gives 0x7f.
std::uint8_t float_to_e5m2(float f);
/// The float value of e5m2 bits (exact; ±inf and NaN as encoded).
float e5m2_to_float(std::uint8_t b);

}  // namespace gemmtune
