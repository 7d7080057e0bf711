// DeviceBuffer: RAII cudaMalloc with optional guard bands before and after the data, filled
// with a sentinel and checked after a run, so out-of-bounds writes that land inside the
// allocation (and never fault) are still caught.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include <cuda_runtime_api.h>

namespace gemmtune {

/// Bytes of each guard band around verified buffers.
inline constexpr std::size_t kGuardBytes = 4096;
/// The byte the guard bands are filled with.
inline constexpr unsigned char kGuardSentinel = 0xA5;

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  /// Allocates `bytes` of data with `guard_bytes` before and after it (a multiple of 256, so
  /// the data keeps cudaMalloc's alignment). Throws CudaFailure when the allocation fails.
  explicit DeviceBuffer(std::size_t bytes, std::size_t guard_bytes = 0);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(DeviceBuffer const&) = delete;
  DeviceBuffer& operator=(DeviceBuffer const&) = delete;

  void* data() const { return data_; }
  std::size_t bytes() const { return bytes_; }
  bool empty() const { return base_ == nullptr; }

  /// Writes the sentinel into both guard bands (asynchronously on `stream`).
  void fill_guards(cudaStream_t stream) const;
  /// Copies the guard bands back (synchronous) and names the first damaged one, e.g.
  /// "guard band after C overwritten at byte 12"; nullopt when both are intact.
  std::optional<std::string> check_guards(std::string const& name) const;

 private:
  void release() noexcept;
  void* base_ = nullptr;
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
  std::size_t guard_ = 0;
};

}  // namespace gemmtune
