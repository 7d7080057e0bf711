// Host-side input generation: std::mt19937_64 seeded from (seed, stream) so A, B and C of one
// problem draw independent sequences, and the element-type conversions.
#include "src/gpu/host_inputs.hpp"

#include <algorithm>
#include <cstring>
#include <random>

#include "src/gpu/float_conversion.hpp"
#include "src/gpu/host_parallel.hpp"

namespace gemmtune {
namespace {

std::mt19937_64 make_engine(std::uint64_t seed, std::uint64_t stream) {
  std::seed_seq seq{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32),
                    static_cast<std::uint32_t>(stream), static_cast<std::uint32_t>(stream >> 32)};
  return std::mt19937_64(seq);
}

}  // namespace

std::vector<float> random_normal(std::size_t count, std::uint64_t seed, std::uint64_t stream) {
  auto engine = make_engine(seed, stream);
  std::normal_distribution<float> dist(0.0f, 1.0f);
  std::vector<float> out(count);
  for (float& v : out) v = dist(engine);
  return out;
}

std::vector<float> random_small_integers(std::size_t count, std::uint64_t seed,
                                         std::uint64_t stream, int max_abs) {
  auto engine = make_engine(seed, stream);
  std::uniform_int_distribution<int> dist(-max_abs, max_abs);
  std::vector<float> out(count);
  for (float& v : out) v = static_cast<float>(dist(engine));
  return out;
}

std::vector<std::byte> to_storage(std::span<float const> values, Precision p) {
  std::size_t const e = static_cast<std::size_t>(input_bytes(p));
  std::vector<std::byte> out(values.size() * e);
  if (p == Precision::kFP32 || p == Precision::kTF32) {
    std::memcpy(out.data(), values.data(), out.size());
    return out;
  }
  if (is_fp8(p)) {
    for (std::size_t i = 0; i < values.size(); ++i) {
      out[i] = static_cast<std::byte>(a_is_e5m2(p) ? float_to_e5m2(values[i])
                                                   : float_to_e4m3(values[i]));
    }
    return out;
  }
  for (std::size_t i = 0; i < values.size(); ++i) {
    std::uint16_t const bits =
        p == Precision::kFP16 ? float_to_half(values[i]) : float_to_bfloat16(values[i]);
    std::memcpy(out.data() + i * e, &bits, e);
  }
  return out;
}

std::vector<float> from_storage(std::span<std::byte const> bytes, Precision p) {
  std::vector<float> out(bytes.size() / static_cast<std::size_t>(input_bytes(p)));
  from_storage_into(bytes, p, out, host_threads());
  return out;
}

void from_storage_into(std::span<std::byte const> bytes, Precision p, std::span<float> out,
                       int threads) {
  std::size_t const e = static_cast<std::size_t>(input_bytes(p));
  std::size_t const count = std::min(out.size(), bytes.size() / e);
  parallel_ranges(count, threads, [&](std::size_t begin, std::size_t end) {
    if (p == Precision::kFP32 || p == Precision::kTF32) {
      std::memcpy(out.data() + begin, bytes.data() + begin * e, (end - begin) * e);
      return;
    }
    if (is_fp8(p)) {
      for (std::size_t i = begin; i < end; ++i) {
        auto const b = static_cast<std::uint8_t>(bytes[i]);
        out[i] = a_is_e5m2(p) ? e5m2_to_float(b) : e4m3_to_float(b);
      }
      return;
    }
    for (std::size_t i = begin; i < end; ++i) {
      std::uint16_t bits;
      std::memcpy(&bits, bytes.data() + i * e, e);
      out[i] = p == Precision::kFP16 ? half_to_float(bits) : bfloat16_to_float(bits);
    }
  });
}

std::vector<std::byte> abs_storage(std::span<std::byte const> bytes, Precision p) {
  std::vector<std::byte> out(bytes.begin(), bytes.end());
  std::size_t const e = static_cast<std::size_t>(input_bytes(p));
  // Little-endian: the sign bit is the top bit of each element's last byte.
  for (std::size_t i = e - 1; i < out.size(); i += e) out[i] &= std::byte{0x7f};
  return out;
}

}  // namespace gemmtune
