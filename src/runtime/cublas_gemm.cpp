// cuBLAS fallback. Row-major C = op(A)·op(B) is the column-major Cᵀ = op(B)ᵀ·op(A)ᵀ: cuBLAS's
// first operand is our B (op T exactly when B is stored transposed), its second our A, with
// m' = N, n' = M and the caller's leading dimensions unchanged.
#include "runtime/cublas_gemm.hpp"

namespace gemmtune {

CublasTypes cublas_types(Precision p) {
  switch (p) {
    case Precision::kFP32: return {CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_PEDANTIC};
    case Precision::kTF32: return {CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32};
    case Precision::kFP16: return {CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_32F};
    case Precision::kBF16: return {CUDA_R_16BF, CUDA_R_16BF, CUBLAS_COMPUTE_32F};
  }
  return {CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_PEDANTIC};
}

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
    CublasTypes const t = cublas_types(call.precision);
    cublasOperation_t const op_b = b_transposed(call.layout) ? CUBLAS_OP_T : CUBLAS_OP_N;
    cublasOperation_t const op_a = a_transposed(call.layout) ? CUBLAS_OP_T : CUBLAS_OP_N;
    // invalid_reason() has kept every size and leading dimension inside int.
    cublasStatus_t const g = cublasGemmEx(
        handle, op_b, op_a, static_cast<int>(call.n), static_cast<int>(call.m),
        static_cast<int>(call.k), &call.alpha, call.b, t.ab, static_cast<int>(call.ldb), call.a,
        t.ab, static_cast<int>(call.lda), &call.beta, call.c, t.c, static_cast<int>(call.ldc),
        t.compute, CUBLAS_GEMM_DEFAULT);
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
