// cuBLASLt descriptors, algorithms from canonical configs, and the matmul (cublaslt_matmul.hpp).
#include "src/launch/cublaslt_matmul.hpp"

#include <cstdint>

namespace gemmtune {
namespace {

// Each attribute with the storage type cuBLASLt declares for it; a wrong size is refused.
template <class T>
cublasStatus_t set_attr(cublasLtMatmulAlgo_t& algo, cublasLtMatmulAlgoConfigAttributes_t attr,
                        std::int64_t value) {
  T const v = static_cast<T>(value);
  return cublasLtMatmulAlgoConfigSetAttribute(&algo, attr, &v, sizeof v);
}

template <class T>
bool get_attr(cublasLtMatmulAlgo_t const& algo, cublasLtMatmulAlgoConfigAttributes_t attr,
              std::int64_t& out) {
  T v{};
  std::size_t written = 0;
  if (cublasLtMatmulAlgoConfigGetAttribute(&algo, attr, &v, sizeof v, &written) !=
          CUBLAS_STATUS_SUCCESS ||
      written != sizeof v) {
    return false;
  }
  out = static_cast<std::int64_t>(v);
  return true;
}

}  // namespace

CublasContract lt_contract(Precision p, LtAlgoConfig const& algo) {
  CublasContract c = baseline_contract(p);
  if (algo.compute == 1 && c.compute == CUBLAS_COMPUTE_32F_PEDANTIC) c.compute = CUBLAS_COMPUTE_32F;
  return c;
}

cublasStatus_t LtDescriptors::init(RowMajorGemm const& g, CublasContract const& contract) {
  contract_ = contract;
  if (auto s = cublasLtMatmulDescInit(op(), contract.compute, CUDA_R_32F);
      s != CUBLAS_STATUS_SUCCESS) {
    return s;
  }
  ColumnMajorGemm const cm = column_major(g.layout, g.m, g.n, g.k);
  cublasOperation_t const op_first = cm.op_first;
  cublasOperation_t const op_second = cm.op_second;
  if (auto s = cublasLtMatmulDescSetAttribute(op(), CUBLASLT_MATMUL_DESC_TRANSA, &op_first,
                                              sizeof op_first);
      s != CUBLAS_STATUS_SUCCESS) {
    return s;
  }
  if (auto s = cublasLtMatmulDescSetAttribute(op(), CUBLASLT_MATMUL_DESC_TRANSB, &op_second,
                                              sizeof op_second);
      s != CUBLAS_STATUS_SUCCESS) {
    return s;
  }
  if (contract.b_type == CUDA_R_8F_E4M3) {  // every FP8 contract's B is e4m3
    std::int8_t const fast = 1;
    if (auto s = cublasLtMatmulDescSetAttribute(op(), CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast,
                                                sizeof fast);
        s != CUBLAS_STATUS_SUCCESS) {
      return s;
    }
  }
  auto const u = [](std::int64_t v) { return static_cast<std::uint64_t>(v); };
  if (auto s = cublasLtMatrixLayoutInit(first(), contract.b_type, u(cm.first_rows),
                                        u(cm.first_cols), g.ldb);
      s != CUBLAS_STATUS_SUCCESS) {
    return s;
  }
  if (auto s = cublasLtMatrixLayoutInit(second(), contract.a_type, u(cm.second_rows),
                                        u(cm.second_cols), g.lda);
      s != CUBLAS_STATUS_SUCCESS) {
    return s;
  }
  return cublasLtMatrixLayoutInit(out(), contract.c_type, u(cm.m), u(cm.n), g.ldc);
}

cublasStatus_t LtDescriptors::set_scales(float const* scale_a, float const* scale_b,
                                         Precision p) {
  auto const set = [&](cublasLtMatmulDescAttributes_t attr, std::int32_t value) {
    return cublasLtMatmulDescSetAttribute(op(), attr, &value, sizeof value);
  };
  // Row-wise scales are cuBLASLt's outer vectors: its A (our B) has one per column of C, its B
  // (our A) one per row. Block scales: its A (our B, the weights of a layer) one per 128×128
  // block, its B (our A) one per row and 128 of K. Per-tensor scales keep the descriptor's
  // default (scalar) mode.
  std::int32_t mode_first = CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F, mode_second = mode_first;
  if (row_scaled(p)) {
    mode_first = mode_second = CUBLASLT_MATMUL_MATRIX_SCALE_OUTER_VEC_32F;
  } else if (block_scaled(p)) {
    mode_first = CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F;
    mode_second = CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F;
    // The attribute is one byte wide; cuBLASLt refuses a value of another size.
    std::int8_t const fast = 0;
    if (auto s = cublasLtMatmulDescSetAttribute(op(), CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast,
                                                sizeof fast);
        s != CUBLAS_STATUS_SUCCESS) {
      return s;
    }
  }
  if (mode_first != CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F) {
    if (auto s = set(CUBLASLT_MATMUL_DESC_A_SCALE_MODE, mode_first); s != CUBLAS_STATUS_SUCCESS) {
      return s;
    }
    if (auto s = set(CUBLASLT_MATMUL_DESC_B_SCALE_MODE, mode_second);
        s != CUBLAS_STATUS_SUCCESS) {
      return s;
    }
  }
  // cuBLASLt's A is our B (column-major view), its B our A.
  if (auto s = cublasLtMatmulDescSetAttribute(op(), CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &scale_b,
                                              sizeof scale_b);
      s != CUBLAS_STATUS_SUCCESS) {
    return s;
  }
  return cublasLtMatmulDescSetAttribute(op(), CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &scale_a,
                                        sizeof scale_a);
}

std::string lt_build_algo(cublasLtHandle_t handle, LtDescriptors const& d,
                          LtAlgoConfig const& config, cublasLtMatmulAlgo_t& algo,
                          std::size_t& workspace_bytes) {
  CublasContract const& c = d.contract();
  if (auto s = cublasLtMatmulAlgoInit(handle, c.compute, CUDA_R_32F, c.b_type, c.a_type,
                                      c.c_type, c.c_type, static_cast<int>(config.algo), &algo);
      s != CUBLAS_STATUS_SUCCESS) {
    return "cuBLASLt has no algorithm " + std::to_string(config.algo) + " for these types (" +
           cublas_status_text(s) + ")";
  }
  struct Step {
    cublasStatus_t status;
    char const* what;
  };
  Step const steps[] = {
      {set_attr<std::uint32_t>(algo, CUBLASLT_ALGO_CONFIG_TILE_ID, config.tile), "tile"},
      {set_attr<std::uint32_t>(algo, CUBLASLT_ALGO_CONFIG_STAGES_ID, config.stages), "stages"},
      {set_attr<std::int32_t>(algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, config.split_k), "split-K"},
      {set_attr<std::uint32_t>(algo, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, config.reduction),
       "reduction scheme"},
      {set_attr<std::uint32_t>(algo, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING, config.swizzle),
       "CTA swizzling"},
      {set_attr<std::uint32_t>(algo, CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION, config.custom),
       "custom option"},
      {set_attr<std::uint16_t>(algo, CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID, config.inner),
       "inner shape"},
      {set_attr<std::uint16_t>(algo, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID, config.cluster),
       "cluster shape"},
  };
  for (Step const& s : steps) {
    if (s.status != CUBLAS_STATUS_SUCCESS) {
      return std::string("cuBLASLt refused the ") + s.what + " of the algorithm (" +
             cublas_status_text(s.status) + ")";
    }
  }
  cublasLtMatmulHeuristicResult_t check{};
  if (auto s = cublasLtMatmulAlgoCheck(handle, d.op(), d.first(), d.second(), d.out(), d.out(),
                                       &algo, &check);
      s != CUBLAS_STATUS_SUCCESS) {
    return "cuBLASLt cannot run the algorithm on this problem (cublasLtMatmulAlgoCheck: " +
           cublas_status_text(s) + ")";
  }
  if (check.state != CUBLAS_STATUS_SUCCESS) {
    return "cuBLASLt cannot run the algorithm on this problem (" +
           cublas_status_text(check.state) + ")";
  }
  workspace_bytes = check.workspaceSize;
  return {};
}

std::string lt_heuristic_first(cublasLtHandle_t handle, LtDescriptors const& d,
                               std::uint64_t max_workspace, cublasLtMatmulAlgo_t& algo,
                               std::size_t& workspace_bytes) {
  cublasLtMatmulPreference_t pref = nullptr;
  if (auto s = cublasLtMatmulPreferenceCreate(&pref); s != CUBLAS_STATUS_SUCCESS) {
    return "cublasLtMatmulPreferenceCreate: " + cublas_status_text(s);
  }
  (void)cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                             &max_workspace, sizeof max_workspace);
  cublasLtMatmulHeuristicResult_t heur{};
  int returned = 0;
  cublasStatus_t const s = cublasLtMatmulAlgoGetHeuristic(
      handle, d.op(), d.first(), d.second(), d.out(), d.out(), pref, 1, &heur, &returned);
  (void)cublasLtMatmulPreferenceDestroy(pref);
  if (s != CUBLAS_STATUS_SUCCESS || returned < 1 || heur.state != CUBLAS_STATUS_SUCCESS) {
    return "cuBLASLt's heuristic offered no algorithm (" + cublas_status_text(s) + ")";
  }
  algo = heur.algo;
  workspace_bytes = heur.workspaceSize;
  return {};
}

bool lt_read_algo(cublasLtMatmulAlgo_t const& algo, std::int64_t compute, LtAlgoConfig& out) {
  out = LtAlgoConfig{};
  out.compute = compute;
  return get_attr<std::int32_t>(algo, CUBLASLT_ALGO_CONFIG_ID, out.algo) &&
         get_attr<std::uint32_t>(algo, CUBLASLT_ALGO_CONFIG_TILE_ID, out.tile) &&
         get_attr<std::uint32_t>(algo, CUBLASLT_ALGO_CONFIG_STAGES_ID, out.stages) &&
         get_attr<std::int32_t>(algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, out.split_k) &&
         get_attr<std::uint32_t>(algo, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, out.reduction) &&
         get_attr<std::uint32_t>(algo, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING, out.swizzle) &&
         get_attr<std::uint32_t>(algo, CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION, out.custom) &&
         get_attr<std::uint16_t>(algo, CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID, out.inner) &&
         get_attr<std::uint16_t>(algo, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID, out.cluster);
}

cublasStatus_t lt_matmul(cublasLtHandle_t handle, LtDescriptors const& d,
                         cublasLtMatmulAlgo_t const& algo, float alpha, void const* a,
                         void const* b, float beta, void* c, void* workspace,
                         std::size_t workspace_bytes, cudaStream_t stream) {
  return cublasLtMatmul(handle, d.op(), &alpha, b, d.first(), a, d.second(), &beta, c, d.out(), c,
                        d.out(), &algo, workspace, workspace_bytes, stream);
}

}  // namespace gemmtune
