// Page-locked host allocations.
#include "src/gpu/pinned_buffer.hpp"

#include <utility>

#include <cuda_runtime_api.h>

#include "src/launch/cuda_errors.hpp"

namespace gemmtune {

PinnedBuffer::PinnedBuffer(std::size_t bytes) : bytes_(bytes) {
  void* p = nullptr;
  check_cuda(cudaMallocHost(&p, bytes == 0 ? 1 : bytes),
             "cudaMallocHost of " + std::to_string(bytes) + " bytes");
  data_ = static_cast<std::byte*>(p);
}

PinnedBuffer::~PinnedBuffer() { release(); }

PinnedBuffer::PinnedBuffer(PinnedBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}

PinnedBuffer& PinnedBuffer::operator=(PinnedBuffer&& other) noexcept {
  if (this != &other) {
    release();
    data_ = std::exchange(other.data_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

void PinnedBuffer::release() noexcept {
  // After a sticky fault this fails too; the process is about to exit, so ignore it.
  if (data_ != nullptr) (void)cudaFreeHost(data_);
  data_ = nullptr;
  bytes_ = 0;
}

}  // namespace gemmtune
