// cuBLAS fallback: pooled handles, and the contract's row-major GEMM with the caller's leading
// dimensions unchanged.
#include "src/runtime/cublas_gemm.hpp"

#include "src/launch/cublas_contract.hpp"

namespace gemmtune {

CublasPool::~CublasPool() {
  int current = 0;
  bool const restore = cudaGetDevice(&current) == cudaSuccess;
  for (auto const& [device, handle] : all_) {
    (void)cudaSetDevice(device);  // a handle is released on the device it was made on
    (void)cublasDestroy(handle);
  }
  if (restore) (void)cudaSetDevice(current);
  (void)cudaGetLastError();
}

std::string CublasPool::gemm(int device, GemmCall const& call, cudaStream_t stream) {
  cublasHandle_t handle = nullptr;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto& idle = idle_[device];
    if (!idle.empty()) {
      handle = idle.back();
      idle.pop_back();
    }
  }
  if (handle == nullptr) {
    if (cublasStatus_t const s = cublasCreate(&handle); s != CUBLAS_STATUS_SUCCESS) {
      (void)cudaGetLastError();
      return std::string("cublasCreate failed: ") + cublasGetStatusName(s);
    }
    std::lock_guard<std::mutex> lock(mutex_);
    all_.emplace_back(device, handle);
  }
  std::string error;
  if (cublasStatus_t const s = cublasSetStream(handle, stream); s != CUBLAS_STATUS_SUCCESS) {
    error = std::string("cublasSetStream failed: ") + cublasGetStatusName(s);
  } else {
    // invalid_reason() has kept every size and leading dimension inside int.
    RowMajorGemm const operands{call.layout, call.m,   call.n, call.k,  call.a,
                                call.lda,    call.b,   call.ldb, call.c, call.ldc};
    cublasStatus_t const g = gemm_row_major(handle, operands, baseline_contract(call.precision),
                                            call.alpha, call.beta);
    if (g != CUBLAS_STATUS_SUCCESS) {
      (void)cudaGetLastError();
      error = std::string("cublasGemmEx failed: ") + cublasGetStatusName(g);
    }
  }
  std::lock_guard<std::mutex> lock(mutex_);
  idle_[device].push_back(handle);
  return error;
}

}  // namespace gemmtune
