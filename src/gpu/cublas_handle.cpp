// CublasHandle: cublasCreate, cublasSetStream and an owned workspace, with errors as exceptions
// (environment failures of the worker, not candidate failures).
#include "src/gpu/cublas_handle.hpp"

#include <string>

#include "src/core/error.hpp"

namespace gemmtune {

CublasHandle::CublasHandle(cudaStream_t stream) {
  if (cublasStatus_t const s = cublasCreate(&handle_); s != CUBLAS_STATUS_SUCCESS) {
    handle_ = nullptr;
    throw Error("cublasCreate failed: " + cublas_status_text(s));
  }
  if (cublasStatus_t const s = cublasSetStream(handle_, stream); s != CUBLAS_STATUS_SUCCESS) {
    (void)cublasDestroy(handle_);
    handle_ = nullptr;
    throw Error("cublasSetStream failed: " + cublas_status_text(s));
  }
  // cublasSetStream resets the workspace to the library's pool, so ours is set after it.
  if (cudaError_t const e = cudaMalloc(&workspace_, kCublasWorkspaceBytes); e != cudaSuccess) {
    (void)cudaGetLastError();
    (void)cublasDestroy(handle_);
    handle_ = nullptr;
    workspace_ = nullptr;
    throw Error(std::string("cudaMalloc of the cuBLAS workspace failed: ") + cudaGetErrorString(e));
  }
  if (cublasStatus_t const s = cublasSetWorkspace(handle_, workspace_, kCublasWorkspaceBytes);
      s != CUBLAS_STATUS_SUCCESS) {
    (void)cublasDestroy(handle_);
    (void)cudaFree(workspace_);
    handle_ = nullptr;
    workspace_ = nullptr;
    throw Error("cublasSetWorkspace failed: " + cublas_status_text(s));
  }
}

CublasHandle::~CublasHandle() {
  if (handle_ != nullptr) (void)cublasDestroy(handle_);
  if (workspace_ != nullptr) (void)cudaFree(workspace_);
}

}  // namespace gemmtune
