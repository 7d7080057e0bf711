// PinnedBuffer: RAII page-locked host memory (cudaMallocHost), the staging area that device
// outputs and inputs are read back into for checking, so copies run at full link speed and
// no per-run allocation of the problem's size is made.
#pragma once

#include <cstddef>
#include <span>

namespace gemmtune {

class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  /// Allocates `bytes` of page-locked host memory. Throws CudaFailure when that fails.
  explicit PinnedBuffer(std::size_t bytes);
  ~PinnedBuffer();
  PinnedBuffer(PinnedBuffer&& other) noexcept;
  PinnedBuffer& operator=(PinnedBuffer&& other) noexcept;
  PinnedBuffer(PinnedBuffer const&) = delete;
  PinnedBuffer& operator=(PinnedBuffer const&) = delete;

  std::byte* data() const { return data_; }
  std::size_t bytes() const { return bytes_; }
  /// The first `bytes` bytes (at most bytes()).
  std::span<std::byte> first(std::size_t bytes) const { return {data_, bytes}; }

 private:
  void release() noexcept;
  std::byte* data_ = nullptr;
  std::size_t bytes_ = 0;
};

}  // namespace gemmtune
