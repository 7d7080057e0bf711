// float ↔ fp16 / bf16 bit conversions on the host, round-to-nearest-even, for generating 16-bit
// inputs and reading 16-bit outputs back without device code.
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

}  // namespace gemmtune
