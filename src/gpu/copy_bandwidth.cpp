// Device-to-device copy bandwidth by the timing protocol.
#include "src/gpu/copy_bandwidth.hpp"

#include "src/gpu/device_buffer.hpp"
#include "src/gpu/timing_protocol.hpp"
#include "src/launch/cuda_errors.hpp"

namespace gemmtune {

CopyResult time_device_copy(CopyJob const& job, cudaStream_t stream) {
  CopyResult r;
  r.bytes = job.bytes;
  r.protocol = job.timing.protocol;
  if (job.bytes < 16 || job.bytes % 16 != 0) {
    r.reason = "a copy needs a positive multiple of 16 bytes, got " + std::to_string(job.bytes);
    return r;
  }
  auto const bytes = static_cast<std::size_t>(job.bytes);
  DeviceBuffer from, to;
  try {
    from = DeviceBuffer(bytes);
    to = DeviceBuffer(bytes);
  } catch (CudaFailure const& f) {
    if (is_sticky(f.cuda_error())) throw;
    r.reason = "no room for two buffers of " + std::to_string(job.bytes) + " bytes: " + f.what();
    return r;
  }
  // Written once, so the copy reads mapped pages with defined contents.
  check_cuda(cudaMemsetAsync(from.data(), 0x3c, bytes, stream), "cudaMemsetAsync");
  TimedLaunch const copy = [&](int) {
    LaunchStatus s;
    if (cudaError_t const e =
            cudaMemcpyAsync(to.data(), from.data(), bytes, cudaMemcpyDeviceToDevice, stream);
        e != cudaSuccess) {
      s.cuda_error = e;
      s.error = std::string("cudaMemcpyAsync: ") + cudaGetErrorString(e);
    }
    return s;
  };
  TimingResult const t = time_launches(copy, 1, job.timing, stream);
  if (!t.failure.ok()) {
    if (is_sticky(t.failure.cuda_error)) throw CudaFailure(t.failure.error, t.failure.cuda_error);
    r.reason = t.failure.error;
    return r;
  }
  r.ok = true;
  r.median_ms = t.median_ms;
  r.min_ms = t.min_ms;
  r.max_ms = t.max_ms;
  r.protocol = t.protocol;
  return r;
}

}  // namespace gemmtune
