// cuBLAS calls for baselines and references.
//
// Row-major → column-major: a row-major R×C matrix with leading dimension ld is, to cuBLAS, the
// column-major C×R matrix Xᵀ with the same ld. So the row-major C = op(A)·op(B) is computed as
// the column-major Cᵀ = op(B)ᵀ·op(A)ᵀ: cuBLAS's first operand is our B buffer, its second our A
// buffer, m' = N, n' = M, k' = K, ldc' = N. Our B buffer already *is* op(B)ᵀ in column-major
// when B is not transposed, so its op is N; when B is stored transposed (N×K) it needs T. The
// same holds for A. See cublaslt_autotune.cpp for the cuBLASLt form of the same mapping.
#include "gpu/cublas_reference.hpp"

#include "core/error.hpp"

namespace gemmtune {

CublasContract baseline_contract(Precision p) {
  switch (p) {
    case Precision::kFP32: return {CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_PEDANTIC};
    case Precision::kTF32: return {CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32};
    case Precision::kFP16: return {CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_32F};
    case Precision::kBF16: return {CUDA_R_16BF, CUDA_R_16BF, CUBLAS_COMPUTE_32F};
  }
  throw Error("unknown precision " + std::to_string(static_cast<int>(p)));
}

CublasContract reference_contract(Precision p) {
  CublasContract c = baseline_contract(p);
  c.c_type = CUDA_R_32F;
  c.compute = CUBLAS_COMPUTE_32F_PEDANTIC;
  return c;
}

std::string cublas_status_text(cublasStatus_t status) {
  return std::string(cublasGetStatusName(status)) + " (" +
         std::to_string(static_cast<int>(status)) + ")";
}

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

cublasStatus_t gemm_row_major(cublasHandle_t handle, Problem const& p,
                              CublasContract const& contract, void const* a, void const* b,
                              void* c, float alpha, float beta) {
  cublasOperation_t const op_first = b_transposed(p.layout) ? CUBLAS_OP_T : CUBLAS_OP_N;
  cublasOperation_t const op_second = a_transposed(p.layout) ? CUBLAS_OP_T : CUBLAS_OP_N;
  // kMaxDim (2^24) keeps M, N, K and the packed leading dimensions inside int.
  return cublasGemmEx(handle, op_first, op_second, static_cast<int>(p.n), static_cast<int>(p.m),
                      static_cast<int>(p.k), &alpha, b, contract.ab_type,
                      static_cast<int>(p.ldb()), a, contract.ab_type, static_cast<int>(p.lda()),
                      &beta, c, contract.c_type, static_cast<int>(p.ldc()), contract.compute,
                      CUBLAS_GEMM_DEFAULT);
}

}  // namespace gemmtune
