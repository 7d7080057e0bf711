// CublasHandle: cublasCreate and cublasSetStream with errors as exceptions (environment
// failures of the worker, not candidate failures).
#include "src/gpu/cublas_handle.hpp"

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
}

CublasHandle::~CublasHandle() {
  if (handle_ != nullptr) (void)cublasDestroy(handle_);
}

}  // namespace gemmtune
