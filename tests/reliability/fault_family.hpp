// TEST ONLY: the descriptor of kernels/faults.cuh, a family whose parameter F picks one
// deliberate fault. Never registered in all_families(); the fault-injection suite passes it to
// a SearchSession by hand. Its smem_bytes() deliberately reports 0 for every F, as a buggy
// descriptor would, so the 1 MiB request of F=9 reaches the launch instead of being pruned.
#pragma once

#include <map>
#include <string>

#include "src/core/disposition.hpp"
#include "src/kernels/family.hpp"

namespace gemmtune::reliability {

/// F values of kernels/faults.cuh.
enum FaultKind : int {
  kCorrect = 0,
  kOutOfBoundsWrite = 1,
  kMisalignedLoad = 2,
  kInfiniteLoop = 3,
  kShortKLoop = 4,
  kUnwrittenTile = 5,
  kTf32InFp32 = 6,
  kWarpRace = 7,
  kCompileFailure = 8,
  kTooMuchSmem = 9,
};

/// What each F must be classified as.
std::map<int, Disposition> const& expected_dispositions();
/// "out-of-bounds write", ... for reports.
std::string fault_name(int f);

class FaultFamily : public Family {
 public:
  /// `kernel_dir` holds faults.cuh.
  explicit FaultFamily(std::string kernel_dir);

  std::string_view name() const override { return "fault"; }
  std::string_view description() const override { return "test-only kernels with injected faults"; }
  /// Only for the provenance hash (a test family has no embedded template of its own).
  std::string_view template_file() const override { return "common/gemm_args.cuh"; }
  int min_arch() const override { return 80; }  // cvt.rna.tf32.f32
  bool supports(Precision p) const override { return p == Precision::kFP32; }
  std::vector<ParamSpec> params() const override;
  std::vector<Constraint> constraints() const override { return {}; }
  CompileRequest compile_request(KernelConfig const& cfg, Problem const& problem,
                                 std::string const& arch) const override;
  LaunchPlan launch_plan(KernelConfig const& cfg, Problem const& problem) const override;
  int smem_bytes(KernelConfig const&, Problem const&) const override { return 0; }
  int threads(KernelConfig const&) const override { return 256; }

 private:
  std::string source_;
};

}  // namespace gemmtune::reliability
