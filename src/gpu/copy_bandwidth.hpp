// The device's copy bandwidth: one device-to-device copy far larger than L2, timed by the
// protocol every kernel is timed by, for the report's roofline.
#pragma once

#include <cuda_runtime_api.h>

#include "src/core/eval_job.hpp"

namespace gemmtune {

/// Times cudaMemcpyAsync of job.bytes between two fresh buffers on `stream` (graph replay under
/// the graph protocol, so it is the copy's GPU time). A failure (no memory for two buffers, a
/// failed copy) is !ok with the reason; a sticky CUDA error throws CudaFailure for the caller
/// to poison its session.
CopyResult time_device_copy(CopyJob const& job, cudaStream_t stream);

}  // namespace gemmtune
