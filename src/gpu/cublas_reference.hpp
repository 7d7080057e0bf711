// cuBLAS with gemmtune's precision contracts: the default-call baseline and the float-output
// reference that candidates are verified against. Also the one place that documents how
// row-major storage maps onto cuBLAS's column-major API.
#pragma once

#include <string>

#include <cublas_v2.h>

#include "core/problem.hpp"

namespace gemmtune {

/// cuBLAS types of a precision contract (DESIGN.md §3).
struct CublasContract {
  cudaDataType_t ab_type;        ///< A and B element type
  cudaDataType_t c_type;         ///< C element type
  cublasComputeType_t compute;   ///< accumulate / math mode
};

/// The contract a candidate of precision `p` is held to and the baseline is timed with:
/// fp32 → 32F pedantic (never TF32); tf32 → 32F fast-TF32; fp16/bf16 → 16-bit in and out with
/// 32F compute.
CublasContract baseline_contract(Precision p);

/// The verification reference for `p`: same inputs, float output (so the candidate's output
/// rounding is judged separately), pedantic FP32 compute — for tf32 too, so the reference is as
/// close to exact as cuBLAS gets and the bound covers the candidate's error alone.
CublasContract reference_contract(Precision p);

/// "CUBLAS_STATUS_NOT_SUPPORTED (15)".
std::string cublas_status_text(cublasStatus_t status);

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

/// C = alpha·op(A)·op(B) + beta·C for the packed row-major storage of `p` (lda/ldb/ldc from
/// Problem), with the types and compute of `contract`. Queued on the handle's stream.
cublasStatus_t gemm_row_major(cublasHandle_t handle, Problem const& p,
                              CublasContract const& contract, void const* a, void const* b,
                              void* c, float alpha, float beta);

}  // namespace gemmtune
