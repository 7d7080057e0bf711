// An owned cuBLAS handle bound to one stream, for the worker's reference and baseline calls
// (the contracts and the row-major mapping they use are in src/launch/cublas_contract.hpp).
#pragma once

#include <cublas_v2.h>

#include "src/launch/cublas_contract.hpp"

namespace gemmtune {

/// An owned cuBLAS handle bound to one stream.
class CublasHandle {
 public:
  /// Throws Error when cublasCreate or cublasSetStream fails.
  explicit CublasHandle(cudaStream_t stream);
  ~CublasHandle();
  CublasHandle(CublasHandle const&) = delete;
  CublasHandle& operator=(CublasHandle const&) = delete;
  cublasHandle_t get() const { return handle_; }

 private:
  cublasHandle_t handle_ = nullptr;
};

}  // namespace gemmtune
