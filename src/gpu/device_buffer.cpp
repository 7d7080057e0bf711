// Guarded device allocations. The band after the data starts exactly at data + bytes (not
// rounded up), so a write one element past the end already lands in it.
#include "src/gpu/device_buffer.hpp"

#include <utility>
#include <vector>

#include "src/launch/cuda_errors.hpp"

namespace gemmtune {

DeviceBuffer::DeviceBuffer(std::size_t bytes, std::size_t guard_bytes)
    : bytes_(bytes), guard_(guard_bytes) {
  if (guard_ % 256 != 0) guard_ += 256 - guard_ % 256;
  std::size_t const total = guard_ + (bytes_ == 0 ? 1 : bytes_) + guard_;
  check_cuda(cudaMalloc(&base_, total),
             "cudaMalloc of " + std::to_string(total) + " bytes");
  data_ = static_cast<unsigned char*>(base_) + guard_;
}

DeviceBuffer::~DeviceBuffer() { release(); }

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : base_(std::exchange(other.base_, nullptr)),
      data_(std::exchange(other.data_, nullptr)),
      bytes_(std::exchange(other.bytes_, 0)),
      guard_(std::exchange(other.guard_, 0)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    release();
    base_ = std::exchange(other.base_, nullptr);
    data_ = std::exchange(other.data_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
    guard_ = std::exchange(other.guard_, 0);
  }
  return *this;
}

void DeviceBuffer::release() noexcept {
  // After a sticky fault cudaFree fails too; the process is about to exit, so ignore it.
  if (base_ != nullptr) (void)cudaFree(base_);
  base_ = data_ = nullptr;
}

void DeviceBuffer::fill_guards(cudaStream_t stream) const {
  if (guard_ == 0) return;
  auto* const after = static_cast<unsigned char*>(data_) + bytes_;
  check_cuda(cudaMemsetAsync(base_, kGuardSentinel, guard_, stream), "cudaMemsetAsync (guard)");
  check_cuda(cudaMemsetAsync(after, kGuardSentinel, guard_, stream), "cudaMemsetAsync (guard)");
}

std::optional<std::string> DeviceBuffer::check_guards(std::string const& name) const {
  if (guard_ == 0) return std::nullopt;
  std::vector<unsigned char> host(guard_);
  char const* const where[2] = {"before", "after"};
  void const* const band[2] = {base_, static_cast<unsigned char*>(data_) + bytes_};
  for (int b = 0; b < 2; ++b) {
    check_cuda(cudaMemcpy(host.data(), band[b], guard_, cudaMemcpyDeviceToHost),
               "cudaMemcpy (guard band)");
    for (std::size_t n = 0; n < guard_; ++n) {
      // Scan outwards from the data, so the reported byte is the nearest damaged one.
      std::size_t const i = b == 0 ? guard_ - 1 - n : n;
      if (host[i] != kGuardSentinel) {
        std::size_t const offset = b == 0 ? guard_ - i : i;
        return "guard band " + std::string(where[b]) + " " + name + " overwritten at byte " +
               std::to_string(offset) + (b == 0 ? " before the start" : " past the end");
      }
    }
  }
  return std::nullopt;
}

}  // namespace gemmtune
