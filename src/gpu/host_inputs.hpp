// Seeded GEMM inputs generated on the host (normal values for the tolerance pass, small
// integers for the exact pass) and the float ↔ storage-type conversions around them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "src/core/precision.hpp"

namespace gemmtune {

/// `count` standard-normal values from (seed, stream); the same arguments give the same values.
std::vector<float> random_normal(std::size_t count, std::uint64_t seed, std::uint64_t stream);
/// `count` integers uniform in [−max_abs, max_abs] as floats, from (seed, stream).
std::vector<float> random_small_integers(std::size_t count, std::uint64_t seed,
                                         std::uint64_t stream, int max_abs);

/// The bytes of `values` in the input storage type of `p` (float for fp32/tf32; fp16/bf16/e4m3
/// rounded to nearest even, e4m3 saturating). C of an e4m3 problem is stored as
/// output_precision(p), so pass that for C.
std::vector<std::byte> to_storage(std::span<float const> values, Precision p);
/// The values of storage-type bytes as floats (exact).
std::vector<float> from_storage(std::span<std::byte const> bytes, Precision p);
/// The same into `out` (one float per element of `bytes`), converted on up to `threads` threads.
void from_storage_into(std::span<std::byte const> bytes, Precision p, std::span<float> out,
                       int threads);
/// The same storage bytes with every element's sign cleared (|x|, exact in every type).
std::vector<std::byte> abs_storage(std::span<std::byte const> bytes, Precision p);

}  // namespace gemmtune
