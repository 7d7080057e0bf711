// "cuBLASLt autotuned": the best of cuBLASLt's top-8 heuristic algorithms for a problem, each
// timed with a short protocol, the winner re-timed with the full one.
#pragma once

#include <string>

#include <cublasLt.h>

#include "src/core/eval_job.hpp"
#include "src/gpu/device_buffer.hpp"
#include "src/gpu/rotation_pool.hpp"
#include "src/gpu/timing_protocol.hpp"

namespace gemmtune {

/// How many heuristic algorithms are requested and tried.
inline constexpr int kLtAlgorithms = 8;
/// Workspace offered to cuBLASLt's algorithms.
inline constexpr std::size_t kLtWorkspaceBytes = std::size_t{64} << 20;

struct LtAutotuneResult {
  bool ok = false;
  std::string reason;     ///< why not ok; or a note (compute-type fallback) when ok
  TimingResult timing;    ///< full protocol, of the winner
  int algo_index = -1;    ///< 0-based position of the winner in the heuristic list
  int algos_tried = 0;    ///< algorithms that ran in the short protocol
};

class CublasLtAutotuner {
 public:
  /// Creates the cuBLASLt handle and workspace; throws Error / CudaFailure when that fails.
  explicit CublasLtAutotuner(cudaStream_t stream);
  ~CublasLtAutotuner();
  CublasLtAutotuner(CublasLtAutotuner const&) = delete;
  CublasLtAutotuner& operator=(CublasLtAutotuner const&) = delete;

  /// Times the top algorithms for `p` (baseline contract, alpha 1, beta 0) on `pool`; the
  /// winner's full timing reads `sensors` when given (time_launches).
  LtAutotuneResult run(Problem const& p, RotationPool const& pool, TimingSpec const& spec,
                       DeviceSensors const* sensors = nullptr);

 private:
  cublasLtHandle_t handle_ = nullptr;
  cudaStream_t stream_;
  DeviceBuffer workspace_;
};

}  // namespace gemmtune
