// Rotation pool construction: set 0 is filled from the inputs, then the filled prefix is
// copied onto the rest doubling each time, so even 100k tiny sets take ~17 copies.
#include "src/gpu/rotation_pool.hpp"

#include <algorithm>

#include "src/launch/cuda_errors.hpp"

namespace gemmtune {
namespace {

constexpr std::size_t kSetAlign = 256;
constexpr std::int64_t kMaxSets = std::int64_t{1} << 20;

std::size_t round_up(std::size_t v) { return (v + kSetAlign - 1) / kSetAlign * kSetAlign; }

}  // namespace

RotationPool::RotationPool(Problem const& p, std::int64_t rotate_bytes, void const* a_src,
                           void const* b_src, cudaStream_t stream)
    : rotate_bytes_(rotate_bytes) {
  std::size_t const e = static_cast<std::size_t>(input_bytes(p.precision));
  std::size_t const a_bytes = static_cast<std::size_t>(p.m * p.k) * e;
  std::size_t const b_bytes = static_cast<std::size_t>(p.k * p.n) * e;
  std::size_t const c_bytes =
      static_cast<std::size_t>(p.m * p.n) * static_cast<std::size_t>(output_bytes(p.precision));
  a_offset_ = 0;
  b_offset_ = round_up(a_bytes);
  c_offset_ = b_offset_ + round_up(b_bytes);
  stride_ = c_offset_ + round_up(c_bytes);
  std::int64_t const wanted =
      (std::max<std::int64_t>(rotate_bytes, 0) + static_cast<std::int64_t>(stride_) - 1) /
      static_cast<std::int64_t>(stride_);
  count_ = static_cast<int>(std::clamp<std::int64_t>(wanted, 1, kMaxSets));
  storage_ = DeviceBuffer(stride_ * static_cast<std::size_t>(count_));

  auto* const base = static_cast<unsigned char*>(storage_.data());
  check_cuda(cudaMemcpyAsync(base + a_offset_, a_src, a_bytes, cudaMemcpyDeviceToDevice, stream),
             "cudaMemcpyAsync (rotation A)");
  check_cuda(cudaMemcpyAsync(base + b_offset_, b_src, b_bytes, cudaMemcpyDeviceToDevice, stream),
             "cudaMemcpyAsync (rotation B)");
  check_cuda(cudaMemsetAsync(base + c_offset_, 0, c_bytes, stream), "cudaMemsetAsync (rotation C)");
  for (int have = 1; have < count_;) {
    int const add = std::min(have, count_ - have);
    check_cuda(cudaMemcpyAsync(base + stride_ * static_cast<std::size_t>(have), base,
                               stride_ * static_cast<std::size_t>(add), cudaMemcpyDeviceToDevice,
                               stream),
               "cudaMemcpyAsync (rotation sets)");
    have += add;
  }
  check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize (rotation pool)");
}

GemmPointers RotationPool::set(int i) const {
  auto* const base =
      static_cast<unsigned char*>(storage_.data()) + stride_ * static_cast<std::size_t>(i);
  return {base + a_offset_, base + b_offset_, base + c_offset_};
}

}  // namespace gemmtune
