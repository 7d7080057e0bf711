// The vendor's GEMMs as candidates (DESIGN.md §6): the ids of the default cuBLAS call and of one
// fully configured cuBLASLt algorithm, and their validation. Plain integers here, no CUDA: the
// launch layer turns a validated LtAlgoConfig into a cuBLASLt algorithm, and the table, the
// store and the CLI name these candidates by the same canonical ids as our own kernels.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "src/core/kernel_config.hpp"

namespace gemmtune {

/// Family of the default cublasGemmEx call under the precision's contract: "cublas:default".
inline constexpr std::string_view kCublasFamily = "cublas";
/// Family of one cuBLASLt algorithm with its whole configuration.
inline constexpr std::string_view kCublasLtFamily = "cublaslt";

/// Whether `family` names a vendor candidate (cublas or cublaslt) rather than our kernels.
bool is_vendor_family(std::string_view family);
/// Whether the config is a vendor candidate.
bool is_vendor(KernelConfig const& config);

/// The best vendor figure: the faster of cuBLAS's and cuBLASLt-autotuned's times, either of which
/// may be missing (≤ 0); 0 when both are.
double best_vendor_ms(double cublas_ms, double cublaslt_ms);

/// The default cuBLAS call: family cublas, no parameters; its id is "cublas:default".
KernelConfig cublas_default();

/// One cuBLASLt algorithm: every field of cublasLtMatmulAlgoConfigAttributes_t, plus which
/// compute type of the precision's contract it runs under.
struct LtAlgoConfig {
  std::int64_t algo = 0;       ///< CUBLASLT_ALGO_CONFIG_ID
  std::int64_t tile = 0;       ///< CUBLASLT_ALGO_CONFIG_TILE_ID (cublasLtMatmulTile_t)
  std::int64_t stages = 0;     ///< CUBLASLT_ALGO_CONFIG_STAGES_ID (cublasLtMatmulStages_t)
  std::int64_t split_k = 1;    ///< CUBLASLT_ALGO_CONFIG_SPLITK_NUM
  std::int64_t reduction = 0;  ///< CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME
  std::int64_t swizzle = 0;    ///< CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING
  std::int64_t custom = 0;     ///< CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION
  std::int64_t inner = 0;      ///< CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID
  std::int64_t cluster = 0;    ///< CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID
  /// 0: the contract's compute type; 1: plain CUBLAS_COMPUTE_32F where the contract is
  /// pedantic FP32 (no TF32 either way; for fp32 shapes cuBLASLt has no pedantic algorithm for).
  std::int64_t compute = 0;
  bool operator==(LtAlgoConfig const&) const = default;
};

/// Bounds the ids are checked against: wide enough for every value cuBLAS 12–13 defines, tight
/// enough that a hostile id never reaches cuBLASLt as a huge or negative number.
inline constexpr std::int64_t kMaxLtAlgoId = 4095;
inline constexpr std::int64_t kMaxLtTileId = 4095;
inline constexpr std::int64_t kMaxLtStagesId = 4095;
inline constexpr std::int64_t kMaxLtSplitK = 1024;
inline constexpr std::int64_t kMaxLtReduction = 0xFF;
inline constexpr std::int64_t kMaxLtCustom = 0xFFFF;
inline constexpr std::int64_t kMaxLtInner = 0xFFFF;
inline constexpr std::int64_t kMaxLtCluster = 0xFFFF;

/// The canonical config of an algorithm:
///   cublaslt:ALGO=a,TILE=t,STAGES=s,SPLITK=k,RED=r,SWIZZLE=w,CUSTOM=c,INNER=i,CLUSTER=l,COMPUTE=p
KernelConfig to_kernel_config(LtAlgoConfig const& algo);

/// Why `config` is not a valid vendor candidate ("" when it is): an unknown family, a missing,
/// extra or misordered parameter, or a value out of range.
std::string vendor_reject_reason(KernelConfig const& config);

/// The algorithm of a valid cublaslt config; throws UsageError with vendor_reject_reason().
LtAlgoConfig lt_algo_config(KernelConfig const& config);

/// The algorithm a cublaslt id names, or nullopt when `id` does not parse or validate (for ids
/// that arrive from elsewhere: a worker's answer, a stored trial).
std::optional<LtAlgoConfig> parse_lt_algo(std::string_view id);

}  // namespace gemmtune
