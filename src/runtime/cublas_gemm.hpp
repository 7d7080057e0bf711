// The runtime's cuBLAS fallback: a pool of handles per device (a handle is used by one thread
// at a time) running the row-major GEMM with the caller's leading dimensions under the same
// contract the worker verifies and times against (src/launch/cublas_contract.hpp).
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include "src/runtime/gemm_call.hpp"

namespace gemmtune {

/// cuBLAS handles for many threads; handles are created on first need and kept until the pool
/// goes away.
class CublasPool {
 public:
  CublasPool() = default;
  ~CublasPool();
  CublasPool(CublasPool const&) = delete;
  CublasPool& operator=(CublasPool const&) = delete;

  /// Runs the call on `stream` on the current device `device`; "" on success, else the
  /// cuBLAS status and what failed.
  std::string gemm(int device, GemmCall const& call, cudaStream_t stream);

 private:
  std::mutex mutex_;
  std::map<int, std::vector<cublasHandle_t>> idle_;  // by device
  std::vector<std::pair<int, cublasHandle_t>> all_;
};

}  // namespace gemmtune
