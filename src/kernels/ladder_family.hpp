// LadderFamily: what the seven fp32 seed-ladder descriptors share. Each template is
// `gemmtune::<name><params in declared order..., TA, TB>(GemmArgs)` in ladder/<name>.cuh, one
// launch over a flat grid of BM×BN tiles of C; each descriptor supplies its space, constraints,
// tile, thread count and shared-memory size. Also the constraint builders they share.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "src/kernels/family.hpp"

namespace gemmtune {

/// Base of the ladder descriptors: fp32 only, sm_70+, template file "ladder/<name>.cuh".
class LadderFamily : public Family {
 public:
  explicit LadderFamily(std::string name);

  std::string_view name() const override { return name_; }
  std::string_view template_file() const override { return template_file_; }
  int min_arch() const override { return 70; }
  bool supports(Precision p) const override { return p == Precision::kFP32; }

  CompileRequest compile_request(KernelConfig const& cfg, Problem const& problem,
                                 std::string const& arch) const override;
  LaunchPlan launch_plan(KernelConfig const& cfg, Problem const& problem) const override;
  int smem_bytes(KernelConfig const& cfg, Problem const& problem) const override;

  /// Rows and columns of C one block computes.
  virtual std::int64_t tile_m(KernelConfig const& cfg) const = 0;
  virtual std::int64_t tile_n(KernelConfig const& cfg) const = 0;
  /// Floats of shared memory one block stages.
  virtual std::int64_t smem_floats(KernelConfig const& cfg) const = 0;

  /// "gemmtune::<name><v1,...,vn,TA,TB>" from the canonical config's validated integers.
  std::string name_expression(KernelConfig const& cfg, Problem const& problem) const;
  /// Blocks in the flat grid: ceil(M/BM)·ceil(N/BN).
  std::int64_t blocks(KernelConfig const& cfg, Problem const& problem) const;
  /// The constraint every ladder family ends with: the flat grid fits gridDim.x.
  Constraint grid_fits() const;
  /// "registers": estimate(cfg) must fit the per-thread register budget, 255 or less when
  /// __launch_bounds__(threads) leaves fewer (65536 / threads, in steps of 8). `what` names the
  /// estimate's terms for the reason. The estimates are fitted to ptxas on sm_90 over each
  /// family's whole space (tests/nvrtc/compile_whole_space.sh), so they prune most spilling
  /// configs before compiling; ptxas's own figures remain the final word.
  Constraint register_estimate(std::function<double(KernelConfig const&)> estimate,
                               std::string what) const;
  /// Floats of op(A) and op(B) each thread copies into shared memory per K step.
  double staged_per_thread(KernelConfig const& cfg) const;

 private:
  std::string name_;
  std::string template_file_;
};

/// "alignment": float4 paths need every pointer and leading dimension 16-byte aligned.
Constraint vec4_alignment();

}  // namespace gemmtune
