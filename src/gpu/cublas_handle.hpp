// An owned cuBLAS handle bound to one stream, for the worker's reference and baseline calls
// (the contracts and the row-major mapping they use are in src/launch/cublas_contract.hpp).
// It owns its workspace, so cuBLAS never allocates while the graph protocol captures its calls.
#pragma once

#include <cstddef>

#include <cublas_v2.h>

#include "src/launch/cublas_contract.hpp"

namespace gemmtune {

/// Workspace of every handle: cuBLAS's own default on Hopper, so it picks the same kernels.
inline constexpr std::size_t kCublasWorkspaceBytes = std::size_t{32} << 20;

/// An owned cuBLAS handle bound to one stream, with its own workspace.
class CublasHandle {
 public:
  /// Throws Error when cublasCreate, cublasSetStream or the workspace fails.
  explicit CublasHandle(cudaStream_t stream);
  ~CublasHandle();
  CublasHandle(CublasHandle const&) = delete;
  CublasHandle& operator=(CublasHandle const&) = delete;
  cublasHandle_t get() const { return handle_; }

 private:
  cublasHandle_t handle_ = nullptr;
  void* workspace_ = nullptr;
};

}  // namespace gemmtune
