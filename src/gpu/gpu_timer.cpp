// CUDA event pair.
#include "src/gpu/gpu_timer.hpp"

#include "src/launch/cuda_errors.hpp"

namespace gemmtune {

GpuTimer::GpuTimer() {
  check_cuda(cudaEventCreate(&start_), "cudaEventCreate");
  cudaError_t const e = cudaEventCreate(&stop_);
  if (e != cudaSuccess) {
    (void)cudaEventDestroy(start_);
    check_cuda(e, "cudaEventCreate");
  }
}

GpuTimer::~GpuTimer() {
  (void)cudaEventDestroy(start_);
  (void)cudaEventDestroy(stop_);
}

cudaError_t GpuTimer::start(cudaStream_t stream) { return cudaEventRecord(start_, stream); }
cudaError_t GpuTimer::stop(cudaStream_t stream) { return cudaEventRecord(stop_, stream); }

cudaError_t GpuTimer::elapsed_ms(float& ms) {
  ms = 0.0f;
  if (cudaError_t const e = cudaEventSynchronize(stop_); e != cudaSuccess) return e;
  return cudaEventElapsedTime(&ms, start_, stop_);
}

}  // namespace gemmtune
