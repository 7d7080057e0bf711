// GpuTimer: a pair of CUDA events around work on one stream.
#pragma once

#include <cuda_runtime_api.h>

namespace gemmtune {

class GpuTimer {
 public:
  /// Creates the two events; throws CudaFailure when that fails.
  GpuTimer();
  ~GpuTimer();
  GpuTimer(GpuTimer const&) = delete;
  GpuTimer& operator=(GpuTimer const&) = delete;

  /// Records the start event on `stream`.
  cudaError_t start(cudaStream_t stream);
  /// Records the stop event on `stream`.
  cudaError_t stop(cudaStream_t stream);
  /// Waits for the stop event and writes the elapsed milliseconds. Returns the error of the
  /// wait, which is how a fault in the timed work shows up.
  cudaError_t elapsed_ms(float& ms);

 private:
  cudaEvent_t start_ = nullptr;
  cudaEvent_t stop_ = nullptr;
};

}  // namespace gemmtune
