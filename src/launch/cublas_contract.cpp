// Precision contracts and the row-major → column-major mapping (see cublas_contract.hpp).
#include "src/launch/cublas_contract.hpp"

#include "src/core/error.hpp"

namespace gemmtune {

CublasContract baseline_contract(Precision p) {
  switch (p) {
    case Precision::kFP32:
      return {CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_PEDANTIC};
    case Precision::kTF32:
      return {CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32};
    case Precision::kFP16: return {CUDA_R_16F, CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_32F};
    case Precision::kBF16: return {CUDA_R_16BF, CUDA_R_16BF, CUDA_R_16BF, CUBLAS_COMPUTE_32F};
    case Precision::kE4M3:
    case Precision::kE4M3Row:
    case Precision::kE4M3Blk:
      return {CUDA_R_8F_E4M3, CUDA_R_8F_E4M3, CUDA_R_16BF, CUBLAS_COMPUTE_32F};
    case Precision::kE5M2:
    case Precision::kE5M2Row:
    case Precision::kE5M2Blk:
      return {CUDA_R_8F_E5M2, CUDA_R_8F_E4M3, CUDA_R_16BF, CUBLAS_COMPUTE_32F};
  }
  throw Error("unknown precision " + std::to_string(static_cast<int>(p)));
}

CublasContract reference_contract(Precision p) {
  // FP8 inputs are widened to FP32 copies for the reference (cuBLAS has no pedantic FP8 path).
  if (is_fp8(p)) return {CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_PEDANTIC};
  CublasContract c = baseline_contract(p);
  c.c_type = CUDA_R_32F;
  c.compute = CUBLAS_COMPUTE_32F_PEDANTIC;
  return c;
}

std::string cublas_version() {
  int major = 0, minor = 0, patch = 0;
  if (cublasGetProperty(MAJOR_VERSION, &major) != CUBLAS_STATUS_SUCCESS ||
      cublasGetProperty(MINOR_VERSION, &minor) != CUBLAS_STATUS_SUCCESS ||
      cublasGetProperty(PATCH_LEVEL, &patch) != CUBLAS_STATUS_SUCCESS) {
    return "unknown";
  }
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

std::string cublas_status_text(cublasStatus_t status) {
  return std::string(cublasGetStatusName(status)) + " (" +
         std::to_string(static_cast<int>(status)) + ")";
}

ColumnMajorGemm column_major(Layout layout, std::int64_t m, std::int64_t n, std::int64_t k) {
  ColumnMajorGemm g{};
  g.op_first = b_transposed(layout) ? CUBLAS_OP_T : CUBLAS_OP_N;
  g.op_second = a_transposed(layout) ? CUBLAS_OP_T : CUBLAS_OP_N;
  g.m = n;
  g.n = m;
  g.k = k;
  g.first_rows = g.op_first == CUBLAS_OP_N ? n : k;
  g.first_cols = g.op_first == CUBLAS_OP_N ? k : n;
  g.second_rows = g.op_second == CUBLAS_OP_N ? k : m;
  g.second_cols = g.op_second == CUBLAS_OP_N ? m : k;
  return g;
}

cublasStatus_t gemm_row_major(cublasHandle_t handle, RowMajorGemm const& g,
                              CublasContract const& contract, float alpha, float beta) {
  ColumnMajorGemm const cm = column_major(g.layout, g.m, g.n, g.k);
  auto const i = [](std::int64_t v) { return static_cast<int>(v); };
  return cublasGemmEx(handle, cm.op_first, cm.op_second, i(cm.m), i(cm.n), i(cm.k), &alpha, g.b,
                      contract.b_type, i(g.ldb), g.a, contract.a_type, i(g.lda), &beta, g.c,
                      contract.c_type, i(g.ldc), contract.compute, CUBLAS_GEMM_DEFAULT);
}

cublasStatus_t gemm_row_major(cublasHandle_t handle, Problem const& p,
                              CublasContract const& contract, void const* a, void const* b,
                              void* c, float alpha, float beta) {
  // kMaxDim (2^24) keeps M, N, K and the packed leading dimensions inside int.
  return gemm_row_major(handle, {p.layout, p.m, p.n, p.k, a, p.lda(), b, p.ldb(), c, p.ldc()},
                        contract, alpha, beta);
}

}  // namespace gemmtune
