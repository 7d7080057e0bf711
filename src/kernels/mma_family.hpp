// Descriptor of the `mma` family (kernel_templates/mma/mma.cuh): tensor cores through mma.sync,
// ldmatrix and a cp.async ring in XOR-swizzled shared memory, for tf32, fp16 and bf16 on sm_80+.
// The registry (family.cpp) lists it.
#pragma once

#include <cstdint>
#include <string>

#include "src/kernels/family.hpp"

namespace gemmtune {

/// The mma descriptor: its space, constraints, NVRTC request and launch plan (main kernel; with
/// SK = 2 the last slice of each tile sums the partials, with more a reduce kernel follows).
class MmaFamily final : public Family {
 public:
  std::string_view name() const override { return "mma"; }
  std::string_view description() const override;
  std::string_view template_file() const override { return "mma/mma.cuh"; }
  int min_arch() const override { return 80; }
  bool supports(Precision p) const override {
    return p == Precision::kTF32 || p == Precision::kFP16 || p == Precision::kBF16;
  }

  std::vector<ParamSpec> params() const override;
  std::vector<Constraint> constraints() const override;
  CompileRequest compile_request(KernelConfig const& cfg, Problem const& problem,
                                 std::string const& arch) const override;
  LaunchPlan launch_plan(KernelConfig const& cfg, Problem const& problem) const override;
  int smem_bytes(KernelConfig const& cfg, Problem const& problem) const override;
  int threads(KernelConfig const& cfg) const override;
  int registers_per_thread(KernelConfig const& cfg, Problem const& problem) const override;
  RooflineTraits roofline_traits(KernelConfig const& cfg, Problem const& problem) const override;

  /// Blocks along grid x: ceil(M/BM)·ceil(N/BN) (grid z holds the SK slices).
  static std::int64_t tiles(KernelConfig const& cfg, Problem const& problem);
  /// "gemmtune::mma_gemm<BM,BN,BK,WM,WN,ST,SW,SK,PREC,TA,TB,ALIGN>".
  std::string main_expression(KernelConfig const& cfg, Problem const& problem) const;
  /// "gemmtune::mma_reduce<SK,PREC>" (SK > 2).
  std::string reduce_expression(KernelConfig const& cfg, Problem const& problem) const;
  /// SK slices of M × N FP32 partials; 0 when SK = 1.
  static std::int64_t workspace_bytes(KernelConfig const& cfg, Problem const& problem);
  /// Registers per thread the config is expected to need (accumulators, two fragment sets,
  /// loader addresses); the "registers" constraint compares it with the per-thread budget.
  static int register_estimate(KernelConfig const& cfg, Problem const& problem);
};

/// The registered instance.
Family const& mma_family();

}  // namespace gemmtune
