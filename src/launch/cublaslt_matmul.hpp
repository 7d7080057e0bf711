// One cuBLASLt algorithm, fully configured, run on a row-major GEMM: the descriptors (the same
// row-major → column-major mapping as cublas_contract.hpp), building an algorithm from its
// canonical config and checking it, reading the config back from one cuBLASLt returned, and the
// matmul. The worker's candidates and the runtime's table entries both run through here, so an
// id the search timed is the algorithm the runtime runs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include <cublasLt.h>

#include "src/core/vendor_kernel.hpp"
#include "src/launch/cublas_contract.hpp"

namespace gemmtune {

/// The contract an algorithm runs under: the precision's (baseline_contract), with plain
/// CUBLAS_COMPUTE_32F in place of pedantic FP32 when `algo.compute` is 1.
CublasContract lt_contract(Precision p, LtAlgoConfig const& algo);

/// cuBLASLt's descriptors of one row-major GEMM shape with its leading dimensions (the pointers
/// of `g` are not used). Plain storage (no allocation, nothing to destroy), so a copy is cheap.
class LtDescriptors {
 public:
  /// Initialises the descriptors for `g` under `contract` (alpha and beta are float). An FP8
  /// contract also turns on fast accumulation (sums kept in the tensor cores between k steps,
  /// as our own FP8 kernels keep them), the fastest mode cuBLASLt offers.
  cublasStatus_t init(RowMajorGemm const& g, CublasContract const& contract);
  /// The scales of an FP8 matmul of precision `p` in device memory for our A and B (cuBLASLt's B
  /// and A), in the layouts of src/core/precision.hpp: one float each (e4m3), M floats for A's
  /// rows and N for B's columns (e4m3-row: outer vectors), or block scales (e4m3-blk: A's as
  /// VEC128_32F, B's as BLK128x128_32F, and fast accumulation off, which cuBLASLt's block
  /// scaling requires). Set on fresh descriptors before an FP8 matmul, and before asking the
  /// heuristic (it offers only algorithms that take the scale modes); the pointers are kept in
  /// the descriptor, so they must outlive its use.
  cublasStatus_t set_scales(float const* scale_a, float const* scale_b, Precision p);

  // cuBLASLt takes its descriptors by non-const handle but only reads them during a matmul.
  cublasLtMatmulDesc_t op() const { return const_cast<cublasLtMatmulDesc_t>(&op_); }
  /// Our B buffer (cuBLASLt's A), our A buffer (its B), and C (its C and D).
  cublasLtMatrixLayout_t first() const { return const_cast<cublasLtMatrixLayout_t>(&first_); }
  cublasLtMatrixLayout_t second() const { return const_cast<cublasLtMatrixLayout_t>(&second_); }
  cublasLtMatrixLayout_t out() const { return const_cast<cublasLtMatrixLayout_t>(&out_); }
  CublasContract const& contract() const { return contract_; }

 private:
  cublasLtMatmulDescOpaque_t op_{};
  cublasLtMatrixLayoutOpaque_t first_{}, second_{}, out_{};
  CublasContract contract_{};
};

/// Builds the algorithm `config` describes for `d` and asks cuBLASLt whether it runs there
/// (cublasLtMatmulAlgoCheck). "" with `algo` and the workspace it needs filled in, else why not.
std::string lt_build_algo(cublasLtHandle_t handle, LtDescriptors const& d,
                          LtAlgoConfig const& config, cublasLtMatmulAlgo_t& algo,
                          std::size_t& workspace_bytes);

/// cuBLASLt's heuristic's first algorithm for `d` within `max_workspace` bytes of workspace:
/// the default call of a problem cublasGemmEx cannot run (FP8). "" with `algo` and the
/// workspace it needs filled in, else why not.
std::string lt_heuristic_first(cublasLtHandle_t handle, LtDescriptors const& d,
                               std::uint64_t max_workspace, cublasLtMatmulAlgo_t& algo,
                               std::size_t& workspace_bytes);

/// The configuration of an algorithm cuBLASLt returned (a heuristic result), with `compute`
/// set as given; false when cuBLASLt refuses to read an attribute.
bool lt_read_algo(cublasLtMatmulAlgo_t const& algo, std::int64_t compute, LtAlgoConfig& out);

/// C = alpha·op(A)·op(B) + beta·C with `algo` on `stream`; a, b, c as in RowMajorGemm.
cublasStatus_t lt_matmul(cublasLtHandle_t handle, LtDescriptors const& d,
                         cublasLtMatmulAlgo_t const& algo, float alpha, void const* a,
                         void const* b, float beta, void* c, void* workspace,
                         std::size_t workspace_bytes, cudaStream_t stream);

}  // namespace gemmtune
