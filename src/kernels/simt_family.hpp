// Descriptor of the `simt` family (kernel_templates/simt/simt.cuh): FP32 on CUDA cores with
// block, warp-lane and 4×4 sub-block thread tiling, conflict cures, register-staged or cp.async
// pipelines, rasterization groups and split-K. The registry (family.cpp) lists it.
#pragma once

#include <cstdint>
#include <string>

#include "src/kernels/family.hpp"

namespace gemmtune {

/// The simt descriptor: its space, constraints, NVRTC request and launch plan (main kernel,
/// then a reduce kernel after split-K atomics (RED=1) or partials beyond SK = 2).
class SimtFamily final : public Family {
 public:
  std::string_view name() const override { return "simt"; }
  std::string_view description() const override;
  std::string_view template_file() const override { return "simt/simt.cuh"; }
  int min_arch() const override { return 70; }
  bool supports(Precision p) const override { return p == Precision::kFP32; }

  std::vector<ParamSpec> params() const override;
  std::vector<Constraint> constraints() const override;
  CompileRequest compile_request(KernelConfig const& cfg, Problem const& problem,
                                 std::string const& arch) const override;
  LaunchPlan launch_plan(KernelConfig const& cfg, Problem const& problem) const override;
  int smem_bytes(KernelConfig const& cfg, Problem const& problem) const override;
  int threads(KernelConfig const& cfg) const override;
  int registers_per_thread(KernelConfig const& cfg, Problem const& problem) const override;
  RooflineTraits roofline_traits(KernelConfig const& cfg, Problem const& problem) const override;

  /// Rows and columns of C one warp computes: lanes_m·TM × lanes_n·TN (lanes 4×8 or 8×4 by LL).
  static std::int64_t warp_m(KernelConfig const& cfg);
  static std::int64_t warp_n(KernelConfig const& cfg);
  /// Blocks along grid x: ceil(M/BM)·ceil(N/BN) (grid z holds the SK slices).
  static std::int64_t tiles(KernelConfig const& cfg, Problem const& problem);
  /// "gemmtune::simt<BM,...,RED,TA,TB,VEC>"; VEC is the alignment class 16.
  std::string main_expression(KernelConfig const& cfg, Problem const& problem) const;
  /// "gemmtune::simt_reduce<SLICES,VEC>"; SLICES is SK (RED=0, SK > 2) or 1 (RED=1).
  std::string reduce_expression(KernelConfig const& cfg, Problem const& problem) const;
  /// Workspace for the partial products: SK (RED=0) or 1 (RED=1) slices of M × round_up(N, 4)
  /// floats; 0 when SK = 1.
  static std::int64_t workspace_bytes(KernelConfig const& cfg, Problem const& problem);
  /// Registers per thread the config is expected to need (accumulators, fragments, staged
  /// loads, addresses); the "registers" constraint compares it with the per-thread budget.
  static int register_estimate(KernelConfig const& cfg);
};

/// The registered instance.
Family const& simt_family();

}  // namespace gemmtune
