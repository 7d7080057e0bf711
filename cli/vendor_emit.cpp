// The emitted cuBLAS / cuBLASLt call (vendor_emit.hpp). The names written are the cuBLAS enums
// of the precision contracts (DESIGN.md §3) and the row-major → column-major mapping of
// src/launch/cublas_contract.hpp, spelled out so the file builds without gemmtune.
#include "cli/vendor_emit.hpp"

#include <sstream>

#include "src/core/error.hpp"
#include "src/core/gpu_identity.hpp"
#include "src/core/vendor_kernel.hpp"
#include "src/nvrtc/content_hash.hpp"

namespace gemmtune {
namespace {

struct Types {
  char const* a;
  char const* b;
  char const* c;
  char const* compute;
};

Types contract_names(Precision p, std::int64_t lt_compute) {
  switch (p) {
    case Precision::kFP32:
      return {"CUDA_R_32F", "CUDA_R_32F", "CUDA_R_32F",
              lt_compute == 1 ? "CUBLAS_COMPUTE_32F" : "CUBLAS_COMPUTE_32F_PEDANTIC"};
    case Precision::kTF32:
      return {"CUDA_R_32F", "CUDA_R_32F", "CUDA_R_32F", "CUBLAS_COMPUTE_32F_FAST_TF32"};
    case Precision::kFP16: return {"CUDA_R_16F", "CUDA_R_16F", "CUDA_R_16F", "CUBLAS_COMPUTE_32F"};
    case Precision::kBF16:
      return {"CUDA_R_16BF", "CUDA_R_16BF", "CUDA_R_16BF", "CUBLAS_COMPUTE_32F"};
    case Precision::kE4M3:
    case Precision::kE4M3Row:
    case Precision::kE4M3Blk:
      return {"CUDA_R_8F_E4M3", "CUDA_R_8F_E4M3", "CUDA_R_16BF", "CUBLAS_COMPUTE_32F"};
    case Precision::kE5M2:
    case Precision::kE5M2Row:
    case Precision::kE5M2Blk:
      return {"CUDA_R_8F_E5M2", "CUDA_R_8F_E4M3", "CUDA_R_16BF", "CUBLAS_COMPUTE_32F"};
  }
  throw Error("unknown precision");
}

/// The lines of an FP8 call that set its accumulation and scales on the descriptor `op`, as
/// src/launch/cublaslt_matmul.cpp sets them: fast accumulation except under block scales (which
/// cuBLASLt runs only without it), the scale modes of the precision, and the scale pointers
/// (cuBLASLt's A is our B).
std::string fp8_descriptor_lines(Precision p) {
  std::ostringstream os;
  os << "  std::int8_t const fast_accum = " << (block_scaled(p) ? 0 : 1) << ";\n"
     << "  if ((s = cublasLtMatmulDescSetAttribute(&op, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast_accum,\n"
     << "                                          sizeof fast_accum)) != CUBLAS_STATUS_SUCCESS) {\n"
     << "    return s;\n"
     << "  }\n";
  if (row_scaled(p) || block_scaled(p)) {
    char const* const first = row_scaled(p) ? "CUBLASLT_MATMUL_MATRIX_SCALE_OUTER_VEC_32F"
                                            : "CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F";
    char const* const second = row_scaled(p) ? "CUBLASLT_MATMUL_MATRIX_SCALE_OUTER_VEC_32F"
                                             : "CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F";
    os << "  std::int32_t const mode_first = " << first << ", mode_second = " << second << ";\n"
       << "  if ((s = cublasLtMatmulDescSetAttribute(&op, CUBLASLT_MATMUL_DESC_A_SCALE_MODE, &mode_first,\n"
       << "                                          sizeof mode_first)) != CUBLAS_STATUS_SUCCESS ||\n"
       << "      (s = cublasLtMatmulDescSetAttribute(&op, CUBLASLT_MATMUL_DESC_B_SCALE_MODE, &mode_second,\n"
       << "                                          sizeof mode_second)) != CUBLAS_STATUS_SUCCESS) {\n"
       << "    return s;\n"
       << "  }\n";
  }
  os << "  if ((s = cublasLtMatmulDescSetAttribute(&op, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &scale_b,\n"
     << "                                          sizeof scale_b)) != CUBLAS_STATUS_SUCCESS ||\n"
     << "      (s = cublasLtMatmulDescSetAttribute(&op, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &scale_a,\n"
     << "                                          sizeof scale_a)) != CUBLAS_STATUS_SUCCESS) {\n"
     << "    return s;\n"
     << "  }\n";
  return os.str();
}

/// How an FP8 call's scales are laid out, for the header comment.
char const* fp8_scales_comment(Precision p) {
  if (row_scaled(p)) {
    return "// scale_a, scale_b: M and N floats in device memory, each 16-byte aligned: a scale per\n"
           "// row of op(A) and per column of op(B) (C[i][j] = alpha*sa[i]*sb[j]*(op(A)*op(B))[i][j]\n"
           "// + beta*C[i][j], C in bf16).\n";
  }
  if (block_scaled(p)) {
    return "// scale_a, scale_b: block scales in device memory, each 16-byte aligned: scale_a one per\n"
           "// row i of op(A) and 128-deep block kb of K at kb*M + i; scale_b one per 128x128 block\n"
           "// of op(B) at (j/128)*L + kb, L = ceil(K/128) rounded up to 4 (C in bf16).\n";
  }
  return "// scale_a, scale_b: one float each in device memory, 16-byte aligned: the per-tensor scales\n"
         "// of A and B (C = alpha*sa*sb*op(A)*op(B) + beta*C, C in bf16).\n";
}

}  // namespace

std::string emit_vendor_source(KernelConfig const& vendor, Problem const& p) {
  if (std::string const why = vendor_reject_reason(vendor); !why.empty()) {
    throw UsageError("cannot emit '" + vendor.id() + "': " + why);
  }
  // FP8 runs through cuBLASLt only (cublasGemmEx takes no FP8): cublas:default is then
  // cuBLASLt's heuristic algorithm, as in the runtime.
  bool const fp8 = is_fp8(p.precision);
  bool const heuristic = fp8 && vendor.family != kCublasLtFamily;
  bool const lt = vendor.family == kCublasLtFamily || fp8;
  LtAlgoConfig const algo = vendor.family == kCublasLtFamily ? lt_algo_config(vendor) : LtAlgoConfig{};
  Types const t = contract_names(p.precision, algo.compute);
  std::string const id = vendor.id();
  std::string const ns =
      std::string(vendor.family) + "_" + content_hash(id + "|" + p.describe()).substr(0, 12);
  // Row-major C = op(A)·op(B) is column-major Cᵀ = op(B)ᵀ·op(A)ᵀ: our B first, our A second.
  bool const tb = b_transposed(p.layout), ta = a_transposed(p.layout);
  std::int64_t const first_rows = tb ? p.k : p.n, first_cols = tb ? p.n : p.k;
  std::int64_t const second_rows = ta ? p.m : p.k, second_cols = ta ? p.k : p.m;
  char const* const op_first = tb ? "CUBLAS_OP_T" : "CUBLAS_OP_N";
  char const* const op_second = ta ? "CUBLAS_OP_T" : "CUBLAS_OP_N";

  std::ostringstream os;
  os << "// Generated by gemmtune " << gemmtune_version() << " emit. Do not edit; re-run emit.\n"
     << "//   kernel   " << id
     << (heuristic ? " (cuBLASLt's heuristic algorithm: cublasGemmEx takes no FP8)"
         : lt      ? " (a cuBLASLt algorithm)"
                   : " (the default cuBLAS call)")
     << "\n"
     << "//   problem  " << p.describe() << " (row-major, C = alpha*op(A)*op(B) + beta*C)\n"
     << "//\n"
     << "// Build: nvcc -c -std=c++17 <this file> -o gemm.o, link with "
     << (lt ? "-lcublasLt" : "-lcublas") << ".\n"
     << "// Leading dimensions are in elements; alpha and beta are float (FP32 accumulation).\n";
  if (fp8) os << fp8_scales_comment(p.precision);
  if (heuristic) {
    os << "// gemm() returns CUBLAS_STATUS_NOT_SUPPORTED when the heuristic offers no algorithm\n"
       << "// within the workspace given.\n";
  } else if (lt) {
    os << "// The algorithm id belongs to the cuBLAS it was tuned with: gemm() returns the status\n"
       << "// of cublasLtMatmulAlgoCheck when this cuBLAS does not take it (then call cuBLAS's\n"
       << "// default instead), and CUBLAS_STATUS_INVALID_VALUE when the workspace is too small.\n";
  }
  os << "\n#include <cstddef>\n#include <cstdint>\n\n"
     << (lt ? "#include <cublasLt.h>\n" : "#include <cublas_v2.h>\n")
     << "#include <cuda_runtime.h>\n\n"
     << "namespace gemmtune_emitted::" << ns << " {\n\n"
     << "constexpr std::int64_t M = " << p.m << ", N = " << p.n << ", K = " << p.k << ";\n\n";
  if (!lt) {
    os << "/// The tuned call on `handle`'s stream (host pointer mode).\n"
       << "inline cublasStatus_t gemm(cublasHandle_t handle, void const* A, int lda, void const* B,\n"
       << "                           int ldb, void* C, int ldc, float alpha, float beta) {\n"
       << "  return cublasGemmEx(handle, " << op_first << ", " << op_second << ", N, M, K, &alpha, B, "
       << t.b << ", ldb, A, " << t.a << ", lda, &beta, C, " << t.c << ", ldc, " << t.compute
       << ", CUBLAS_GEMM_DEFAULT);\n"
       << "}\n\n";
  } else {
    os << (heuristic ? "/// cuBLASLt's heuristic algorithm on `stream`; "
                     : "/// The tuned algorithm on `stream`; ")
       << "`workspace` of `workspace_bytes` device bytes.\n"
       << "inline cublasStatus_t gemm(cublasLtHandle_t handle, void const* A, std::int64_t lda,\n"
       << "                           void const* B, std::int64_t ldb, void* C, std::int64_t ldc,\n"
       << "                           float alpha, float beta,"
       << (fp8 ? " float const* scale_a, float const* scale_b,\n                          " : "")
       << " void* workspace,\n"
       << "                           std::size_t workspace_bytes, cudaStream_t stream) {\n"
       << "  cublasLtMatmulDescOpaque_t op;\n"
       << "  cublasLtMatrixLayoutOpaque_t first, second, out;  // our B, our A, C\n"
       << "  cublasStatus_t s = cublasLtMatmulDescInit(&op, " << t.compute << ", CUDA_R_32F);\n"
       << "  if (s != CUBLAS_STATUS_SUCCESS) return s;\n"
       << "  cublasOperation_t const op_first = " << op_first << ", op_second = " << op_second
       << ";\n"
       << "  if ((s = cublasLtMatmulDescSetAttribute(&op, CUBLASLT_MATMUL_DESC_TRANSA, &op_first,\n"
       << "                                          sizeof op_first)) != CUBLAS_STATUS_SUCCESS ||\n"
       << "      (s = cublasLtMatmulDescSetAttribute(&op, CUBLASLT_MATMUL_DESC_TRANSB, &op_second,\n"
       << "                                          sizeof op_second)) != CUBLAS_STATUS_SUCCESS ||\n"
       << "      (s = cublasLtMatrixLayoutInit(&first, " << t.b << ", " << first_rows << ", "
       << first_cols << ", ldb)) != CUBLAS_STATUS_SUCCESS ||\n"
       << "      (s = cublasLtMatrixLayoutInit(&second, " << t.a << ", " << second_rows << ", "
       << second_cols << ", lda)) != CUBLAS_STATUS_SUCCESS ||\n"
       << "      (s = cublasLtMatrixLayoutInit(&out, " << t.c << ", N, M, ldc)) !=\n"
       << "          CUBLAS_STATUS_SUCCESS) {\n"
       << "    return s;\n"
       << "  }\n"
       << (fp8 ? fp8_descriptor_lines(p.precision) : "");
    if (heuristic) {
      os << "  cublasLtMatmulPreferenceOpaque_t pref;\n"
         << "  std::uint64_t const max_workspace = workspace_bytes;\n"
         << "  cublasLtMatmulHeuristicResult_t result{};\n"
         << "  int found = 0;\n"
         << "  if ((s = cublasLtMatmulPreferenceInit(&pref)) != CUBLAS_STATUS_SUCCESS ||\n"
         << "      (s = cublasLtMatmulPreferenceSetAttribute(\n"
         << "           &pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &max_workspace,\n"
         << "           sizeof max_workspace)) != CUBLAS_STATUS_SUCCESS ||\n"
         << "      (s = cublasLtMatmulAlgoGetHeuristic(handle, &op, &first, &second, &out, &out, &pref,\n"
         << "                                          1, &result, &found)) != CUBLAS_STATUS_SUCCESS) {\n"
         << "    return s;\n"
         << "  }\n"
         << "  if (found == 0) return CUBLAS_STATUS_NOT_SUPPORTED;\n";
    } else {
      os << "  cublasLtMatmulAlgo_t algo;\n"
         << "  if ((s = cublasLtMatmulAlgoInit(handle, " << t.compute << ", CUDA_R_32F, " << t.b
         << ", " << t.a << ", " << t.c << ", " << t.c << ", " << algo.algo
         << ", &algo)) != CUBLAS_STATUS_SUCCESS) {\n"
         << "    return s;\n"
         << "  }\n"
         << "  std::uint32_t const tile = " << algo.tile << ", stages = " << algo.stages
         << ", reduction = " << algo.reduction << ", swizzle = " << algo.swizzle
         << ", custom = " << algo.custom << ";\n"
         << "  std::int32_t const split_k = " << algo.split_k << ";\n"
         << "  std::uint16_t const inner = " << algo.inner << ", cluster = " << algo.cluster << ";\n"
         << "  struct Attr { cublasLtMatmulAlgoConfigAttributes_t attr; void const* value; std::size_t size; };\n"
         << "  Attr const attrs[] = {\n"
         << "      {CUBLASLT_ALGO_CONFIG_TILE_ID, &tile, sizeof tile},\n"
         << "      {CUBLASLT_ALGO_CONFIG_STAGES_ID, &stages, sizeof stages},\n"
         << "      {CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &split_k, sizeof split_k},\n"
         << "      {CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, &reduction, sizeof reduction},\n"
         << "      {CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING, &swizzle, sizeof swizzle},\n"
         << "      {CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION, &custom, sizeof custom},\n"
         << "      {CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID, &inner, sizeof inner},\n"
         << "      {CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID, &cluster, sizeof cluster},\n"
         << "  };\n"
         << "  for (Attr const& a : attrs) {\n"
         << "    if ((s = cublasLtMatmulAlgoConfigSetAttribute(&algo, a.attr, a.value, a.size)) !=\n"
         << "        CUBLAS_STATUS_SUCCESS) {\n"
         << "      return s;\n"
         << "    }\n"
         << "  }\n"
         << "  cublasLtMatmulHeuristicResult_t check{};\n"
         << "  if ((s = cublasLtMatmulAlgoCheck(handle, &op, &first, &second, &out, &out, &algo,\n"
         << "                                   &check)) != CUBLAS_STATUS_SUCCESS) {\n"
         << "    return s;\n"
         << "  }\n"
         << "  if (check.state != CUBLAS_STATUS_SUCCESS) return check.state;\n"
         << "  if (check.workspaceSize > workspace_bytes) return CUBLAS_STATUS_INVALID_VALUE;\n";
    }
    os << "  return cublasLtMatmul(handle, &op, &alpha, B, &first, A, &second, &beta, C, &out, C, "
          "&out,\n"
       << "                        " << (heuristic ? "&result.algo" : "&algo")
       << ", workspace, workspace_bytes, stream);\n"
       << "}\n\n";
  }
  os << "}  // namespace gemmtune_emitted::" << ns << "\n";
  return os.str();
}

}  // namespace gemmtune
