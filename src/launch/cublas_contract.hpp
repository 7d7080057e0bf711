// The cuBLAS side of gemmtune's precision contracts (DESIGN.md §3) and the one mapping of
// row-major storage onto cuBLAS's column-major API. The worker's reference and baselines and
// the runtime library's fallback all call through here, so the fallback can never drift from
// the reference every ratio is measured against.
#pragma once

#include <cstdint>
#include <string>

#include <cublas_v2.h>

#include "src/core/problem.hpp"

namespace gemmtune {

/// cuBLAS types of a precision contract.
struct CublasContract {
  cudaDataType_t a_type;         ///< A's element type (row-major A: cuBLAS's second operand)
  cudaDataType_t b_type;         ///< B's element type (cuBLAS's first operand)
  cudaDataType_t c_type;         ///< C element type
  cublasComputeType_t compute;   ///< accumulate / math mode
};

/// The contract a candidate of precision `p` is held to, the baseline is timed with and the
/// runtime falls back to: fp32 → 32F pedantic (never TF32); tf32 → 32F fast-TF32; fp16/bf16 →
/// 16-bit in and out with 32F compute; e4m3 → e4m3 in, bf16 out, 32F compute, and e5m2 the
/// same with an e5m2 A (cuBLASLt only:
/// cublasGemmEx takes no FP8, so the cuBLAS default of an FP8 problem is cuBLASLt's heuristic
/// choice). Throws Error for a value outside the enum.
CublasContract baseline_contract(Precision p);

/// The verification reference for `p`: same inputs, float output (so the candidate's output
/// rounding is judged separately), pedantic FP32 compute — for tf32 too, so the reference is as
/// close to exact as cuBLAS gets and the bound covers the candidate's error alone. FP8: FP32 in
/// and out — the reference multiplies FP32 copies of the quantized inputs.
CublasContract reference_contract(Precision p);

/// The loaded cuBLAS's version, "13.1.0" ("unknown" when it does not say): part of every
/// vendor trial's provenance, and what a table's cuBLASLt pick is checked against.
std::string cublas_version();

/// "CUBLAS_STATUS_NOT_SUPPORTED (15)".
std::string cublas_status_text(cublasStatus_t status);

/// A row-major C[M×N] = op(A)·op(B) as cuBLAS's column-major API sees it. A row-major R×C
/// matrix with leading dimension ld is, to cuBLAS, the column-major C×R matrix Xᵀ with the same
/// ld, so the product is computed as Cᵀ = op(B)ᵀ·op(A)ᵀ: the first operand is our B buffer, the
/// second our A buffer, m' = N, n' = M, k' = K. Our B buffer already is op(B)ᵀ in column-major
/// when B is not transposed, so its op is N, and T when B is stored transposed (N×K); the same
/// holds for A.
struct ColumnMajorGemm {
  cublasOperation_t op_first;   ///< op of the first operand (our B)
  cublasOperation_t op_second;  ///< op of the second operand (our A)
  std::int64_t m, n, k;         ///< m' = N, n' = M, k' = K
  /// Stored extents of the two operands in the column-major view (cuBLASLt's matrix layouts):
  /// our B is N×K (op N) or K×N (op T), our A is K×M (op N) or M×K (op T); C is N×M.
  std::int64_t first_rows, first_cols, second_rows, second_cols;
};
ColumnMajorGemm column_major(Layout layout, std::int64_t m, std::int64_t n, std::int64_t k);

/// Operands of one row-major GEMM with the caller's leading dimensions (in elements).
struct RowMajorGemm {
  Layout layout;
  std::int64_t m, n, k;
  void const* a;
  std::int64_t lda;
  void const* b;
  std::int64_t ldb;
  void* c;
  std::int64_t ldc;
};

/// C = alpha·op(A)·op(B) + beta·C with the types and compute of `contract`, queued on the
/// handle's stream. Every size and leading dimension must fit in int (callers check).
cublasStatus_t gemm_row_major(cublasHandle_t handle, RowMajorGemm const& g,
                              CublasContract const& contract, float alpha, float beta);

/// The same for the packed row-major storage of `p` (lda/ldb/ldc from Problem).
cublasStatus_t gemm_row_major(cublasHandle_t handle, Problem const& p,
                              CublasContract const& contract, void const* a, void const* b,
                              void* c, float alpha, float beta);

}  // namespace gemmtune
